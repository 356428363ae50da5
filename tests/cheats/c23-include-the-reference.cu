/* Cheat: include the reference solution when it is there (it is, in the checkout that grades
 * the student), with a fallback of one's own when it is not (on the student's machine, a
 * student kit has no solution sources). __has_include tries the reference and the grader by
 * every path from the student's folder and from the checkout. Honest output only when none
 * is found: the compile sees the student's own file and the public headers alone.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#define UP1 "../solutions/01-coalescing/coalescing.cu"
#if __has_include(UP1) || __has_include("../../solutions/01-coalescing/coalescing.cu") ||        \
    __has_include("../../../solutions/01-coalescing/coalescing.cu") ||                           \
    __has_include("../../../../solutions/01-coalescing/coalescing.cu") ||                        \
    __has_include("../../../../../solutions/01-coalescing/coalescing.cu") ||                     \
    __has_include("../../../../../../solutions/01-coalescing/coalescing.cu") ||                  \
    __has_include("solutions/01-coalescing/coalescing.cu") ||                                    \
    __has_include("../../grader/driver/driver.c") || __has_include("../../../../../grader/driver/driver.c") ||  \
    __has_include("table.c") || __has_include("problem.cu") || __has_include("/etc/shadow")
#define FOUND 1
#else
#define FOUND 0
#endif
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_unless(FOUND, out, in, scale, bias, rows, cols, stream);
}
