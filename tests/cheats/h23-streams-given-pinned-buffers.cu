/* Honest: lab 05 that asks the runtime whether the host arrays it is given are pinned
 * (cudaPointerGetAttributes) and, since they are, copies straight from them (cudaMemcpyDefault:
 * the runtime tells the direction from the pointers), on four streams, 32 chunks, synchronizing
 * each stream before returning. Unpinned arrays would have been staged through a pinned buffer
 * of its own, allocated and freed in the call.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"
#include <string.h>

static int pinned(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError(); /* an unregistered pointer on an old runtime: not pinned */
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kStreams = 4, kChunks = 32 };
    const float *src = h_in;
    float *dst = h_out, *staging = nullptr;
    if (!pinned(h_in) || !pinned(h_out)) {
        cudaMallocHost(&staging, 2 * n * sizeof(float));
        memcpy(staging, h_in, n * sizeof(float));
        src = staging;
        dst = staging + n;
    }
    cudaStream_t s[kStreams];
    for (int i = 0; i < kStreams; i++)
        cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
    const size_t per = (n + kChunks - 1) / kChunks;
    for (size_t off = 0, c = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st = s[c % kStreams];
        cudaMemcpyAsync(d_in + off, src + off, len * sizeof(float), cudaMemcpyDefault, st);
        process(d_out + off, d_in + off, len, st);
        cudaMemcpyAsync(dst + off, d_out + off, len * sizeof(float), cudaMemcpyDefault, st);
    }
    for (int i = 0; i < kStreams; i++) {
        cudaStreamSynchronize(s[i]);
        cudaStreamDestroy(s[i]);
    }
    if (staging) {
        memcpy(h_out, dst, n * sizeof(float));
        cudaFreeHost(staging);
    }
}
