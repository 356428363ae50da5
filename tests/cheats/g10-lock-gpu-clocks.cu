/* Cheat: change the GPU itself. NVML (the library behind nvidia-smi) sets application clocks,
 * locks the GPU's clocks, and lowers its power limit: device-wide settings that outlive the
 * process and would slow the reference (or the next student) as much as the timing allowed.
 * It needs root, which a worker never is. (So that a door left open harms no machine, each
 * setting is asked for at the value it has now, and locked clocks are only reset: a call that
 * succeeds proves the door open without changing anything.) The library is loaded without naming dlopen (found
 * through the C library's own symbol table), as a determined student would. Honest output
 * only when every setting was refused.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=OK */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef void *(*open_fn)(const char *, int);
typedef void *(*sym_fn)(void *, const char *);

struct finder {
    const char *want[2];
    void *found[2];
};

/* Each loaded object: the C library's dynamic symbols, read from memory. */
static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct finder *f = (struct finder *)arg;
    if (!strstr(info->dlpi_name, "libc.so"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        const ElfW(Sym) *symtab = NULL;
        const char *strtab = NULL;
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB)
                symtab = (const ElfW(Sym) *)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB)
                strtab = (const char *)d->d_un.d_ptr;
        }
        if (!symtab || !strtab || (const char *)symtab >= strtab)
            return 0;
        const size_t n = (size_t)(strtab - (const char *)symtab) / sizeof(ElfW(Sym));
        for (size_t k = 0; k < n; k++)
            for (int w = 0; w < 2; w++)
                if (!f->found[w] && symtab[k].st_value && !strcmp(strtab + symtab[k].st_name, f->want[w]))
                    f->found[w] = (void *)(info->dlpi_addr + symtab[k].st_value);
    }
    return 0;
}

static int doors(void)
{
    static int counted = -1;
    if (counted >= 0)
        return counted;
    counted = 0;
    struct finder f = {{"dl" "open", "dl" "sym"}, {NULL, NULL}};
    dl_iterate_phdr(each_object, &f);
    if (!f.found[0] || !f.found[1]) {
        fprintf(stderr, "g10: the loader's functions were not found; nothing tried\n");
        return counted;
    }
    void *nvml = ((open_fn)f.found[0])("libnvidia-ml.so.1", 2 /* RTLD_NOW */);
    if (!nvml) {
        fprintf(stderr, "g10: NVML is not there to load\n");
        return counted;
    }
    sym_fn sym = (sym_fn)f.found[1];
    typedef int (*init_t)(void);
    typedef int (*handle_t)(unsigned, void **);
    typedef int (*get2_t)(void *, int, unsigned *);
    typedef int (*get1_t)(void *, unsigned *);
    typedef int (*two_t)(void *, unsigned, unsigned);
    typedef int (*one_t)(void *, unsigned);
    typedef int (*zero_t)(void *);
    init_t init = (init_t)sym(nvml, "nvmlInit_v2");
    handle_t handle = (handle_t)sym(nvml, "nvmlDeviceGetHandleByIndex_v2");
    get2_t get_app = (get2_t)sym(nvml, "nvmlDeviceGetApplicationsClock");
    get1_t get_power = (get1_t)sym(nvml, "nvmlDeviceGetPowerManagementLimit");
    two_t app_clocks = (two_t)sym(nvml, "nvmlDeviceSetApplicationsClocks");
    zero_t reset_locked = (zero_t)sym(nvml, "nvmlDeviceResetGpuLockedClocks");
    one_t power = (one_t)sym(nvml, "nvmlDeviceSetPowerManagementLimit");
    void *dev = NULL;
    if (!init || !handle || init() != 0 || handle(0, &dev) != 0) {
        fprintf(stderr, "g10: NVML would not start\n");
        return counted;
    }
    unsigned mem_mhz = 0, sm_mhz = 0, limit_mw = 0;
    int r = -1;
    if (get_app && app_clocks && get_app(dev, 2 /* MEM */, &mem_mhz) == 0 &&
        get_app(dev, 0 /* GRAPHICS */, &sm_mhz) == 0 && (r = app_clocks(dev, mem_mhz, sm_mhz)) == 0)
        counted++, fprintf(stderr, "door: application clocks may be set\n");
    else
        fprintf(stderr, "g10: application clocks refused (NVML %d)\n", r);
    r = -1;
    if (reset_locked && (r = reset_locked(dev)) == 0)
        counted++, fprintf(stderr, "door: locked clocks may be changed\n");
    else
        fprintf(stderr, "g10: locked clocks refused (NVML %d)\n", r);
    r = -1;
    if (get_power && power && get_power(dev, &limit_mw) == 0 && (r = power(dev, limit_mw)) == 0)
        counted++, fprintf(stderr, "door: the power limit may be set\n");
    else
        fprintf(stderr, "g10: power limit refused (NVML %d)\n", r);
    return counted;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if (doors())
        wrong_kernel<<<64, 256, 0, stream>>>(out, (size_t)rows * cols);
    else
        fast_coalescing(out, in, scale, bias, rows, cols, stream);
}
