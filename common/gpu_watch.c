/* gpu_watch.c - NVML read at run time (dlopen), and what a phase's readings add up to.
 * See gpu_watch.h. The few NVML entry points are declared here by their documented C
 * signatures (nvml.h is not part of every toolkit install; the driver's library is). */
#include "gpu_watch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_ret; /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef void *nvml_dev;
typedef struct { unsigned long long reference_ns, violation_ns; } nvml_violation;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_POWER = 0, NVML_THERMAL = 1, NVML_TEMP_GPU = 0 };
enum { GPU_WATCH_IDLE = 0x1 };

static struct {
    void *lib;
    nvml_dev dev;
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*violation)(nvml_dev, int, nvml_violation *);
    nvml_ret (*temperature)(nvml_dev, int, unsigned *);
    nvml_ret (*shutdown)(void);
} nv;

int gpu_watch_open(const char *pci_bus_id)
{
    if (nv.dev)
        return 1;
    if (!pci_bus_id || !*pci_bus_id)
        return 0;
    nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib)
        return 0;
    nvml_ret (*init)(void) = (nvml_ret (*)(void))dlsym(nv.lib, "nvmlInit_v2");
    nvml_ret (*by_bus)(const char *, nvml_dev *) =
        (nvml_ret (*)(const char *, nvml_dev *))dlsym(nv.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nv.clock = (nvml_ret (*)(nvml_dev, int, unsigned *))dlsym(nv.lib, "nvmlDeviceGetClockInfo");
    /* the reasons' newer name first (R535 on), the older one on older drivers */
    void *reasons = dlsym(nv.lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons)
        reasons = dlsym(nv.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    nv.reasons = (nvml_ret (*)(nvml_dev, unsigned long long *))reasons;
    nv.violation = (nvml_ret (*)(nvml_dev, int, nvml_violation *))dlsym(nv.lib, "nvmlDeviceGetViolationStatus");
    nv.temperature = (nvml_ret (*)(nvml_dev, int, unsigned *))dlsym(nv.lib, "nvmlDeviceGetTemperature");
    nv.shutdown = (nvml_ret (*)(void))dlsym(nv.lib, "nvmlShutdown");
    nvml_dev dev = NULL;
    if (!init || !by_bus || !nv.clock || !nv.reasons || init() != 0 || by_bus(pci_bus_id, &dev) != 0 || !dev) {
        if (init && nv.shutdown)
            nv.shutdown();
        dlclose(nv.lib);
        memset(&nv, 0, sizeof nv);
        return 0;
    }
    nv.dev = dev;
    return 1;
}

void gpu_watch_read(gpu_reading *r)
{
    memset(r, 0, sizeof *r);
    if (!nv.dev)
        return;
    if (nv.clock(nv.dev, NVML_CLOCK_SM, &r->sm_mhz) != 0 || nv.reasons(nv.dev, &r->reasons) != 0)
        return;
    nv.clock(nv.dev, NVML_CLOCK_MEM, &r->mem_mhz);
    nvml_violation v;
    if (nv.violation && nv.violation(nv.dev, NVML_POWER, &v) == 0)
        r->power_ns = v.violation_ns;
    if (nv.violation && nv.violation(nv.dev, NVML_THERMAL, &v) == 0)
        r->thermal_ns = v.violation_ns;
    if (nv.temperature)
        nv.temperature(nv.dev, NVML_TEMP_GPU, &r->temp_c);
    r->ok = 1;
}

void gpu_watch_close(void)
{
    if (!nv.lib)
        return;
    if (nv.shutdown)
        nv.shutdown();
    dlclose(nv.lib);
    memset(&nv, 0, sizeof nv);
}

void gpu_span_clear(gpu_span *s)
{
    memset(s, 0, sizeof *s);
}

void gpu_span_add(gpu_span *s, const gpu_reading *r)
{
    if (!r->ok)
        return;
    if (s->readings++ == 0)
        s->first = *r;
    s->last = *r;
    s->reasons |= r->reasons;
    if (r->reasons & GPU_WATCH_IDLE)
        return;
    if (!s->min_sm || r->sm_mhz < s->min_sm)
        s->min_sm = r->sm_mhz;
    if (r->sm_mhz > s->max_sm)
        s->max_sm = r->sm_mhz;
}

/* the limits in `bits`, in words, joined by " and " */
static void limits_named(unsigned long long bits, char *out, size_t len)
{
    static const struct { unsigned long long bit; const char *name; } names[] = {
        {GPU_WATCH_SW_POWER_CAP, "the power cap"},
        {GPU_WATCH_HW_SLOWDOWN, "a hardware slowdown"},
        {GPU_WATCH_SW_THERMAL, "the temperature limit"},
        {GPU_WATCH_HW_THERMAL, "a hardware thermal slowdown"},
        {GPU_WATCH_HW_POWER_BRAKE, "the power brake"},
    };
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((bits & names[i].bit) && n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " and " : "", names[i].name);
}

int gpu_span_verdict(const gpu_span *s, char *why, size_t len)
{
    if (s->readings < 2) {
        snprintf(why, len, "not watched (no NVML readings of this GPU)");
        return -1;
    }
    unsigned long long bits = s->reasons & GPU_WATCH_LIMITS;
    if (s->last.power_ns > s->first.power_ns)
        bits |= GPU_WATCH_SW_POWER_CAP;
    if (s->last.thermal_ns > s->first.thermal_ns)
        bits |= GPU_WATCH_SW_THERMAL;
    const int moved = s->max_sm && (s->max_sm - s->min_sm) * 50u > s->max_sm; /* > 2% */
    char limits[160];
    limits_named(bits, limits, sizeof limits);
    if (bits && s->max_sm)
        snprintf(why, len, "%s held the clock down (SM clock %u-%u MHz while timed)", limits, s->min_sm, s->max_sm);
    else if (bits)
        snprintf(why, len, "%s held the clock down", limits);
    else if (moved)
        snprintf(why, len, "the SM clock moved while timed (%u-%u MHz)", s->min_sm, s->max_sm);
    else {
        snprintf(why, len, "quiet (SM clock %u MHz, %u readings)", s->max_sm, s->readings);
        return 0;
    }
    return 1;
}
