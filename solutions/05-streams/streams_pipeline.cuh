/* streams_pipeline.cuh - lab 05's pipeline of chunks, written once: the reference (streams.cu)
 * and every ladder rung (through streams_rung.cuh) issue their copies and kernels with
 * issue_chunks and differ in how many chunks and streams they give it. */
#ifndef SOLUTIONS_STREAMS_PIPELINE_CUH
#define SOLUTIONS_STREAMS_PIPELINE_CUH

#include "streams.h"
#include "check.h"

/* Copy h_in through `process` to h_out in `chunks` chunks of `chunk` floats (the last may be
 * shorter), chunk i on stream[i % nstreams]; with kernels_on_stream0, every kernel on the
 * legacy default stream instead (rung 5's detour).
 *
 * Issue order, one step per chunk: copy-in and kernel of chunk `step`, then copy-out of
 * chunk `step - 1`. Within a stream, order is dependency: chunk j's kernel waits for its
 * copy-in, its copy-out for its kernel, and (nstreams chunks later) chunk j+nstreams's copy-in
 * for chunk j's copy-out, by which time that is long done. The copy-out is issued one step
 * late for GPUs with ONE copy engine: that engine takes copies in the order they were issued,
 * and a copy-out issued right after its kernel would hold up the next chunk's copy-in behind a
 * kernel. Issued late, the engine's queue reads in 1, out 0, in 2, out 1: it never waits for a
 * kernel that has not finished. With two or more engines the directions have their own queues
 * and the order costs nothing. */
static void issue_chunks(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
                         streams_kernel process, size_t chunk, size_t chunks,
                         const cudaStream_t *stream, int nstreams, bool kernels_on_stream0)
{
    for (size_t step = 0; step <= chunks; step++) {
        if (step < chunks) {
            const size_t off = step * chunk, len = n - off < chunk ? n - off : chunk;
            cudaStream_t s = stream[step % nstreams];
            /* Pinned source: the copy engine reads host memory directly (DMA), and the call
             * returns at once. From pageable memory the driver would stage it through a
             * pinned buffer of its own, at a fraction of the speed and with the CPU busy. */
            CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float),
                                       cudaMemcpyHostToDevice, s));
            process(d_out + off, d_in + off, len, kernels_on_stream0 ? (cudaStream_t)0 : s);
        }
        if (step >= 1) {
            const size_t j = step - 1, off = j * chunk, len = n - off < chunk ? n - off : chunk;
            CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream[j % nstreams]));
        }
    }
}

#endif
