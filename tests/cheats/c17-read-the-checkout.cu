/* Cheat: read what is not the student's. The path of this file's own object (in
 * /proc/self/maps) leads to the checkout it was built in; from there, the reference solution's
 * source, the grader's own files, and (in a batch) the other students' trees and reports,
 * which printed into this check's log would reach the student in their report. Honest output
 * only when nothing of it could be read.
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

/* Any folder above this object's that shows a file or folder of the checkout. */
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
    static const char *const wanted[] = {"solutions", "README.md", "grader", "labs", "students",
                                         "work", "Makefile"};
    for (char *slash = strrchr(so, '/'); slash && slash > so; slash = strrchr(so, '/')) {
        *slash = 0; /* one folder up */
        DIR *d = opendir(so);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)))
            for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
                if (!strcmp(e->d_name, wanted[i])) {
                    fprintf(stderr, "LEAK: %s/%s is readable\n", so, e->d_name);
                    found++;
                }
        closedir(d);
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
