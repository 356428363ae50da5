/* Honest but slow: lab 05 on only two streams (16 chunks), each stream synchronized on its own
 * (cudaStreamSynchronize) before it is destroyed. With two streams the copy-in of one chunk
 * waits behind the copy-out of the chunk before it on the same stream, so the pipeline is
 * short of the pass mark: the speed check may fail on its ratio, never with an accusation.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kStreams = 2, kChunks = 16 };
    cudaStream_t s[kStreams];
    for (int i = 0; i < kStreams; i++)
        cudaStreamCreate(&s[i]);
    const size_t per = (n + kChunks - 1) / kChunks;
    for (size_t off = 0, c = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st = s[c % kStreams];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, st);
        process(d_out + off, d_in + off, len, st);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, st);
    }
    for (int i = 0; i < kStreams; i++) {
        cudaStreamSynchronize(s[i]);
        cudaStreamDestroy(s[i]);
    }
}
