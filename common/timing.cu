/* timing.cu - L2 flush and interleaved timing. See timing.h. */
#include "timing.h"
#include "check.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Each thread sums a strided slice; the sum is stored only in the impossible case that it
 * equals a magic value, so the reads cannot be optimised away and nothing is written. */
__global__ void l2_flush_kernel(const float4 *buf, size_t n4, float *sink)
{
    float acc = 0.f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == -1.2345e-38f)
        *sink = acc;
}

void l2_flusher_init(l2_flusher *f, const device_info *d)
{
    size_t bytes = 2 * d->l2_bytes;
    if (bytes < ((size_t)8 << 20))
        bytes = (size_t)8 << 20;
    f->bytes = bytes;
    CUDA_CHECK(cudaMalloc((void **)&f->buf, bytes));
    CUDA_CHECK(cudaMemset(f->buf, 0, bytes));
    CUDA_CHECK(cudaMalloc((void **)&f->sink, sizeof(float)));
}

void l2_flush(l2_flusher *f, cudaStream_t s)
{
    l2_flush_kernel<<<1024, 256, 0, s>>>((const float4 *)f->buf, f->bytes / sizeof(float4),
                                         f->sink);
    CUDA_CHECK_LAUNCH();
}

void l2_flusher_free(l2_flusher *f)
{
    CUDA_CHECK(cudaFree(f->buf));
    CUDA_CHECK(cudaFree(f->sink));
    memset(f, 0, sizeof *f);
}

void time_one(timed_fn prepare, timed_fn fn, void *ctx, int variant, l2_flusher *f,
              cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double *event_ms, double *host_ms)
{
    if (prepare)
        prepare(ctx, variant, s);
    if (f)
        l2_flush(f, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t0 = wall_seconds();
    CUDA_CHECK(cudaEventRecord(e0, s));
    fn(ctx, variant, s);
    CUDA_CHECK(cudaEventRecord(e1, s));
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t1 = wall_seconds();
    CUDA_CHECK(cudaGetLastError()); /* a bad launch inside fn shows here at the latest */
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    *event_ms = ms;
    *host_ms = (t1 - t0) * 1e3;
}

void timing_series(const timing_result *r, int host_clock, int v, double *out)
{
    for (int i = 0; i < r->rounds; i++)
        out[i] = (host_clock ? r->host_ms : r->event_ms)[i * r->n_variants + v];
}

/* Whether to stop after r->rounds kept rounds; if so, *why says the reason: the plan's own
 * bounds here, the ratios' verdict by the rule (timing_rule_stop). */
static int should_stop(const timing_plan *p, const timing_result *r, double elapsed,
                       timing_stop *why)
{
    if (r->rounds >= p->max_rounds) {
        *why = p->ratio_num < 0 ? STOP_FIXED : STOP_MAX_ROUNDS;
        return 1;
    }
    if (elapsed >= p->hard_cap_s && r->rounds >= TIMING_HARD_CAP_MIN_ROUNDS) {
        *why = STOP_HARD_CAP;
        return 1;
    }
    if (p->ratio_num < 0)
        return 0;
    double *num = (double *)xmalloc(r->rounds * sizeof *num);
    double *den = (double *)xmalloc(r->rounds * sizeof *den);
    double *off = p->ratio_offset >= 0 ? (double *)xmalloc(r->rounds * sizeof *off) : NULL;
    timing_series(r, p->host_clock, p->ratio_num, num);
    timing_series(r, p->host_clock, p->ratio_den, den);
    if (off)
        timing_series(r, p->host_clock, p->ratio_offset, off);
    timing_rule_ratios(num, den, off, r->rounds, p->calls ? p->calls[p->ratio_num] : 1,
                       p->calls ? p->calls[p->ratio_den] : 1, num);
    free(off);
    const int stop = timing_rule_stop(num, r->rounds, p->min_rounds, p->threshold, p->precision,
                                      elapsed, p->soft_cap_s, why);
    free(num);
    free(den);
    return stop;
}

void time_interleaved(const timing_plan *plan, timed_fn prepare, timed_fn fn, void *ctx,
                      void (*after_round)(void *ctx, int round), l2_flusher *f, cudaStream_t s,
                      timing_result *out)
{
    const int nv = plan->n_variants;
    if (nv < 1 || nv > TIMING_MAX_VARIANTS)
        fatal("time_interleaved: %d variants (1..%d allowed)", nv, TIMING_MAX_VARIANTS);
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    memset(out, 0, sizeof *out);
    out->n_variants = nv;
    out->event_ms = (double *)xmalloc((size_t)plan->max_rounds * nv * sizeof(double));
    out->host_ms = (double *)xmalloc((size_t)plan->max_rounds * nv * sizeof(double));
    double scratch_e, scratch_h;
    for (int w = 0; w < plan->warmup_rounds; w++) {
        if (plan->before_round)
            plan->before_round(ctx, -1 - w);
        for (int v = 0; v < nv; v++)
            time_one(prepare, fn, ctx, v, f, s, e0, e1, &scratch_e, &scratch_h);
        if (after_round)
            after_round(ctx, -1 - w);
    }
    double start = wall_seconds();
    for (;;) {
        const int r = out->rounds;
        if (plan->before_round)
            plan->before_round(ctx, r);
        for (int k = 0; k < nv; k++) {
            const int v = (r + k) % nv; /* rotate who goes first */
            time_one(prepare, fn, ctx, v, f, s, e0, e1, &out->event_ms[r * nv + v],
                     &out->host_ms[r * nv + v]);
        }
        out->rounds++;
        if (after_round)
            after_round(ctx, r);
        if (should_stop(plan, out, wall_seconds() - start, &out->stop))
            break;
        if (plan->restart && plan->restart(ctx, out)) { /* from none again */
            out->rounds = 0;
            start = wall_seconds();
        }
    }
    out->seconds = wall_seconds() - start;
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
}

void timing_result_free(timing_result *r)
{
    free(r->event_ms);
    free(r->host_ms);
    memset(r, 0, sizeof *r);
}
