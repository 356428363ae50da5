/* check.h - the one way every CUDA call is checked.
 *
 *   CUDA_CHECK(cudaMalloc(&p, bytes));   // any runtime call
 *   kernel<<<grid, block, 0, s>>>(...);
 *   CUDA_CHECK_LAUNCH();                  // after every launch: bad configurations show here
 *
 * On failure it prints the call's text, file, line and CUDA's own error name and string, lets
 * the grader's harness record the error (cuda_set_fail_hook), and exits with status 3. */
#ifndef COMMON_CHECK_H
#define COMMON_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUDA_EXIT_STATUS 3 /* exit status of a program stopped by a CUDA error */

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* Called once, before exiting, with the failed call's details. */
typedef void (*cuda_fail_hook)(cudaError_t err, const char *call, const char *file, int line);
void cuda_set_fail_hook(cuda_fail_hook hook);

/* Report `err` for `call` at file:line and exit; never returns. Defined once on each side of
 * the trust line, as each process must end: common/check.cu in the grader's own processes
 * (the harness records the error through the hook, then exits), and
 * grader/worker/worker_loop_untrusted.cu in a worker that runs an implementation (it ends at
 * once, with _exit: nothing of the implementation's runs after). Both print with cuda_report. */
void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
    __attribute__((noreturn));

/* The one wording of a CUDA error, on stderr (flushed: the process ends next). */
static inline void cuda_report(cudaError_t err, const char *call, const char *file, int line)
{
    fprintf(stderr, "CUDA error %s (%s)\n  in %s\n  at %s:%d\n", cudaGetErrorName(err),
            cudaGetErrorString(err), call, file, line);
    fflush(stderr);
}

static inline void cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err != cudaSuccess)
        cuda_fail(err, call, file, line);
}

#ifdef __cplusplus
}
#endif
#endif
