/* parallel.h - one loop of independent items spread over the CPU's cores: the harness's CPU
 * answers of its largest correctness cases (a 10^8-element input and its double-precision sum,
 * the rows of an SGEMM's reference), which one core takes most of a second to make.
 *
 * Plain C, no CUDA; linked into the harnesses alone (they link the thread library). */
#ifndef COMMON_PARALLEL_H
#define COMMON_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many threads: the harness's answers are ready well before more would help. */
#define PARALLEL_MAX_THREADS 16

/* fn(ctx, i) for every i in [0, n), each exactly once, on up to `threads` threads (0: as many
 * as the CPUs this process may run on, at most PARALLEL_MAX_THREADS; 1: here, in order), and
 * returns when every call has. Items go to threads in contiguous runs, so fn must depend on i
 * alone and write only what item i owns: the result is then the same whatever the count. */
void parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
