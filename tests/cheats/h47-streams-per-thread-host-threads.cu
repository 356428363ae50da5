/* Honest: lab 05 from four host threads, each copying in, processing and copying out its own
 * quarter of the chunks on its per-thread default stream (cudaStreamPerThread), then waiting
 * for that stream; the call joins the threads.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"
#include <thread>

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kThreads = 4, kChunks = 16 };
    const size_t per = (n + kChunks - 1) / kChunks;
    std::thread workers[kThreads];
    for (int t = 0; t < kThreads; t++)
        workers[t] = std::thread([=] {
            for (size_t c = t; c * per < n; c += kThreads) {
                const size_t off = c * per, len = n - off < per ? n - off : per;
                cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float),
                                cudaMemcpyHostToDevice, cudaStreamPerThread);
                process(d_out + off, d_in + off, len, cudaStreamPerThread);
                cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float),
                                cudaMemcpyDeviceToHost, cudaStreamPerThread);
            }
            cudaStreamSynchronize(cudaStreamPerThread);
        });
    for (int t = 0; t < kThreads; t++)
        workers[t].join();
}
