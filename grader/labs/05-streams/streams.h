/* streams.h - lab 05's contract: what labs/05-streams/streams.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_STREAMS_H
#define CONTRACT_STREAMS_H

#include <stddef.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The grader's kernel, which you may call but not change: it enqueues on `stream` a kernel
 * that computes d_out[i] = f(d_in[i]) for i < n. f works on each element alone (it does not
 * care where the element sits), so any split of the array into pieces gives the same bits.
 * d_in and d_out must lie inside the device buffers the grader passed to you; n may be 0. */
typedef void (*streams_kernel)(float *d_out, const float *d_in, size_t n, cudaStream_t stream);

/* Push a host array through the device:
 *
 *     h_out[i] = f(h_in[i])    for i < n
 *
 * by copying h_in to the device, running `process` on it, and copying the result back.
 *
 * h_in, h_out: n floats each, PINNED host memory (cudaHostAlloc), 256-byte aligned.
 * d_in, d_out: n floats each, device memory, yours to use as scratch.
 * process:     the grader's kernel launcher (above). Every element must go through it
 *              exactly once: the grader counts the elements you pass it.
 * n >= 1.
 *
 * Rules the grader checks:
 *  - Every stream and event you create in a call is destroyed before the call returns
 *    (cudaStreamDestroy may be called while the stream still has work queued: the work
 *    finishes, then the stream goes away). Nothing may be kept alive between calls.
 *  - You may return before the work has finished: the grader synchronizes the whole device
 *    (cudaDeviceSynchronize) after your call, and times your call with a host clock around
 *    that synchronize, so work on any stream counts.
 *  - h_in is read-only. */
void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process);

#ifdef __cplusplus
}
#endif
#endif
