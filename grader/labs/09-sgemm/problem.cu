/* problem.cu - lab 09's problem for the harness: inputs, calls, verification, sizes.
 *
 * C = alpha * A * B + beta * C, fp32, row-major (grader/labs/09-sgemm/sgemm.h). Inputs are
 * uniform in [-1, 1) from the seed; alpha and beta are neither 1 nor 0, and C holds seeded
 * values on entry, so prepare() restores it before every call (C is read and written; an
 * element the kernel skips keeps its old value, which is wrong). Implementations run in their
 * worker processes behind the lab's shim (grader/labs/09-sgemm/shim_untrusted.cu); cuBLAS, the
 * ceiling, runs here.
 *
 * Verification, against a double-precision CPU result:
 *     |c - c_ref| <= 1.1 (K + 2) u (|alpha| sum_k |a_ik b_kj| + |beta c_ij|),  u = 2^-24.
 * Why: in any summation order, a K-term dot product in floating point is off by at most
 * gamma_K sum_k |a_ik b_kj| (Higham, Accuracy and Stability, 3.1; gamma_n = n u / (1 - n u);
 * a fused multiply-add rounds once where a multiply and an add round twice, so it only
 * helps). Scaling by alpha, scaling C by beta and the final add are two more roundings, hence
 * K + 2; the factor 1.1 covers the 1 / (1 - n u) in gamma for n up to 10^6, and the double
 * reference's own error (about K 2^-53) is far below it. Any correct fp32 kernel passes on
 * every input; a missing or doubled term of the sum is off by about |a b| ~ scale / K, which
 * the bound rejects for the K of the correctness checks.
 *
 * Every element is verified for the visible and hidden sizes (above FULL_CHECK_MAX_MACS,
 * sampled rows and columns: one random row in each of at least 32 equal bands of rows, one
 * random column in each band of columns).
 *
 * Precision. The bound above is loose enough that a TF32 or half-precision product could
 * pass it on uniform inputs. Two places use inputs that make every honest fp32 kernel exact
 * up to its last roundings, whatever its summation order, and a reduced-precision one far
 * off (see dyadic_bound below): the visible check "precision probe" (task 1, a tight CPU
 * bound) and every timed call of the speed check (student against reference on the device).
 *
 * Speed checks: device-only problems; refresh() draws the dyadic inputs on the device every
 * round, alpha = 1.5 and beta = -0.75, and the student's C is compared with the reference's
 * with dyadic_bound. The teaching ladder lives in solutions/09-sgemm/steps/ (make bench). */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "sgemm.h"
#include "../lab_io.h"
#include "../common/parallel.h"

#if !defined(CUDA_EMU)
#include <cublas_v2.h>
#endif

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_sgemm; /* the table, table.c */
/* The dyadic inputs (the precision probe and the speed check): A and C on entry multiples of
 * 2^-12 in [-1, 1), B in {-1, 0, 1}, and these scalars. */
#define DYADIC_STEP 0x1p-12f
#define DYADIC_ALPHA 1.5f
#define DYADIC_BETA (-0.75f)

/* A, B, C and C's entry values: A and B inputs; C read and written by every call, restored
 * from C0 before it (prepare) and checked here (case_verify: every element, or sampled rows
 * and columns); C0 never handed to a call. Each drawn by the lab (case_create; on the device
 * A and C0 in dyadic steps from streams 1 and 3, B from {-1, 0, 1} from stream 2). */
enum { A, B, C, C0 };
static const float signs[3] = {-1.f, 0.f, 1.f};
static const lab_io_buf bufs[] = {LAB_IO_IN_OWN(1, -1.f, 1.f, DYADIC_STEP),
                                  LAB_IO_IN_CHOICE(2, signs, 3), LAB_IO_OUT_RESTORED(C0),
                                  LAB_IO_SOURCE_OWN(3, -1.f, 1.f, DYADIC_STEP)};

/* One product's shape and its CPU answer (for every element, or for sampled rows/columns). */
typedef struct gemm_case {
    int M, N, K;
    int dyadic;                /* 1: the dyadic inputs, checked with the tight bound */
    const float *h_a, *h_b, *h_c0; /* host inputs (lab_io's copies); h_c0 is C on entry */
    int n_rows, n_cols;        /* rows and columns verified (all rows, no columns: full) */
    int *rows, *cols;          /* which */
    double *exp_rows, *sc_rows;/* [n_rows * N]: expected values and error scales */
    double *exp_cols, *sc_cols;/* [n_cols * M], column by column */
    float *gather;             /* [M] one column of the downloaded C */
} gemm_case;

typedef struct problem {
    lab_io io;                 /* first: the lab_io hooks take the problem as its lab_io */
    float alpha, beta;         /* the scalars of every call */
    gemm_case main;            /* the problem every implementation solves */
#if !defined(CUDA_EMU)
    cublasHandle_t blas;       /* made on first use, outside any timing */
#endif
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* ------------------------------------------------------------------------------------------ */
/* CPU reference                                                                               */

/* Expected value and error scale of C[i][j] for row i and all j (rows) ... */
static void reference_row(const gemm_case *g, float alpha, float beta, int i, double *exp,
                          double *sc, double *sum, double *abs_sum)
{
    const int N = g->N, K = g->K;
    for (int j = 0; j < N; j++)
        sum[j] = abs_sum[j] = 0.0;
    for (int k = 0; k < K; k++) {
        const double a = g->h_a[(size_t)i * K + k];
        const float *brow = g->h_b + (size_t)k * N;
        for (int j = 0; j < N; j++) {
            const double t = a * brow[j];
            sum[j] += t;
            abs_sum[j] += fabs(t);
        }
    }
    for (int j = 0; j < N; j++) {
        const double c0 = g->h_c0[(size_t)i * N + j];
        exp[j] = (double)alpha * sum[j] + (double)beta * c0;
        sc[j] = g->dyadic ? fabs(exp[j]) + fabs((double)beta)
                          : fabs((double)alpha) * abs_sum[j] + fabs((double)beta * c0);
    }
}

/* ... and for column j and all i. */
static void reference_col(const gemm_case *g, float alpha, float beta, int j, double *exp,
                          double *sc, double *bcol)
{
    const int M = g->M, N = g->N, K = g->K;
    for (int k = 0; k < K; k++)
        bcol[k] = g->h_b[(size_t)k * N + j];
    for (int i = 0; i < M; i++) {
        const float *arow = g->h_a + (size_t)i * K;
        double s = 0.0, as = 0.0;
        for (int k = 0; k < K; k++) {
            const double t = arow[k] * bcol[k];
            s += t;
            as += fabs(t);
        }
        const double c0 = g->h_c0[(size_t)i * N + j];
        exp[i] = (double)alpha * s + (double)beta * c0;
        sc[i] = g->dyadic ? fabs(exp[i]) + fabs((double)beta)
                          : fabs((double)alpha) * as + fabs((double)beta * c0);
    }
}

/* The CPU reference of a case, item by item on the CPU's cores (common/parallel.h): item r <
 * n_rows is row rows[r], the rest the columns; each writes its own slots alone. */
typedef struct reference_job {
    const gemm_case *g;
    float alpha, beta;
} reference_job;

static void reference_item(void *ctx, size_t item)
{
    const reference_job *j = (const reference_job *)ctx;
    const gemm_case *g = j->g;
    const int M = g->M, N = g->N, K = g->K;
    double *t1 = (double *)xmalloc((size_t)(N > K ? N : K) * sizeof(double));
    if (item < (size_t)g->n_rows) {
        double *t2 = (double *)xmalloc((size_t)N * sizeof(double));
        reference_row(g, j->alpha, j->beta, g->rows[item], g->exp_rows + item * N,
                      g->sc_rows + item * N, t1, t2);
        free(t2);
    } else {
        const size_t c = item - (size_t)g->n_rows;
        reference_col(g, j->alpha, j->beta, g->cols[c], g->exp_cols + c * M,
                      g->sc_cols + c * M, t1);
    }
    free(t1);
}

/* Pick n of `count` indices: one uniformly in each of n equal bands. */
static void pick_banded(int *out, int n, int count, rng *r)
{
    for (int b = 0; b < n; b++) {
        const long long lo = (long long)b * count / n, hi = (long long)(b + 1) * count / n - 1;
        out[b] = (int)rng_range(r, lo, hi);
    }
}

/* Above this many multiply-adds the CPU reference samples rows and columns. */
#define FULL_CHECK_MAX_MACS 2.5e9

/* Host copies of the dyadic inputs: x rounded down to a multiple of 2^-12 (as dev_fill_f32
 * with that step does), and B's entries drawn from {-1, 0, 1}. */
static void dyadic_round(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(floor((double)x[i] / DYADIC_STEP) * DYADIC_STEP);
}

static void fill_signs(float *x, size_t n, uint64_t seed)
{
    rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(rng_range(&r, 0, 2) - 1);
}

/* The case's buffers (lab_io) and, on a correctness check, its inputs drawn and its CPU
 * answer. */
static void case_create(lab_io *io, gemm_case *g, int M, int N, int K, float alpha, float beta,
                        int dyadic, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->M = M, g->N = N, g->K = K;
    g->dyadic = dyadic;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    const size_t count[] = {na, nb, nc, nc};
    if (!lab_io_create(io, bufs, 4, count, seed)) /* a speed check's: refresh() makes the inputs */
        return;
    float *h_a = lab_io_in(io, A), *h_b = lab_io_in(io, B), *h_c0 = lab_io_in(io, C0);
    g->h_a = h_a, g->h_b = h_b, g->h_c0 = h_c0;
    g->gather = (float *)xmalloc((size_t)M * sizeof(float));
    fill_uniform_f32(h_a, na, rng_derive(seed, 1), -1.f, 1.f);
    if (dyadic)
        fill_signs(h_b, nb, rng_derive(seed, 2));
    else
        fill_uniform_f32(h_b, nb, rng_derive(seed, 2), -1.f, 1.f);
    fill_uniform_f32(h_c0, nc, rng_derive(seed, 3), -1.f, 1.f);
    if (dyadic) {
        dyadic_round(h_a, na);
        dyadic_round(h_c0, nc);
    }

    rng r;
    rng_seed(&r, rng_derive(seed, 4));
    if ((double)M * N * K <= FULL_CHECK_MAX_MACS) {
        g->n_rows = M;
        g->n_cols = 0;
    } else { /* at least 32 bands, and bands of at most 128 rows / columns */
        g->n_rows = M < 32 ? M : (M / 128 > 32 ? M / 128 : 32);
        g->n_cols = N < 32 ? N : (N / 128 > 32 ? N / 128 : 32);
    }
    g->rows = (int *)xmalloc((size_t)g->n_rows * sizeof(int));
    g->cols = (int *)xmalloc((size_t)(g->n_cols ? g->n_cols : 1) * sizeof(int));
    if (g->n_rows == M)
        for (int i = 0; i < M; i++)
            g->rows[i] = i;
    else
        pick_banded(g->rows, g->n_rows, M, &r);
    pick_banded(g->cols, g->n_cols, N, &r);

    g->exp_rows = (double *)xmalloc((size_t)g->n_rows * N * sizeof(double));
    g->sc_rows = (double *)xmalloc((size_t)g->n_rows * N * sizeof(double));
    g->exp_cols = (double *)xmalloc(((size_t)g->n_cols * M + 1) * sizeof(double));
    g->sc_cols = (double *)xmalloc(((size_t)g->n_cols * M + 1) * sizeof(double));
    reference_job job = {g, alpha, beta};
    parallel_for((size_t)g->n_rows + (size_t)g->n_cols, HARNESS_CPU_THREADS, reference_item, &job);

    lab_io_upload(io);
}

/* The sampled check's own arrays (lab_io frees the buffers). */
static void case_free(gemm_case *g)
{
    free(g->gather);
    free(g->rows), free(g->cols);
    free(g->exp_rows), free(g->sc_rows), free(g->exp_cols), free(g->sc_cols);
}

/* Compare the device C with the CPU answer (merged into v->out), guards, inputs. */
static void case_verify(lab_io *io, gemm_case *g, verify_result *v)
{
    const int M = g->M, N = g->N;
    /* see the top of this file; the dyadic inputs: dyadic_bound below */
    const double tol = g->dyadic ? 0x1p-22 : 1.1 * (g->K + 2) * 0x1p-24;
    const double floor_abs = 1e-30;
    float *got = lab_io_in(io, C); /* C's host scratch */
    dbuf_download(lab_io_dbuf(io, C), got, (size_t)M * N * sizeof(float));
    for (int r = 0; r < g->n_rows; r++) {
        compare_report part;
        compare_close_f32(got + (size_t)g->rows[r] * N, g->exp_rows + (size_t)r * N,
                          g->sc_rows + (size_t)r * N, N, tol, floor_abs, &part);
        compare_merge(&v->out, &part, (size_t)g->rows[r] * N);
    }
    for (int c = 0; c < g->n_cols; c++) {
        const int j = g->cols[c];
        for (int i = 0; i < M; i++)
            g->gather[i] = got[(size_t)i * N + j];
        compare_report part;
        compare_close_f32(g->gather, g->exp_cols + (size_t)c * M, g->sc_cols + (size_t)c * M, M,
                          tol, floor_abs, &part);
        if (part.n_bad)
            part.first_bad = part.first_bad * N + j; /* flat index of (row, j) */
        compare_merge(&v->out, &part, 0);
    }
    long long at = 0;
    if (!dbuf_guards_intact(lab_io_dbuf(io, C), &at) && v->guard_ok) {
        v->guard_ok = 0;
        v->guard_at = at;
    }
    lab_io_verify(io, (size_t)N, v); /* A and B unchanged (C is the lab's to check) */
}

/* ------------------------------------------------------------------------------------------ */
/* Hooks                                                                                       */

static void *create_with(const long long size[LAB_MAX_DIMS], uint64_t seed, int dyadic)
{
    problem *p = (problem *)xcalloc(1, sizeof *p);
    rng r;
    rng_seed(&r, rng_derive(seed, 10));
    /* |alpha| in [1.25, 2), |beta| in [0.25, 0.75), random signs: never 1 or 0 */
    p->alpha = (float)((1.25 + 0.75 * rng_unit(&r)) * (rng_range(&r, 0, 1) ? 1 : -1));
    p->beta = (float)((0.25 + 0.5 * rng_unit(&r)) * (rng_range(&r, 0, 1) ? 1 : -1));
    if (dyadic || harness_device_only_mode()) { /* exact in fp32 (dyadic_bound) */
        p->alpha = DYADIC_ALPHA;
        p->beta = DYADIC_BETA;
    }
    lab_io_size(&p->io, &lab_sgemm, 0, size);
    case_create(&p->io, &p->main, (int)size[0], (int)size[1], (int)size[2], p->alpha, p->beta,
                dyadic || harness_device_only_mode(), rng_derive(seed, 20));
    return p;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    return create_with(size, seed, 0);
}

/* Task 1, the precision probe: the dyadic inputs, checked on the CPU with the tight bound. */
static void *create_probe(const long long size[LAB_MAX_DIMS], uint64_t seed,
                          const device_info *d)
{
    (void)d;
    return create_with(size, seed, 1);
}

/* The sampled check's arrays and cuBLAS's handle, then lab_io's buffers. */
static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    case_free(&p->main);
#if !defined(CUDA_EMU)
    if (p->blas)
        cublasDestroy(p->blas);
#endif
    lab_io_hook_destroy(vp);
}

/* C back to its entry values (lab_io_prepare), and cuBLAS's handle before the ceiling's first
 * call, both untimed. */
static void prepare(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (!p->blas && impl == IMPL_CEILING) {
        if (cublasCreate(&p->blas) != CUBLAS_STATUS_SUCCESS)
            fatal("cublasCreate failed");
        /* Pedantic: plain fp32 arithmetic, never TF32 (NVIDIA_TF32_OVERRIDE cannot change it). */
        cublasSetMathMode(p->blas, CUBLAS_PEDANTIC_MATH);
    }
#else
    (void)impl;
#endif
    lab_io_prepare(&p->io, s);
}

#if !defined(CUDA_EMU)
/* Row-major C = alpha A B + beta C through column-major cuBLAS: a row-major M x N matrix is
 * the column-major N x M matrix of its transpose, and C^T = B^T A^T. */
static void cublas_rowmajor(problem *p, gemm_case *g, cudaStream_t s)
{
    cublasSetStream(p->blas, s);
    const cublasStatus_t st =
        cublasSgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_N, g->N, g->M, g->K, &p->alpha,
                    (const float *)lab_io_dev(&p->io, B), g->N,
                    (const float *)lab_io_dev(&p->io, A), g->K, &p->beta,
                    (float *)lab_io_dev(&p->io, C), g->N);
    if (st != CUBLAS_STATUS_SUCCESS)
        fatal("cublasSgemm failed with status %d", (int)st);
}
#endif

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    gemm_case *g = &p->main;
    if (impl == IMPL_CEILING) {
#if !defined(CUDA_EMU)
        cublas_rowmajor(p, g, s);
#endif
        return;
    }
    harness_call(impl, s, LAB_ENTRY_sgemm, LAB_WIRE_sgemm, g->M, g->N, g->K, (double)p->alpha,
                 lab_io_dev(&p->io, A), lab_io_dev(&p->io, B), (double)p->beta,
                 lab_io_dev(&p->io, C));
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    v->guard_ok = 1;
    case_verify(&p->io, &p->main, v);
}

static void describe(const void *vp, char *buf, size_t len)
{
    const gemm_case *g = &((const problem *)vp)->main;
    snprintf(buf, len, "%d x %d x %d%s%s", g->M, g->N, g->K, g->dyadic ? ", dyadic inputs" : "",
             g->n_cols ? " (sampled check)" : "");
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    long long M = rng_range(r, 1, 1100), N = rng_range(r, 1, 1100), K = rng_range(r, 1, 1100);
    switch (rng_range(r, 0, 2)) {
    case 0: /* N and K multiples of 4: the 16-byte-load path, with ragged tiles */
        N = 4 * rng_range(r, 1, 275);
        K = 4 * rng_range(r, 1, 275);
        break;
    case 1: /* just off a tile multiple */
        M = 64 * rng_range(r, 1, 16) + rng_range(r, -3, 3);
        N = 64 * rng_range(r, 1, 16) + rng_range(r, -3, 3);
        K = 8 * rng_range(r, 1, 120) + rng_range(r, -1, 1);
        break;
    default: /* anything */
        break;
    }
    M = M < 1 ? 1 : M, N = N < 1 ? 1 : N, K = K < 1 ? 1 : K;
#if defined(CUDA_EMU)
    /* The emulator runs some 4 million multiply-adds a second: at most the largest visible
     * check's work (256^3), which the same halving keeps ragged */
    const long long max_macs = 16777216LL;
#else
    const long long max_macs = 100000000LL; /* keeps the CPU reference quick */
#endif
    while (M * N * K > max_macs) {
        long long *big = M >= N && M >= K ? &M : N >= K ? &N : &K;
        *big = (*big + 1) / 2;
    }
    size[0] = M, size[1] = N, size[2] = K;
}

/* Speed checks: the dyadic inputs, on the device (lab_io_refresh: A, B and C's entry values, as
 * bufs says; alpha and beta were set by create()). */

/* dyadic_bound: how far apart two honest fp32 results may be on the dyadic inputs.
 *
 * A's entries are i 2^-12 with |i| <= 2^12 and B's are -1, 0 or 1, so every product a b is
 * exact and a multiple of 2^-12 of magnitude <= 1, and every partial sum of K <= 4096 of them
 * (the speed sizes stop at 4096) is a multiple of 2^-12 of magnitude <= 2^12, that is m 2^-12
 * with |m| <= 2^24: exact in fp32. So the dot product S comes out exact in ANY order of the
 * additions (tiles, warps, split-K, fused or not). (Kernels that fold alpha or beta * C into
 * the running sum stay exact while its partial sums stay under 2^11 or 2^10; with these
 * random signs they are about 30 in size, sigma = sqrt(4096 * 2/9).) What remains rounds:
 * beta c is exact (c = j 2^-12, |j| <= 2^12, times 3/4: 14 bits), alpha S = 1.5 S may round
 * once (|d1| <= u = 2^-24), and the final add rounds once (|d2| <= u); an FMA only drops
 * one of these. With E = alpha S + beta c exact, each result is
 *     R = (alpha S (1 + d1) + beta c)(1 + d2),
 *     |R - E| <= u (1 + u) |alpha S| + u |E| <= u (2 + u) |E| + u (1 + u) |beta|
 * using |alpha S| <= |E| + |beta c| and |c| <= 1. Two results R1, R2 are then apart by at most
 *     2u (2 + u) |E| + 2u (1 + u) |beta|,
 * and |E| <= max(|R1|, |R2|) (1 + 3u) + 2u |beta| gives
 *     |R1 - R2| <= 4u (1 + 4u) max(|R1|, |R2|) + 2u (1 + 3u) |beta|.
 * The bound used: rel = 4.25 u, abs = 4 u |beta| (a little slack over the above).
 *
 * A TF32 or half product rounds a to 11 significant bits: a quarter of A's entries (those
 * with 12) move by 2^-12, about 700 of a 4096-term sum's products with random signs, an error
 * near 1.5 * 26 * 2^-12 = 1e-2 on results near 45: a relative 2e-4, hundreds of times the
 * bound, on most elements. The
 * visible precision probe (task 1) makes the same inputs for the CPU check, where the double
 * result is exact, with rel 4u against |E| + |beta| (each result is within
 * 2u |E| + u |beta| of it). */
static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)s;
    problem *p = (problem *)vp;
    const int k = lab_io_outputs(&p->io, out, max); /* C, alone */
    out[0].rel = 4.25 * 0x1p-24;
    out[0].abs = 4.0 * 0x1p-24 * fabs((double)p->beta);
    return k;
}

const lab_info *const harness_lab = &lab_sgemm;
const lab_task harness_tasks[] = {
    {.name = "sgemm", .unit = "GFLOP/s", .ceiling = "cuBLAS SGEMM fp32", .create = create,
     .destroy = destroy, .prepare = prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size,
     .refresh = lab_io_hook_refresh, .outputs = outputs, .inputs = lab_io_hook_inputs},
    /* the precision probe: visible check only (dyadic inputs, tight CPU bound) */
    {.name = "sgemm precision probe", .unit = "GFLOP/s", .ceiling = "cuBLAS SGEMM fp32",
     .create = create_probe, .destroy = destroy, .prepare = prepare, .run = run,
     .verify = verify, .work = lab_io_hook_work, .describe = describe,
     .hidden_size = hidden_size, .refresh = lab_io_hook_refresh, .outputs = outputs,
     .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 2;
