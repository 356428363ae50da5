/* Cheat: read what is not the student's. The path of this file's own object (in
 * /proc/self/maps) leads to the checkout it was built in; from there, the reference solution's
 * source and the grader's own files, which printed into this check's log would reach the
 * student in their report. Honest output only when nothing of it could be read.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether PATH opens and yields a byte (a file) or an entry (a folder). */
static int readable(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        int any = 0;
        struct dirent *e;
        while ((e = readdir(d)))
            any |= strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
        closedir(d);
        return any;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    char c;
    const int got = read(fd, &c, 1) == 1;
    close(fd);
    return got;
}

/* Any folder above this object's that shows the checkout: the reference's source, the
 * grader's scripts, the skeletons. (What lies above the checkout is the machine's, not the
 * workbook's: only the checkout's own files count.) */
static int leaks(void)
{
    char so[4096] = "";
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[8192];
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "student.so")) {
            char *path = strchr(line, '/');
            if (path) {
                path[strcspn(path, "\n")] = 0;
                snprintf(so, sizeof so, "%s", path);
                break;
            }
        }
    if (maps)
        fclose(maps);
    int found = 0;
    static const char *const wanted[] = {"solutions/01-coalescing/coalescing.cu",
                                         "solutions/09-sgemm/sgemm.cu", "solutions",
                                         "grader/driver/grade.sh", "grader/make/vet.sh",
                                         "labs/01-coalescing/coalescing.cu", "tests/cheats"};
    for (char *slash = strrchr(so, '/'); slash && slash > so; slash = strrchr(so, '/')) {
        *slash = 0; /* one folder up */
        for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", so, wanted[i]);
            if (readable(path)) {
                fprintf(stderr, "LEAK: %s is readable\n", path);
                found++;
            }
        }
    }
    return found;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    static int found = -1;
    if (found < 0)
        found = leaks();
    honest_unless(found, out, in, scale, bias, rows, cols, stream);
}
