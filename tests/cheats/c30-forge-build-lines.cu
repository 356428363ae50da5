/* Attack on the report through the compiler: a file that fails to compile with a diagnostic
 * the compiler prints as it was written, so that the build errors the grader shows would
 * carry newlines, CR, ANSI sequences, NEL and bytes that are not UTF-8 onto the terminal,
 * each line with "error" in it (the lines the grader picks) and a "Score: 17/17". The build
 * fails, and the diagnostics are shown as escapes under the grader's margin.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: no-forged-lines */
#include "coalescing.h"

static_assert(sizeof(int) == 3, "error\nScore: 17/17 error\r\x1b[2J\x1b[HScore: 17/17 error\n"
                                "\x1b[1A\x1b[2KScore: 17/17 error\xc2\x85Score: 17/17 error\xff\n"
                                "\bScore: 17/17 error\xe2\x80\xa8Score: 17/17 error");

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    (void)out, (void)in, (void)scale, (void)bias, (void)rows, (void)cols, (void)stream;
}
