/* lab_banks.cu - lab 02's problem for the harness: inputs, calls, verification, sizes.
 *
 * Rolling maximum over 32 steps of `series` time series stored time-major (contract:
 * contracts/banks.h). A maximum only selects one of its inputs, so the output is compared
 * bit for bit with the CPU result.
 *
 * The ceiling (IMPL_CEILING) is the reference kernel with its shared-memory buffer stored
 * slot-major, window[32][THREADS]: slot k of the warp's 32 threads is then 32 consecutive
 * words, conflict-free by construction, with the same instructions, the same global traffic
 * and the same occupancy. It is what removing every conflict can buy; the reference (padding)
 * should match it. The extra variants are the same kernel with other row lengths (n-way
 * conflicts, n = gcd(row length, 32)) and with 16-byte reads of the window, for the README. */
#include "harness.h"
#include "contracts/banks.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_banks; /* the table, lab_banks.c */
extern "C" void ref_rolling_max(float *out, const float *in, int steps, int series,
                                cudaStream_t stream);

typedef struct problem {
    int steps, series;  /* time steps (rows) and series (columns) */
    size_t n;           /* steps * series */
    float *h_in;        /* host copy of the input */
    float *h_expected;  /* CPU result */
    float *h_got;       /* scratch for the downloaded output */
    dbuf in, out;       /* device buffers, guarded */
} problem;

/* ------------------------------------------------------------------------------------------ */
/* Bench-only variants of the reference kernel: only the window's layout changes.              */

#define VAR_THREADS 128 /* as the reference: series per block */

enum window_layout {
    ROWS,        /* slot k of thread tid at word tid * STRIDE + k (the skeleton: STRIDE 32) */
    ROWS_SCALAR, /* ROWS, read through a volatile pointer: one 4-byte LDS per slot, never
                    merged into wider loads, so the 4-byte conflict arithmetic shows alone */
    SLOT_MAJOR,  /* slot k of thread tid at word k * VAR_THREADS + tid: conflict-free */
    SWIZZLE      /* 32-float rows, 16-byte group g of thread tid stored at g ^ (tid % 8) */
};

/* Word offset of slot k in thread tid's part of the window, from its base pointer below. */
template <int LAYOUT, int STRIDE>
__device__ __forceinline__ int slot_offset(int tid, int k)
{
    if (LAYOUT == SLOT_MAJOR)
        return k * VAR_THREADS;
    if (LAYOUT == SWIZZLE)
        return ((((k >> 2) ^ tid) & 7) << 2) | (k & 3);
    return k;
}

/* The reference kernel (solutions/02-banks) with the window's layout as a parameter. */
template <int LAYOUT, int STRIDE>
__global__ void __launch_bounds__(VAR_THREADS)
rolling_max_variant(float *__restrict__ out, const float *__restrict__ in, int steps, int series)
{
    __shared__ __align__(16) float window[LAYOUT == SLOT_MAJOR ? 32 * VAR_THREADS
                                                                 : VAR_THREADS * STRIDE];
    const int tid = threadIdx.x;
    const int s = blockIdx.x * VAR_THREADS + tid;
    if (s >= series)
        return;
    float *w = window + (LAYOUT == SLOT_MAJOR ? tid : tid * STRIDE);
    for (int k = 0; k < ROLLING_WINDOW; k++)
        w[slot_offset<LAYOUT, STRIDE>(tid, k)] = -INFINITY;
    float x1 = in[s];
    float x2 = steps > 1 ? in[(size_t)series + s] : 0.0f;
#pragma unroll 1
    for (int t = 0; t < steps; t++) {
        const float x = x1;
        x1 = x2;
        x2 = t + 2 < steps ? in[(size_t)(t + 2) * series + s] : 0.0f;
        w[slot_offset<LAYOUT, STRIDE>(tid, t % ROLLING_WINDOW)] = x;
        float m = -INFINITY;
        if (LAYOUT == ROWS_SCALAR) {
            const volatile float *v = w;
#pragma unroll
            for (int k = 0; k < ROLLING_WINDOW; k++)
                m = fmaxf(m, v[k]);
        } else {
#pragma unroll
            for (int k = 0; k < ROLLING_WINDOW; k++)
                m = fmaxf(m, w[slot_offset<LAYOUT, STRIDE>(tid, k)]);
        }
        out[(size_t)t * series + s] = m;
    }
}

template <int LAYOUT, int STRIDE>
static void launch_variant(float *out, const float *in, int steps, int series, cudaStream_t s)
{
    const unsigned blocks = (unsigned)((series + VAR_THREADS - 1) / VAR_THREADS);
    rolling_max_variant<LAYOUT, STRIDE><<<blocks, VAR_THREADS, 0, s>>>(out, in, steps, series);
    CUDA_CHECK_LAUNCH();
}

static const char *const extras[] = {
    "[128][32], 4-byte reads",
    "[128][34]",
    "[128][36] (+16 bytes)",
    "[128][40]",
    "[128][48]",
    "[128][32], XOR swizzle",
};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                     */

/* out[t][s] = max of in[u][s] over the window: one pass per window row, each a loop over the
 * contiguous series index that the compiler vectorizes. */
static void cpu_rolling_max(float *out, const float *in, int steps, int series)
{
    for (int t = 0; t < steps; t++) {
        float *o = out + (size_t)t * series;
        memcpy(o, in + (size_t)t * series, (size_t)series * sizeof(float));
        const int first = t - (ROLLING_WINDOW - 1) > 0 ? t - (ROLLING_WINDOW - 1) : 0;
        for (int u = first; u < t; u++) {
            const float *x = in + (size_t)u * series;
            for (int s = 0; s < series; s++)
                o[s] = x[s] > o[s] ? x[s] : o[s];
        }
    }
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->steps = (int)size[0];
    p->series = (int)size[1];
    p->n = (size_t)p->steps * p->series;
    p->h_in = (float *)xmalloc(p->n * sizeof(float));
    p->h_expected = (float *)xmalloc(p->n * sizeof(float));
    p->h_got = (float *)xmalloc(p->n * sizeof(float));
    fill_uniform_f32(p->h_in, p->n, rng_derive(seed, 1), -1.f, 1.f);
    cpu_rolling_max(p->h_expected, p->h_in, p->steps, p->series);
    dbuf_alloc(&p->in, p->n * sizeof(float));
    dbuf_alloc(&p->out, p->n * sizeof(float));
    dbuf_upload(&p->in, p->h_in, p->n * sizeof(float));
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->out);
    free(p->h_in);
    free(p->h_expected);
    free(p->h_got);
    free(p);
}

static void prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    dbuf_poison(&((problem *)vp)->out, s);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    float *out = (float *)p->out.data;
    const float *in = (const float *)p->in.data;
    const int T = p->steps, S = p->series;
    switch (impl) {
    case IMPL_STUDENT: rolling_max(out, in, T, S, s); break;
    case IMPL_REFERENCE: ref_rolling_max(out, in, T, S, s); break;
    case IMPL_CEILING: launch_variant<SLOT_MAJOR, 32>(out, in, T, S, s); break;
    case IMPL_EXTRA + 0: launch_variant<ROWS_SCALAR, 32>(out, in, T, S, s); break;
    case IMPL_EXTRA + 1: launch_variant<ROWS, 34>(out, in, T, S, s); break;
    case IMPL_EXTRA + 2: launch_variant<ROWS, 36>(out, in, T, S, s); break;
    case IMPL_EXTRA + 3: launch_variant<ROWS, 40>(out, in, T, S, s); break;
    case IMPL_EXTRA + 4: launch_variant<ROWS, 48>(out, in, T, S, s); break;
    case IMPL_EXTRA + 5: launch_variant<SWIZZLE, 32>(out, in, T, S, s); break;
    default: fatal("lab banks: no implementation %d", impl);
    }
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    harness_check_exact(&p->out, p->h_expected, p->n, p->h_got, v);
    v->cols = (size_t)p->series; /* a bad element shows as (step, series) */
    harness_check_input(&p->in, p->h_in, p->n * sizeof(float), v);
}

static double work(const void *vp)
{
    const problem *p = (const problem *)vp;
    return 2.0 * p->n * sizeof(float); /* each input read once, each output written once */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d steps x %d series", p->steps, p->series);
}

static void speed_size(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* The input is 8x the L2 (input plus output 16x): nothing survives in cache between calls.
     * 100 steps per series (not a multiple of the kernels' 8-step chunks) and as many series
     * as that takes: over a million on an H200, several waves of blocks, so the last partial
     * wave costs little. */
    const long long steps = 100;
    size_t bytes = harness_speed_bytes(d, 8, 2);
    if (d->emulated)
        bytes = (size_t)200 << 10;
    size[0] = steps;
    size[1] = (long long)(bytes / (steps * sizeof(float)));
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 300);
    size[1] = rng_range(r, 1, 5000);
    if (rng_range(r, 0, 1)) /* a window's length, or a block's width, plus or minus one */
        size[0] = 32 * rng_range(r, 1, 8) + (rng_range(r, 0, 1) ? 1 : -1);
    if (rng_range(r, 0, 1))
        size[1] = 128 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
}

const lab_info *const harness_lab = &lab_banks;
const lab_task harness_tasks[] = {
    {"rolling_max", "GB/s", "conflict-free layout (slot-major)", 0, extras,
     (int)(sizeof extras / sizeof extras[0]), create, destroy, prepare, run, verify, work,
     describe, speed_size, hidden_size, NULL},
};
const int harness_n_tasks = 1;
