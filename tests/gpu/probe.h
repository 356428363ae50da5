/* probe.h - what the GPU probes of tests/gpu share: the device, its L2 flusher and one stream,
 * their variants timed as the grader times (common/timing.h: interleaved rounds, each sample
 * after an L2 flush, the median of the kept rounds), and a variant's output for its check. Header-only; a probe links
 * what tests/gpu/probe-common.sh lists of common/ (PROBE_COMMON). */
#ifndef TESTS_GPU_PROBE_H
#define TESTS_GPU_PROBE_H

#include "check.h"
#include "device.h"
#include "stats.h"
#include "timing.h"

#include <stdlib.h>

typedef struct probe {
    device_info dev;
    l2_flusher flush;
    cudaStream_t stream;
} probe;

static inline void probe_open(probe *p)
{
    device_query(0, &p->dev);
    l2_flusher_init(&p->flush, &p->dev);
    CUDA_CHECK(cudaStreamCreate(&p->stream));
}

static inline void probe_close(probe *p)
{
    CUDA_CHECK(cudaStreamDestroy(p->stream));
    l2_flusher_free(&p->flush);
}

/* Times fn's n variants round-robin: 3 warm-up rounds, then `rounds` kept; ms[v] is variant
 * v's median (CUDA events on the probe's stream). */
static inline void probe_time(probe *p, timed_fn fn, void *ctx, int n, int rounds, double *ms)
{
    timing_plan plan = {0};
    plan.n_variants = n;
    plan.warmup_rounds = 3;
    plan.min_rounds = plan.max_rounds = rounds;
    plan.soft_cap_s = plan.hard_cap_s = 1e9;
    plan.ratio_num = -1;
    plan.ratio_offset = -1;
    timing_result r;
    time_interleaved(&plan, NULL, fn, ctx, NULL, &p->flush, p->stream, &r);
    double *x = (double *)malloc((size_t)r.rounds * sizeof(double));
    for (int v = 0; v < n; v++) {
        timing_series(&r, 0, v, x);
        ms[v] = stats_median(x, (size_t)r.rounds);
    }
    free(x);
    timing_result_free(&r);
}

/* Variant v run once, alone, into its output (`bytes` at out, poisoned first), and waited for. */
static inline void probe_run_poisoned(probe *p, timed_fn fn, void *ctx, int v, void *out,
                                      size_t bytes)
{
    CUDA_CHECK(cudaMemset(out, 0xff, bytes));
    fn(ctx, v, p->stream);
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
}

/* ... and its n floats read back into host. */
static inline void probe_output(probe *p, timed_fn fn, void *ctx, int v, float *out, size_t n,
                                float *host)
{
    probe_run_poisoned(p, fn, ctx, v, out, n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(host, out, n * sizeof(float), cudaMemcpyDeviceToHost));
}

#endif
