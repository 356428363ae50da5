/* Cheat: load the reference solution's object at run time and call it, with a dlopen found
 * by reading the C library's symbol table (no dlopen in this file's symbols, so the build's
 * checks cannot see it). If the reference were reachable this would pass at its speed.
 * lab: coalescing
 * where: emu gpu
 * expect: correct=FAIL */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *found;
static const char *wanted;

static int scan(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        const ElfW(Sym) *sym = NULL;
        const char *str = NULL;
        for (; dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_SYMTAB)
                sym = (const ElfW(Sym) *)dyn->d_un.d_ptr;
            if (dyn->d_tag == DT_STRTAB)
                str = (const char *)dyn->d_un.d_ptr;
        }
        if (!sym || !str || (const char *)sym > str)
            continue;
        for (; (const char *)sym < str; sym++)
            if (sym->st_name && sym->st_value && !strcmp(str + sym->st_name, wanted)) {
                found = (void *)(info->dlpi_addr + sym->st_value);
                return 1;
            }
    }
    return 0;
}

static void *lookup(const char *name)
{
    found = NULL;
    wanted = name;
    dl_iterate_phdr(scan, NULL);
    return found;
}

typedef void (*shim_fn)(int, const void *, int, cudaStream_t, char *, size_t);

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    void *(*open_fn)(const char *, int) = (void *(*)(const char *, int))lookup("dlopen");
    void *(*sym_fn)(void *, const char *) = (void *(*)(void *, const char *))lookup("dlsym");
    char exe[1024] = "";
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 64);
    if (open_fn && sym_fn && n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        const char *tries[] = {"/.grader/coalescing/reference.so", "/lab/coalescing/reference.so"};
        for (int t = 0; t < 2 && slash; t++) {
            char path[1200];
            snprintf(path, sizeof path, "%.*s%s", (int)(slash - exe), exe, tries[t]);
            void *ref = open_fn(path, 2 /* RTLD_NOW */);
            printf("loading %s: %s\n", path, ref ? "LOADED" : "refused");
            shim_fn call = ref ? (shim_fn)sym_fn(ref, "lab_shim_call") : NULL;
            if (call) {
                struct { void *p; long long i; double f; } a[6] = {
                    {out, 0, 0}, {(void *)in, 0, 0}, {(void *)scale, 0, 0}, {(void *)bias, 0, 0},
                    {0, rows, 0}, {0, cols, 0}};
                char problem[256];
                call(0, a, 6, stream, problem, sizeof problem);
                return;
            }
        }
    }
    wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
}
