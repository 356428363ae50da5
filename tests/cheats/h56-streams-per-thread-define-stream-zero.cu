/* Honest: lab 05 from four host threads that each issue their quarter of the chunks to stream
 * 0, with CUDA_API_PER_THREAD_DEFAULT_STREAM defined at the top of the file, hoping for a
 * default stream per host thread. In a .cu file the define comes after the runtime's headers,
 * which nvcc (and the CPU emulator's emu-nvcc) include before the file: stream 0 stays the
 * legacy stream, on a GPU as under the emulator, so the work is serialised but correct. Each
 * thread waits for the whole device before it returns; the call joins the threads.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
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
                                cudaMemcpyHostToDevice, 0);
                process(d_out + off, d_in + off, len, 0);
                cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float),
                                cudaMemcpyDeviceToHost, 0);
            }
            cudaStreamSynchronize(0);
        });
    for (int t = 0; t < kThreads; t++)
        workers[t].join();
}
