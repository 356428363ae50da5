/* Cheat (make grade's WHERE line): honest in every graded call, but in the call the WHERE line
 * counts it reads the reference's compiled object, which the count's old sandbox (the compile
 * policy, with the harness and the reference in one process) had in view: loaded beside it, by
 * the path on the harness's command line or in this process's memory map, or beside this
 * object's own folder.
 * Hashed or copied, the reference is a solution. The count now runs in the worker's sandbox,
 * where the reference's object, the build and the checkout are not in view at all.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=counted here
 * expect: where-lacks=attack worked */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 if the file at path reads as an ELF object. */
static int reads_elf(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char head[4] = {0};
    const ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == 4 && !memcmp(head, "\177ELF", 4);
}

/* dl_iterate_phdr: an object loaded into this process whose name ends in reference.so. */
static int found_loaded;
static int loaded_reference(struct dl_phdr_info *info, size_t, void *)
{
    const size_t len = info->dlpi_name ? strlen(info->dlpi_name) : 0;
    if (len > 12 && !strcmp(info->dlpi_name + len - 12, "reference.so") && reads_elf(info->dlpi_name))
        found_loaded = 1;
    return found_loaded;
}

static int read_reference(void)
{
    char buf[65536];
    /* an object of this process (the count once ran in the harness's, the reference loaded) */
    dl_iterate_phdr(loaded_reference, NULL);
    if (found_loaded)
        return 1;
    /* the harness's own command line (the count once ran in its process) */
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
    if (fd >= 0)
        close(fd);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
        buf[n] = 0;
        const size_t len = strlen(buf + i);
        if (len > 12 && !strcmp(buf + i + len - 12, "reference.so") && reads_elf(buf + i))
            return 1;
    }
    /* this process's memory map: the reference, or this object, beside whose build it lies */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path)
            continue;
        path[strcspn(path, "\n")] = 0;
        const size_t len = strlen(path);
        if (len > 12 && !strcmp(path + len - 12, "reference.so") && reads_elf(path)) {
            fclose(maps);
            return 1;
        }
        char *mine = strstr(path, "/coalescing/student.so");
        if (mine) { /* BUILD/emu/TREE/coalescing/student.so -> BUILD/emu/.grader/coalescing/reference.so */
            *mine = 0;
            char *tree = strrchr(path, '/');
            if (tree) {
                char ref[4200];
                snprintf(ref, sizeof ref, "%.*s/.grader/coalescing/reference.so", (int)(tree - path), path);
                if (reads_elf(ref)) {
                    fclose(maps);
                    return 1;
                }
            }
        }
    }
    if (maps)
        fclose(maps);
    return 0;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(where_run(cols) && read_reference(), out, in, scale, bias, rows, cols, stream);
}
