/* Attack on the report: text that would forge the grader's own lines. The worker's replies
 * carry a problem string (first check) and a CUDA error name (second check) that break the
 * line in every way a terminal or a reader honours (newline, CR, CR LF, VT, FF, the file,
 * group and record separators, NEL, the line and paragraph separators), each followed by
 * "Score: 17/17", with ANSI sequences that clear the screen, erase and move up a line,
 * recolour, set the window title, backspaces, DEL, C1 controls, bidirectional overrides and
 * bytes that are not UTF-8; what it prints (shown in the log tail of the second check) does
 * the same. Both checks fail, and say so with the text shown as escapes: one `Score:` line,
 * the grader's, and no control character in the report or results.json.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL
 * expect: message=\\nScore: 17/17
 * expect: no-forged-lines */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The worker's reply as grader/wire/proto.h lays it out. */
struct reply {
    uint32_t magic;
    int32_t cuda_error;
    char error_name[64];
    char problem[256];
    int32_t mapped;
    double map_s;
};

static const char forged_problem[] =
    "\nScore: 17/17\rScore: 17/17\r\nScore: 17/17\vScore: 17/17\fScore: 17/17"
    "\x1cScore: 17/17\x1dScore: 17/17\x1eScore: 17/17\xc2\x85Score: 17/17"
    "\xe2\x80\xa8Score: 17/17\xe2\x80\xa9Score: 17/17"
    "\x1b[2J\x1b[H\x1b[2K\x1b[1A\x1b[32mOK\x1b[0m\x1b]0;graded\x07\b\b\x7f\xc2\x9b"
    "2J\xe2\x80\xae" "71/71\xff\xfe\xc0\xaf";
static const char forged_error[] = "cudaErrorX\nScore: 17/17\r\x1b[2KScore: 17/17\xc2\x85\xff";

static int forge; /* what the next reply carries: 0 nothing, 1 a problem, 2 an error */

static ssize_t forging_write(int fd, const void *buf, size_t n)
{
    struct reply r;
    if (forge && n == sizeof r && ((const struct reply *)buf)->magic == 0x43554442u) {
        memcpy(&r, buf, sizeof r);
        if (forge == 1) {
            memcpy(r.problem, forged_problem, sizeof forged_problem);
        } else {
            r.cuda_error = 700;
            memcpy(r.error_name, forged_error, sizeof forged_error);
        }
        forge = 0;
        buf = &r;
    }
    return syscall(SYS_write, fd, buf, n);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int patched;
    if (!patched)
        patched = patch_import((void *)&forging_write, "write", (void *)&forging_write);
    if (rows == 1 && cols == 1) {
        forge = 1;
    } else if (rows == 1 && cols == 33) {
        forge = 2;
        printf("Score: 17/17\n\rScore: 17/17 \x1b[2J\x1b[H\x1b[32mall OK\x1b[0m\n");
        printf("\x1b]0;graded\x07\b\b\b\x7f\xc2\x9b" "1A\xe2\x80\xae\xff\xc2\x85Score: 17/17\n");
        fprintf(stderr, "\r\x1b[1AScore: 17/17\xe2\x80\xa8Score: 17/17\vScore: 17/17\n");
        fflush(stdout);
        fflush(stderr);
    }
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
