/* Honest: lab 05 in another style: three streams of different priorities taking chunks in
 * turn, copies with cudaMemcpyDefault, an event per stream that the first stream waits on at
 * the end, and a host callback (cudaLaunchHostFunc) that counts finished chunks. Every stream
 * and event is destroyed before returning; the work may still be running then.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "streams.h"
#include <atomic>

static std::atomic<long> g_chunks_done{0};

static void CUDART_CB chunk_done(void *)
{
    g_chunks_done.fetch_add(1, std::memory_order_relaxed);
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    constexpr int kStreams = 3;
    const size_t chunks = n < (1u << 20) ? 1 : 24; /* small arrays: one piece */
    cudaStream_t s[kStreams];
    cudaEvent_t finished[kStreams];
    int lo = 0, hi = 0;
    cudaDeviceGetStreamPriorityRange(&lo, &hi);
    for (int k = 0; k < kStreams; k++) {
        cudaStreamCreateWithPriority(&s[k], cudaStreamNonBlocking, k == 0 ? hi : lo);
        cudaEventCreateWithFlags(&finished[k], cudaEventDisableTiming);
    }
    const size_t per = (n + chunks - 1) / chunks;
    for (size_t c = 0; c < chunks; c++) {
        const size_t off = c * per;
        if (off >= n)
            break;
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st = s[c % kStreams];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyDefault, st);
        process(d_out + off, d_in + off, len, st);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDefault, st);
        cudaLaunchHostFunc(st, chunk_done, nullptr);
    }
    for (int k = 0; k < kStreams; k++)
        cudaEventRecord(finished[k], s[k]);
    for (int k = 1; k < kStreams; k++)
        cudaStreamWaitEvent(s[0], finished[k], 0);
    for (int k = 0; k < kStreams; k++) {
        cudaEventDestroy(finished[k]);
        cudaStreamDestroy(s[k]);
    }
}
