/* Lab 05 - streams: overlap copies and compute: REFERENCE SOLUTION.
 *
 * h_out[i] = f(h_in[i]) through the device (contract: grader/labs/05-streams/streams.h).
 *
 * Three kinds of hardware can work at the same time: a copy engine moving host -> device,
 * another moving device -> host, and the SMs running kernels. One stream uses one at a time
 * (copy in, then compute, then copy out), so two of the three idle. Here the array is cut
 * into C chunks and each chunk's copy-in, kernel and copy-out go on one of a few streams:
 * work in different streams may run concurrently, so while chunk i computes, chunk i+1
 * comes in and chunk i-1 goes out.
 *
 *     stream 0:  [in 0][k 0][out 0]                  [in 4][k 4]...
 *     stream 1:        [in 1][k 1][out 1]                  ...
 *     stream 2:              [in 2][k 2][out 2]
 *     stream 3:                    [in 3][k 3][out 3]
 *     time ->    fill  |---- all three busy ----|  drain
 *
 * Time: the busiest stage's total, plus one chunk of each other stage to fill the pipe and
 * drain it: max(Tio, Tk) + (the rest) / C, Tio being both copy directions at once. More chunks shrink the fill and drain,
 * but each copy and launch has a fixed cost of a few microseconds, so chunks stay >= 1 MiB
 * and at most 64 (fill + drain <= 2/64 of the time). */
#include "streams.h"
#include "check.h"
#include "streams_pipeline.cuh" /* issue_chunks: the pipeline, shared with the ladder's rungs */

#define MAX_STREAMS 4               /* 3 stages in flight, and one chunk of slack */
#define MAX_CHUNKS 64               /* fill + drain: 2/64 of a balanced pipeline */
#define MIN_CHUNK_BYTES (1u << 20)  /* below ~1 MiB the fixed cost of each copy shows */

/* Copy engines that can run beside kernels: 2 or more let H2D and D2H run at once (3 on the
 * T4, A100, H100 and H200, 2 on the GeForce and L4 parts of common/gpu_profiles.c); with 1 (a
 * Jetson) the two directions take turns; 0 on very old GPUs. */
static int copy_engines(void)
{
    int dev = 0, engines = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev));
    return engines;
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    /* Chunk count: with no copy engine beside the SMs nothing overlaps, so one chunk. */
    size_t chunks = n * sizeof(float) / MIN_CHUNK_BYTES;
    if (chunks > MAX_CHUNKS)
        chunks = MAX_CHUNKS;
    if (chunks < 1 || copy_engines() == 0)
        chunks = 1;
    const size_t chunk = (n + chunks - 1) / chunks; /* the last chunk may be shorter */
    chunks = (n + chunk - 1) / chunk;
    const int nstreams = chunks < MAX_STREAMS ? (int)chunks : MAX_STREAMS;

    /* Non-blocking streams: no implicit synchronisation with the legacy default stream
     * (stream 0), so nothing anyone queues there can serialize this pipeline. */
    cudaStream_t stream[MAX_STREAMS];
    for (int i = 0; i < nstreams; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking));

    /* Issue order: copy-in and kernel of each chunk, its copy-out one step later
     * (streams_pipeline.cuh says why). */
    issue_chunks(h_out, h_in, d_out, d_in, n, process, chunk, chunks, stream, nstreams, false);

    /* Destroying a stream with work queued is allowed: the work completes, then the stream's
     * resources are released. The grader synchronizes the device after this returns. */
    for (int i = 0; i < nstreams; i++)
        CUDA_CHECK(cudaStreamDestroy(stream[i]));
}
