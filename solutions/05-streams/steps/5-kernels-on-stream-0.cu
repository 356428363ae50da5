/* Lab 05, rung 5 (a detour): the reference's 64 chunks and 4 streams, kernels on stream 0.
 *
 * Changed from rung 4: 64 chunks; the copies go on streams made by cudaStreamCreate (blocking
 * streams) and the kernels on the legacy default stream, stream 0. Why look at it: stream 0
 * synchronizes with every blocking stream. A kernel there waits for all copies issued before it
 * and every later copy waits for the kernel, so the pipeline collapses to one stage at a time,
 * most of the way back to the skeleton. The reference (and rungs 2-4) use non-blocking
 * streams (cudaStreamNonBlocking) and never touch stream 0. */
#define CHUNKS 64  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 4 /* streams the chunks take turns on */
#define STREAMS_BLOCKING 1 /* cudaStreamCreate's streams, kernels on stream 0 */
#include "streams_rung.cuh" /* streams(), for these chunks and streams */
