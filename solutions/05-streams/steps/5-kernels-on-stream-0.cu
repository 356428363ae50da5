/* Lab 05, rung 5 (a detour): the reference's 64 chunks and 4 streams, kernels on stream 0.
 *
 * Changed from rung 4: 64 chunks; the copies go on streams made by cudaStreamCreate (blocking
 * streams) and the kernels on the legacy default stream, stream 0. Why look at it: stream 0
 * synchronizes with every blocking stream. A kernel there waits for all copies issued before it
 * and every later copy waits for the kernel, so the pipeline collapses to one stage at a time,
 * most of the way back to the skeleton. The reference (and rungs 2-4) use non-blocking
 * streams (cudaStreamNonBlocking) and never touch stream 0. */
#include "streams.h"
#include "check.h"

#define CHUNKS 64  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 4 /* streams the chunks take turns on */

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    size_t chunks = (size_t)CHUNKS < n ? (size_t)CHUNKS : n;
    const size_t chunk = (n + chunks - 1) / chunks; /* the last chunk may be shorter */
    chunks = (n + chunk - 1) / chunk;
    cudaStream_t stream[STREAMS];
    for (int i = 0; i < STREAMS; i++)
        CUDA_CHECK(cudaStreamCreate(&stream[i])); /* blocking: they wait for stream 0 */
    /* One step per chunk: copy-in and kernel of chunk `step`, then copy-out of the chunk
     * before it (issued one step late, so a GPU with one copy engine never queues a copy-out
     * ahead of the next copy-in). */
    for (size_t step = 0; step <= chunks; step++) {
        if (step < chunks) {
            const size_t off = step * chunk, len = n - off < chunk ? n - off : chunk;
            cudaStream_t s = stream[step % STREAMS];
            CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float),
                                       cudaMemcpyHostToDevice, s));
            process(d_out + off, d_in + off, len, 0); /* the legacy default stream */
        }
        if (step >= 1) {
            const size_t j = step - 1, off = j * chunk, len = n - off < chunk ? n - off : chunk;
            CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream[j % STREAMS]));
        }
    }
    for (int i = 0; i < STREAMS; i++) /* queued work completes; the grader syncs the device */
        CUDA_CHECK(cudaStreamDestroy(stream[i]));
}
