/* Lab 05 - streams: overlap copies and compute: YOUR FILE.
 *
 * Task: h_out[i] = f(h_in[i]) for a large array in pinned host memory: copy it to the
 * device, run the grader's kernel `process` on it, copy the result back (contract:
 * grader/labs/05-streams/streams.h). Read labs/05-streams/README.md first.
 *
 * What is yours: everything in this file. Keep the function `streams` with its signature;
 * add helpers as you like. What is not: the contract header, the grader, and the kernel
 * behind `process` (call it; you cannot change it). Grade it with `make grade LAB=streams`.
 *
 * This version is correct but slow: one stream does everything in order, so while the
 * array is copied in, the SMs and the other copy engine wait; while the kernel runs, both
 * copy engines wait; while the result is copied out, the SMs wait. The grader sizes the
 * kernel so that each of the three takes about as long as the others: done one after the
 * other they take three times as long as the slowest of them. */
#include "streams.h"
#include "check.h" /* CUDA_CHECK: every CUDA call checked, with its text, file and line */

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    const size_t bytes = n * sizeof(float);

    /* Rule of the lab: destroy every stream (and event) you create before returning. */
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    /* TODO(student): cut the array into chunks (try 8, then more: the pipeline fills and
     * drains one chunk at each end, so fewer chunks waste more) and give each chunk its own
     * copy-in, process() and copy-out. Work in ONE stream runs in order; work in DIFFERENT
     * streams may overlap. So spread the chunks over 3 or 4 streams (round-robin): then the
     * copy-in of chunk i+1, the kernel of chunk i and the copy-out of chunk i-1 can run at
     * the same time, on the two copy engines and the SMs.
     * Watch the last chunk: n is rarely a multiple of your chunk size. */
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    process(d_out, d_in, n, stream);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));

    /* TODO(student): destroy all your streams here. It is fine to destroy a stream whose
     * work is still queued: the work completes. The grader waits for the whole device. */
    CUDA_CHECK(cudaStreamDestroy(stream));
}
