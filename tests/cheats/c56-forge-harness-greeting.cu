/* Attack on the run's labels through the harness's channel to the driver, where student code
 * shares the harness's process (GRADER_ISOLATION=off): the harness's first two lines to the
 * driver say whether student code is isolated and what the device is. From inside the
 * harness, write lines in that form (tamper-proof, a forged sandbox and GPU) into every pipe
 * the process may write to, at every call; at the second check, end the harness, so that the
 * driver starts a fresh one whose greeting it reads. The driver reads a greeting once per
 * harness process, before any student code is in it: the forged lines are never taken as
 * one, the check the harness died in fails, and the run says it is not tamper-proof.
 * lab: coalescing
 * where: emu gpu
 * isolation: off
 * expect: correct=FAIL
 * expect: not-tamper-proof
 * expect: report-lacks=FORGED|": "?7717 */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char forged[] =
    "isolation tamper_proof=1 sandbox=namespaces detail=FORGED%20isolated\n"
    "device name=FORGED%20GPU cc_major=9 cc_minor=0 sms=7717 sm_clock_khz=7717 "
    "measured_clock_mhz=7717 emulated=0\n";

/* Every pipe this process holds open for writing (its channel to the driver among them). */
static void forge_greeting(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        const int fd = atoi(e->d_name), fl = fcntl(fd, F_GETFL);
        if (!strncmp(target, "pipe:", 5) && fl >= 0 && (fl & O_ACCMODE) == O_WRONLY &&
            write(fd, forged, sizeof forged - 1) < 0) {
        }
    }
    closedir(d);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int calls;
    forge_greeting();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    cudaStreamSynchronize(stream);
    if (++calls == 2) /* a fresh harness for the checks after this one */
        _exit(0);
}
