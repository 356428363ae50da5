/* streams_rung.cuh - lab 05's ladder rungs, written once: streams() cuts the array into
 * CHUNKS chunks (fewer when n is smaller) over STREAMS streams and issues them with
 * issue_chunks (streams_pipeline.cuh). A rung defines CHUNKS and STREAMS before it includes
 * this file, and, for rung 5's detour, STREAMS_BLOCKING: streams made by cudaStreamCreate
 * (they synchronize with the legacy default stream) and every kernel on that stream 0. */
#if !defined(CHUNKS) || !defined(STREAMS)
#error "define CHUNKS and STREAMS before including streams_rung.cuh"
#endif

#include "streams.h"
#include "check.h"
#include "streams_pipeline.cuh"

#ifndef STREAMS_BLOCKING
#define STREAMS_BLOCKING 0 /* non-blocking streams, kernels on them (rungs 1-4) */
#endif

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    size_t chunks = (size_t)CHUNKS < n ? (size_t)CHUNKS : n;
    const size_t chunk = (n + chunks - 1) / chunks; /* the last chunk may be shorter */
    chunks = (n + chunk - 1) / chunk;
    cudaStream_t stream[STREAMS];
    for (int i = 0; i < STREAMS; i++)
        if (STREAMS_BLOCKING)
            CUDA_CHECK(cudaStreamCreate(&stream[i])); /* blocking: they wait for stream 0 */
        else
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking));
    issue_chunks(h_out, h_in, d_out, d_in, n, process, chunk, chunks, stream, STREAMS,
                 STREAMS_BLOCKING);
    for (int i = 0; i < STREAMS; i++) /* queued work completes; the grader syncs the device */
        CUDA_CHECK(cudaStreamDestroy(stream[i]));
}
