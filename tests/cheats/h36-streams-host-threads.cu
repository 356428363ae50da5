/* Honest: lab 05 driven from host threads: eight std::threads, each with a stream of its own
 * (created and destroyed in the thread), each pushing its eighth of the array through in
 * sixteen pieces (copy in, process(), copy out), all of them calling process() at once after
 * a barrier. The grader's launcher counts every call from every thread: none is lost.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"
#include <atomic>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr int kPieces = 16; /* per thread */

void drive(float *h_out, const float *h_in, float *d_out, float *d_in, size_t first,
           size_t count, streams_kernel process, std::atomic<int> *ready)
{
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    ready->fetch_add(1);
    while (ready->load() < kThreads) /* every thread in its loop at once */
        std::this_thread::yield();
    const size_t per = (count + kPieces - 1) / kPieces;
    for (size_t off = first; off < first + count; off += per) {
        const size_t len = first + count - off < per ? first + count - off : per;
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s);
        process(d_out + off, d_in + off, len, s);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
}

} // namespace

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    const size_t per = (n + kThreads - 1) / kThreads;
    for (int t = 0; t < kThreads; t++) {
        const size_t first = t * per < n ? t * per : n;
        const size_t count = n - first < per ? n - first : per;
        threads.emplace_back(drive, h_out, h_in, d_out, d_in, first, count, process, &ready);
    }
    for (std::thread &t : threads)
        t.join();
}
