/* Lab 05, rung 4: 16 chunks over four streams.
 *
 * Changed from rung 3: 16 chunks instead of 4. Why: fill and drain shrink to a sixteenth of a
 * stage's total; the time approaches the busiest stage alone. The reference goes to 64 chunks
 * (chunks of at least 1 MiB, so the few microseconds each copy and launch cost stay small), and
 * sizes the chunk count from n and the GPU's copy engines. */
#include "streams.h"
#include "check.h"

#define CHUNKS 16  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 4 /* streams the chunks take turns on */

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    size_t chunks = (size_t)CHUNKS < n ? (size_t)CHUNKS : n;
    const size_t chunk = (n + chunks - 1) / chunks; /* the last chunk may be shorter */
    chunks = (n + chunk - 1) / chunk;
    cudaStream_t stream[STREAMS];
    for (int i = 0; i < STREAMS; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking));
    /* One step per chunk: copy-in and kernel of chunk `step`, then copy-out of the chunk
     * before it (issued one step late, so a GPU with one copy engine never queues a copy-out
     * ahead of the next copy-in). */
    for (size_t step = 0; step <= chunks; step++) {
        if (step < chunks) {
            const size_t off = step * chunk, len = n - off < chunk ? n - off : chunk;
            cudaStream_t s = stream[step % STREAMS];
            CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float),
                                       cudaMemcpyHostToDevice, s));
            process(d_out + off, d_in + off, len, s);
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
