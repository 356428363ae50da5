/* Attack on the run's labels, where student code shares the harness's process
 * (GRADER_ISOLATION=off, as on a machine without CUDA IPC): from inside the harness, write an
 * `isolation` record that says tamper-proof, with a forged sandbox and reason, and a `device`
 * record with a forged GPU name, SM count and clocks, and a `case` record whose size (shown
 * in a hidden check's name) breaks the line into "Score: 17/17", into every records file the
 * process holds, first after the harness's `begin`, at every call. The kernel is honest. The
 * driver labels the run from what it asked for and from the harness's greeting, said before
 * any student code was in its process: the terminal and results.json say not tamper-proof,
 * no forged value reaches either, and the forged size shows as escapes.
 * lab: coalescing
 * where: emu gpu
 * isolation: off
 * expect: all-correct=OK
 * expect: not-tamper-proof
 * expect: no-forged-lines
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
    "device name=FORGED%20GPU cc_major=9 cc_minor=0 sms=7717 l2_bytes=7717 mem_bytes=7717 "
    "sm_clock_khz=7717 mem_clock_khz=7717 mem_bus_bits=7717 copy_engines=9 ecc=1 driver=7717 "
    "runtime=7717 emulated=0 measured_clock_mhz=7717\n"
    "case size=1%20x%201%0AScore:%2017/17%0D%1B[2KScore:%2017/17%E2%80%A8Score:%2017/17\n";

/* Every file this process holds open whose name ends in ".records" (the check's records):
 * rewritten with the forged records first, after the harness's `begin`, so that a reader
 * taking the first record of a type takes the forged one. */
static void forge_records(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char link[64], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 8)
            continue;
        target[n] = 0;
        if (strcmp(target + n - 8, ".records"))
            continue;
        static char was[1 << 16];
        const int in = open(target, O_RDONLY), fd = atoi(e->d_name);
        const ssize_t got = in >= 0 ? read(in, was, sizeof was - 1) : -1;
        if (in >= 0)
            close(in);
        if (got <= 0)
            continue;
        was[got] = 0;
        const char *rest = strchr(was, '\n');
        rest = rest ? rest + 1 : was + got;
        if (lseek(fd, 0, SEEK_SET) != 0 || ftruncate(fd, 0) != 0 ||
            write(fd, was, (size_t)(rest - was)) < 0 || write(fd, forged, sizeof forged - 1) < 0 ||
            write(fd, rest, strlen(rest)) < 0) {
        }
    }
    closedir(d);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    forge_records();
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    cudaStreamSynchronize(stream);
    forge_records();
}
