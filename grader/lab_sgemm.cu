/* lab_sgemm.cu - lab 09's problem for the harness: inputs, calls, verification, sizes.
 *
 * C = alpha * A * B + beta * C, fp32, row-major (grader/contracts/sgemm.h). Inputs are
 * uniform in [-1, 1) from the seed; alpha and beta are neither 1 nor 0, and C holds seeded
 * values on entry, so prepare() restores it before every call (C is read and written; an
 * element the kernel skips keeps its old value, which is wrong).
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
 * the bound rejects for the K of the correctness checks (it is a worst-case bound, so at the
 * speed size it is loose: the visible and hidden checks are where edges are caught).
 *
 * Every element is verified for the visible and hidden sizes. At the speed size (4096^3 on
 * an H200) a full CPU reference would take minutes, so it is verified on sampled rows and
 * columns: one random row in each of at least 32 equal bands of rows, one random column
 * in each band of columns (every 128 x 128 tile of C has a sampled row and a sampled column).
 *
 * Bench variants: the ladder steps of labs/09-sgemm/README.md (1-5 from
 * solutions/09-sgemm/ladder.cuh; 6 and 7b the reference kernel with its pipeline off and
 * through cp.async; step 7 is the reference itself), cuBLAS, and "8 x (n/2)^3": the
 * reference and cuBLAS each run 8 independent
 * half-size products (the same flops as one n^3 product, 2^37 at n = 4096), which is how the
 * bench reports the 2048^3 figures beside the 4096^3 ones. */
#include "harness.h"
#include "contracts/sgemm.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#define SGEMM_KERNELS_ONLY /* the reference's kernels, for ladder steps 6 and 7b */
#include "../solutions/09-sgemm/sgemm.cu"
#include "../solutions/09-sgemm/ladder.cuh"

#if !defined(CUDA_EMU)
#include <cublas_v2.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_sgemm; /* the table, lab_sgemm.c */
extern "C" void ref_sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
                          float beta, float *C, cudaStream_t stream);

#define HALF_SETS 8 /* half-size products that make one bench sample of "8 x (n/2)^3" */

/* One product's data and its CPU answer (for every element, or for sampled rows/columns). */
typedef struct gemm_case {
    int M, N, K;
    float *h_a, *h_b, *h_c0;   /* host inputs; h_c0 is C on entry */
    dbuf a, b, c;              /* device, guarded; c is read and written */
    float *d_c0;               /* device copy of h_c0 that prepare() restores c from */
    int n_rows, n_cols;        /* rows and columns verified (all rows, no columns: full) */
    int *rows, *cols;          /* which */
    double *exp_rows, *sc_rows;/* [n_rows * N]: expected values and error scales */
    double *exp_cols, *sc_cols;/* [n_cols * M], column by column */
    float *got;                /* [M * N] host scratch for the downloaded C */
    float *gather;             /* [M] one column of got */
} gemm_case;

typedef struct problem {
    float alpha, beta;         /* the scalars of every call */
    gemm_case main;            /* the problem every implementation solves */
    gemm_case *half;           /* [HALF_SETS] (n/2)^3 products, made on first use (bench) */
    uint64_t seed;             /* for the half sets */
    int last_half;             /* 1 when the last call ran on the half sets */
#if !defined(CUDA_EMU)
    cublasHandle_t blas;       /* made on first use, outside any timing */
#endif
} problem;

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
        sc[j] = fabs((double)alpha) * abs_sum[j] + fabs((double)beta * c0);
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
        sc[i] = fabs((double)alpha) * as + fabs((double)beta * c0);
    }
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

static void case_create(gemm_case *g, int M, int N, int K, float alpha, float beta,
                        uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->M = M, g->N = N, g->K = K;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    g->h_a = (float *)xmalloc(na * sizeof(float));
    g->h_b = (float *)xmalloc(nb * sizeof(float));
    g->h_c0 = (float *)xmalloc(nc * sizeof(float));
    g->got = (float *)xmalloc(nc * sizeof(float));
    g->gather = (float *)xmalloc((size_t)M * sizeof(float));
    fill_uniform_f32(g->h_a, na, rng_derive(seed, 1), -1.f, 1.f);
    fill_uniform_f32(g->h_b, nb, rng_derive(seed, 2), -1.f, 1.f);
    fill_uniform_f32(g->h_c0, nc, rng_derive(seed, 3), -1.f, 1.f);

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
    double *t1 = (double *)xmalloc((size_t)(N > K ? N : K) * sizeof(double));
    double *t2 = (double *)xmalloc((size_t)N * sizeof(double));
    for (int r_ = 0; r_ < g->n_rows; r_++)
        reference_row(g, alpha, beta, g->rows[r_], g->exp_rows + (size_t)r_ * N,
                      g->sc_rows + (size_t)r_ * N, t1, t2);
    for (int c = 0; c < g->n_cols; c++)
        reference_col(g, alpha, beta, g->cols[c], g->exp_cols + (size_t)c * M,
                      g->sc_cols + (size_t)c * M, t1);
    free(t1);
    free(t2);

    dbuf_alloc(&g->a, na * sizeof(float));
    dbuf_alloc(&g->b, nb * sizeof(float));
    dbuf_alloc(&g->c, nc * sizeof(float));
    dbuf_upload(&g->a, g->h_a, na * sizeof(float));
    dbuf_upload(&g->b, g->h_b, nb * sizeof(float));
    CUDA_CHECK(cudaMalloc((void **)&g->d_c0, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(g->d_c0, g->h_c0, nc * sizeof(float), cudaMemcpyHostToDevice));
}

static void case_destroy(gemm_case *g)
{
    dbuf_free(&g->a);
    dbuf_free(&g->b);
    dbuf_free(&g->c);
    CUDA_CHECK(cudaFree(g->d_c0));
    free(g->h_a), free(g->h_b), free(g->h_c0), free(g->got), free(g->gather);
    free(g->rows), free(g->cols);
    free(g->exp_rows), free(g->sc_rows), free(g->exp_cols), free(g->sc_cols);
}

/* C back to its entry values, on stream s (untimed). */
static void case_restore(gemm_case *g, cudaStream_t s)
{
    CUDA_CHECK(cudaMemcpyAsync(g->c.data, g->d_c0, (size_t)g->M * g->N * sizeof(float),
                               cudaMemcpyDeviceToDevice, s));
}

/* Compare the device C with the CPU answer (merged into v->out), guards, inputs. */
static void case_verify(gemm_case *g, verify_result *v)
{
    const int M = g->M, N = g->N, K = g->K;
    const double tol = 1.1 * (K + 2) * 0x1p-24; /* see the top of this file */
    const double floor_abs = 1e-30;
    dbuf_download(&g->c, g->got, (size_t)M * N * sizeof(float));
    for (int r = 0; r < g->n_rows; r++) {
        compare_report part;
        compare_close_f32(g->got + (size_t)g->rows[r] * N, g->exp_rows + (size_t)r * N,
                          g->sc_rows + (size_t)r * N, N, tol, floor_abs, &part);
        compare_merge(&v->out, &part, (size_t)g->rows[r] * N);
    }
    for (int c = 0; c < g->n_cols; c++) {
        const int j = g->cols[c];
        for (int i = 0; i < M; i++)
            g->gather[i] = g->got[(size_t)i * N + j];
        compare_report part;
        compare_close_f32(g->gather, g->exp_cols + (size_t)c * M, g->sc_cols + (size_t)c * M, M,
                          tol, floor_abs, &part);
        if (part.n_bad)
            part.first_bad = part.first_bad * N + j; /* flat index of (row, j) */
        compare_merge(&v->out, &part, 0);
    }
    long long at = 0;
    if (!dbuf_guards_intact(&g->c, &at) && v->guard_ok) {
        v->guard_ok = 0;
        v->guard_at = at;
    }
    v->cols = (size_t)N;
    harness_check_input(&g->a, g->h_a, (size_t)M * K * sizeof(float), v);
    harness_check_input(&g->b, g->h_b, (size_t)K * N * sizeof(float), v);
}

/* ------------------------------------------------------------------------------------------ */
/* Hooks                                                                                       */

/* Bench variants beyond student / reference / ceiling, in IMPL_EXTRA order. */
enum {
    EXTRA_COALESCED,   /* ladder step 1 */
    EXTRA_SMEM,        /* 2 */
    EXTRA_1D,          /* 3 */
    EXTRA_2D,          /* 4 */
    EXTRA_VEC,         /* 5 */
    EXTRA_WARPTILE,    /* 6: reference kernel, no pipelining */
    EXTRA_ASYNC,       /* 7b: reference kernel, cp.async pipeline (3 stages) */
    EXTRA_HALF_REF,    /* the reference on 8 half-size products */
    EXTRA_HALF_CUBLAS, /* cuBLAS on the same */
    N_EXTRAS
};

static const char *const extras[N_EXTRAS] = {
    "1 coalesced",
    "2 smem tiles 32x32",
    "3 1D regs 64x64x8, 8/thr",
    "4 2D regs 128x128x8, 8x8",
    "5 float4 + LDS.128",
    "6 warp tiles, no pipeline",
    "7b cp.async, 3 stages",
    "ref, 8 x (n/2)^3",
    "cuBLAS, 8 x (n/2)^3",
};

static int is_half(int impl)
{
    return impl == IMPL_EXTRA + EXTRA_HALF_REF || impl == IMPL_EXTRA + EXTRA_HALF_CUBLAS;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    rng r;
    rng_seed(&r, rng_derive(seed, 10));
    /* |alpha| in [1.25, 2), |beta| in [0.25, 0.75), random signs: never 1 or 0 */
    p->alpha = (float)((1.25 + 0.75 * rng_unit(&r)) * (rng_range(&r, 0, 1) ? 1 : -1));
    p->beta = (float)((0.25 + 0.5 * rng_unit(&r)) * (rng_range(&r, 0, 1) ? 1 : -1));
    p->seed = seed;
    case_create(&p->main, (int)size[0], (int)size[1], (int)size[2], p->alpha, p->beta,
                rng_derive(seed, 20));
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    case_destroy(&p->main);
    if (p->half) {
        for (int i = 0; i < HALF_SETS; i++)
            case_destroy(&p->half[i]);
        free(p->half);
    }
#if !defined(CUDA_EMU)
    if (p->blas)
        cublasDestroy(p->blas);
#endif
    free(p);
}

static void prepare(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (!p->blas && (impl == IMPL_CEILING || impl == IMPL_EXTRA + EXTRA_HALF_CUBLAS)) {
        if (cublasCreate(&p->blas) != CUBLAS_STATUS_SUCCESS)
            fatal("cublasCreate failed");
        /* Pedantic: plain fp32 arithmetic, never TF32 (NVIDIA_TF32_OVERRIDE cannot change it). */
        cublasSetMathMode(p->blas, CUBLAS_PEDANTIC_MATH);
    }
#endif
    p->last_half = is_half(impl);
    if (p->last_half) {
        if (!p->half) { /* first use (bench only): 8 independent products of half the size */
            p->half = (gemm_case *)xcalloc(HALF_SETS, sizeof *p->half);
            for (int i = 0; i < HALF_SETS; i++)
                case_create(&p->half[i], (p->main.M + 1) / 2, (p->main.N + 1) / 2,
                            (p->main.K + 1) / 2, p->alpha, p->beta, rng_derive(p->seed, 30 + i));
        }
        for (int i = 0; i < HALF_SETS; i++)
            case_restore(&p->half[i], s);
    } else {
        case_restore(&p->main, s);
    }
}

#if !defined(CUDA_EMU)
/* Row-major C = alpha A B + beta C through column-major cuBLAS: a row-major M x N matrix is
 * the column-major N x M matrix of its transpose, and C^T = B^T A^T. */
static void cublas_rowmajor(problem *p, gemm_case *g, cudaStream_t s)
{
    cublasSetStream(p->blas, s);
    const cublasStatus_t st =
        cublasSgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_N, g->N, g->M, g->K, &p->alpha,
                    (const float *)g->b.data, g->N, (const float *)g->a.data, g->K, &p->beta,
                    (float *)g->c.data, g->N);
    if (st != CUBLAS_STATUS_SUCCESS)
        fatal("cublasSgemm failed with status %d", (int)st);
}
#endif

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    gemm_case *g = &p->main;
    const float *A = (const float *)g->a.data, *B = (const float *)g->b.data;
    float *C = (float *)g->c.data;
    switch (impl) {
    case IMPL_STUDENT:
        sgemm(g->M, g->N, g->K, p->alpha, A, B, p->beta, C, s);
        break;
    case IMPL_REFERENCE:
        ref_sgemm(g->M, g->N, g->K, p->alpha, A, B, p->beta, C, s);
        break;
    case IMPL_CEILING:
#if !defined(CUDA_EMU)
        cublas_rowmajor(p, g, s);
#endif
        break;
    case IMPL_EXTRA + EXTRA_WARPTILE:
        launch_tiled<TileLarge, PIPE_NONE>(g->M, g->N, g->K, p->alpha, A, B, p->beta, C, s);
        CUDA_CHECK_LAUNCH();
        break;
    case IMPL_EXTRA + EXTRA_ASYNC:
        launch_tiled<TileLarge, PIPE_ASYNC>(g->M, g->N, g->K, p->alpha, A, B, p->beta, C, s);
        CUDA_CHECK_LAUNCH();
        break;
    case IMPL_EXTRA + EXTRA_HALF_REF:
    case IMPL_EXTRA + EXTRA_HALF_CUBLAS:
        for (int i = 0; i < HALF_SETS; i++) {
            gemm_case *h = &p->half[i];
            if (impl == IMPL_EXTRA + EXTRA_HALF_REF)
                ref_sgemm(h->M, h->N, h->K, p->alpha, (const float *)h->a.data,
                          (const float *)h->b.data, p->beta, (float *)h->c.data, s);
#if !defined(CUDA_EMU)
            else
                cublas_rowmajor(p, h, s);
#endif
        }
        break;
    default: /* ladder steps 1-5 */
        ladder_launch(impl - IMPL_EXTRA + 1, g->M, g->N, g->K, p->alpha, A, B, p->beta, C, s);
        CUDA_CHECK_LAUNCH();
    }
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    v->guard_ok = 1;
    if (p->last_half)
        for (int i = 0; i < HALF_SETS; i++)
            case_verify(&p->half[i], v);
    else
        case_verify(&p->main, v);
}

static double work(const void *vp)
{
    const gemm_case *g = &((const problem *)vp)->main;
    return 2.0 * g->M * g->N * g->K; /* one multiply and one add per term */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const gemm_case *g = &((const problem *)vp)->main;
    snprintf(buf, len, "%d x %d x %d%s", g->M, g->N, g->K,
             g->n_cols ? " (sampled check)" : "");
}

static void speed_size(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* Compute-bound: size for time, not for the L2. n^3 at the FMA peak the clocks imply
     * should take about 2 ms (so a good kernel runs 2-3 ms, far above launch overhead), in
     * steps of 512 from 1024 to 4096: 4096 on an H200 (67 TFLOP/s), 2048 on a T4 (8). */
    const double peak = 2.0 * device_fp32_lanes_per_sm(d) * d->sm_count * d->sm_clock_khz * 1e3;
    long long n = (long long)(cbrt(peak * 2e-3 / 2.0) / 512.0 + 0.5) * 512;
    n = n < 1024 ? 1024 : n > 4096 ? 4096 : n;
    /* A, B, C and C's entry copy, plus the bench's 8 half-size sets (twice that again). */
    while (n > 512 && 12.0 * n * n * sizeof(float) > (double)harness_memory_budget(d))
        n -= 512;
    if (d->emulated)
        n = 96; /* the CPU emulator checks correctness only; keep it quick */
    size[0] = size[1] = size[2] = n;
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
    while (M * N * K > 100000000LL) { /* keeps the CPU reference (and the emulator) quick */
        long long *big = M >= N && M >= K ? &M : N >= K ? &N : &K;
        *big = (*big + 1) / 2;
    }
    size[0] = M, size[1] = N, size[2] = K;
}

const lab_info *const harness_lab = &lab_sgemm;
const lab_task harness_tasks[] = {
    {"sgemm", "GFLOP/s", "cuBLAS SGEMM fp32", 0, extras, N_EXTRAS, create, destroy, prepare,
     run, verify, work, describe, speed_size, hidden_size, NULL},
};
const int harness_n_tasks = 1;
