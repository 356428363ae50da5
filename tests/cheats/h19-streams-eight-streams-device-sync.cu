/* Honest: lab 05 with more streams than it needs: eight streams created and destroyed in every
 * call, 64 chunks dealt to them in turn, and one cudaDeviceSynchronize before returning. The
 * reference beside it may run a little slower or faster than alone (the copies ride on PCIe);
 * that alone is never held against it.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kStreams = 8, kChunks = 64 };
    cudaStream_t s[kStreams];
    for (int i = 0; i < kStreams; i++)
        cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
    const size_t per = (n + kChunks - 1) / kChunks;
    for (size_t off = 0, c = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st = s[c % kStreams];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, st);
        process(d_out + off, d_in + off, len, st);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, st);
    }
    cudaDeviceSynchronize();
    for (int i = 0; i < kStreams; i++)
        cudaStreamDestroy(s[i]);
}
