/* Lab 05, rung 3: four streams, but only 4 chunks.
 *
 * Changed from rung 2: 4 streams (three stages in flight and one of slack), and 4 chunks.
 * Why: with enough streams all three engines can work at once, but the pipeline must fill and
 * drain: the first chunk's copy-in and the last chunk's copy-out run with nothing beside them.
 * That costs (T_in + T_kernel + T_out - the busiest) / chunks: with 4 chunks, about a third of
 * the whole time. Rung 4 cuts the chunks finer. */
#include "streams.h"
#include "check.h"

#define CHUNKS 4  /* pieces of the array (fewer when n is smaller) */
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
