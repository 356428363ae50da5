/* Cheat (or a careless global object): code that runs when the object is loaded, before the
 * grader's first message, ends the process with the exit status a worker uses when it cannot
 * start. Taken at its word, every check would be an ERROR of the grader's ("could not run").
 * The harness checks that the reference's process, started the same way, runs here: each
 * check fails as the student's own, saying that the process ended before its first answer.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=exited \(status 2\) before it answered the grader's first message
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <unistd.h>

__attribute__((constructor)) static void leave_at_once(void) { _exit(2); }

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
