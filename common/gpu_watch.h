/* gpu_watch.h - the GPU watched while it is timed: its clocks and why they were held down.
 *
 * A speed check's ratio is only as good as the clock it ran at. Around each timed phase the
 * harness reads, through NVML (the library the NVIDIA driver ships; loaded at run time, so a
 * machine without it builds and runs, and the watch says "not watched"):
 *   - the SM and memory clocks now (MHz);
 *   - the clock event reasons now (NVML's "throttle reasons": power cap, thermal, hardware
 *     slowdown, power brake);
 *   - the driver's running totals of time spent held down by power and by temperature
 *     (nvmlDeviceGetViolationStatus), whose growth across the phase says a limit held the clock
 *     down at some moment inside it, even if it let go before the second reading.
 * The harness reads after each round of a timed phase and adds the readings to a span;
 * gpu_span_verdict says whether the phase ran quiet, or throttled with the reason in words.
 * The harness measures a throttled phase again and, if it is still throttled, marks the
 * check. Host-only C: the unit tests drive the span with readings made up by hand. */
#ifndef COMMON_GPU_WATCH_H
#define COMMON_GPU_WATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The reasons that mean a limit held the clock down (NVML's bit values: stable across driver
 * versions since R270). Idle, an application clock setting and sync boost are not limits. */
enum {
    GPU_WATCH_SW_POWER_CAP = 0x4,
    GPU_WATCH_HW_SLOWDOWN = 0x8,
    GPU_WATCH_SW_THERMAL = 0x20,
    GPU_WATCH_HW_THERMAL = 0x40,
    GPU_WATCH_HW_POWER_BRAKE = 0x80,
    GPU_WATCH_LIMITS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80
};

typedef struct gpu_reading {
    int ok;                          /* 0: not read (no NVML, or the call failed) */
    unsigned sm_mhz, mem_mhz;        /* clocks at the moment of reading */
    unsigned long long reasons;      /* clock event reasons at the moment (bits above) */
    unsigned long long power_ns;     /* running total held down by power (0 if unknown) */
    unsigned long long thermal_ns;   /* running total held down by temperature */
    unsigned temp_c;                 /* GPU temperature, degrees C (0 if unknown) */
} gpu_reading;

/* What the readings of one timed phase add up to (gpu_watch_span_add after each round). A
 * reading taken while the GPU was idle (NVML's idle reason) says nothing of the clock under
 * load and is left out of the clock's range. */
typedef struct gpu_span {
    int readings;                    /* readings added that were ok */
    gpu_reading first, last;
    unsigned min_sm, max_sm;         /* SM clock's range over the busy readings */
    unsigned long long reasons;      /* every reason seen, ORed */
} gpu_span;

/* The watch on one GPU, by its PCI bus id as CUDA writes it ("0000:19:00.0"): NULL bus id or
 * no NVML leaves it off (every reading then not ok). Returns 1 when watching. */
int gpu_watch_open(const char *pci_bus_id);
void gpu_watch_read(gpu_reading *r);
void gpu_watch_close(void);

void gpu_span_clear(gpu_span *s);
void gpu_span_add(gpu_span *s, const gpu_reading *r);

/* Why the phase the span covers ran on a held-down clock, in words ("the power cap held the
 * clock down (SM clock 1755-1980 MHz)"), written to why; returns 1 when throttled, 0 when
 * quiet, -1 when fewer than two readings were ok (not watched: why says so). Throttled: a
 * limit's reason seen at a reading, a limit's running total grown between the first reading
 * and the last, or the SM clock's range over the busy readings wider than 2% of its top. */
int gpu_span_verdict(const gpu_span *s, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
