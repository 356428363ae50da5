/* tune.cu - lab 09's tuning and profiling tool (not part of grading): how the reference's
 * tile configuration was chosen, and the program the README's ncu figures come from.
 *
 *   nvcc -O3 -std=c++17 -arch=native -Igrader/labs/09-sgemm -Isolutions/09-sgemm -Icommon \
 *        solutions/09-sgemm/tune.cu common/check.cu -lcublas -o tune
 *   ./tune time [n ...]       every configuration below and cuBLAS (fp32, pedantic) on n^3
 *                             (default 4096 2048 1024), interleaved rounds, median TFLOP/s each
 *   ./tune once n [names]     one call of each named variant (all if none), for
 *                             ncu --clock-control none ./tune once 2048 student
 *                             ("student" is labs/09-sgemm/sgemm.cu: the skeleton, or yours)
 *
 * Each configuration is checked against cuBLAS before it is timed. */
#include "sgemm.cu" /* the reference: sgemm(), and sgemm_tiled.cuh: Tile, launch_tiled, the pipelines */
#define sgemm sgemm_skeleton /* the student file (step 0 untouched), under another name */
#include "../../labs/09-sgemm/sgemm.cu"
#undef sgemm

/* Ladder rungs 1 to 5 (steps/), each in a namespace of its own with its sgemm() named rung.
 * Rungs 4 and 5 share rung 4's kernel: its header is read once, here, for both. */
#include "register_tile_2d.cuh"
#define sgemm rung
namespace rung1 {
#include "steps/1-coalesced.cu"
}
namespace rung2 {
#include "steps/2-smem-tiles.cu"
}
namespace rung3 {
#include "steps/3-1d-register-tile.cu"
}
namespace rung4 {
#include "steps/4-2d-register-tile.cu"
}
namespace rung5 {
#include "steps/5-vectorized.cu"
}
#undef sgemm

#include <cublas_v2.h>
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

typedef void (*gemm_fn)(int, int, int, float, const float *, const float *, float, float *,
                        cudaStream_t);

static cublasHandle_t blas;
static void run_cublas(int M, int N, int K, float alpha, const float *A, const float *B,
                       float beta, float *C, cudaStream_t s)
{
    cublasSetStream(blas, s);
    cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
}

/* Candidate configurations: Tile<BM, BN, BK, WM, WN, MI, NI, STAGES, MIN_BLOCKS>. */
typedef Tile<128, 128, 8, 64, 32, 2, 2, 3, 2> L8;   /* 256 thr, 8x8/lane, 2 blocks/SM */
typedef Tile<128, 128, 8, 64, 32, 2, 2, 4, 2> L8s4;
typedef Tile<128, 128, 16, 64, 32, 2, 2, 3, 2> L16;
typedef Tile<128, 128, 16, 64, 32, 2, 2, 4, 2> L16s4;
typedef Tile<128, 128, 8, 32, 64, 2, 2, 3, 2> W8;   /* warps 32x64 */
typedef Tile<128, 128, 16, 32, 64, 2, 2, 3, 2> W16;
typedef Tile<128, 256, 8, 64, 64, 2, 4, 3, 1> X8;   /* 256 thr, 8x16/lane, 1 block/SM */
typedef Tile<128, 256, 16, 64, 64, 2, 4, 3, 1> X16;
typedef Tile<256, 128, 8, 64, 64, 4, 2, 3, 1> Y8;   /* 256 thr, 16x8/lane */
typedef Tile<256, 128, 16, 64, 64, 4, 2, 3, 1> Y16;
typedef Tile<128, 128, 32, 64, 32, 2, 2, 2, 2> L32s2; /* fewer, deeper slices */
typedef Tile<128, 128, 32, 64, 64, 2, 4, 2, 2> Z32s2;
typedef Tile<128, 128, 8, 64, 64, 2, 4, 3, 2> Z8;   /* 128 thr, 8x16/lane, 2 blocks/SM */
typedef Tile<128, 128, 16, 64, 64, 2, 4, 3, 2> Z16;
typedef Tile<128, 128, 16, 64, 64, 2, 4, 4, 2> Z16s4;

template <class T, int PIPE>
static void run_cfg(int M, int N, int K, float alpha, const float *A, const float *B,
                    float beta, float *C, cudaStream_t s)
{
    launch_tiled<T, PIPE>(M, N, K, alpha, A, B, beta, C, s);
}

struct variant {
    const char *name;
    gemm_fn fn;
    int tune; /* 1: timed by `time`; 0: only run by `once` (slow ladder steps) */
};

static const variant variants[] = {
    {"cublas", run_cublas, 1},
    {"student", sgemm_skeleton, 0}, /* labs/09-sgemm/sgemm.cu: the skeleton, or yours */
    {"step1_coalesced", rung1::rung, 0},
    {"step2_smem", rung2::rung, 0},
    {"step3_1d", rung3::rung, 1},
    {"step4_2d", rung4::rung, 1},
    {"step5_vec", rung5::rung, 1},
    {"step6_warptile", run_cfg<TileLarge, PIPE_NONE>, 1},
    {"reference", sgemm, 1}, /* step 7: TileLarge, PIPE_REGS */
    {"step7b_async", run_cfg<TileLarge, PIPE_ASYNC>, 1},
    {"L8_a3", run_cfg<L8, PIPE_ASYNC>, 1},
    {"L8_a4", run_cfg<L8s4, PIPE_ASYNC>, 1},
    {"L8_regs", run_cfg<L8, PIPE_REGS>, 1},
    {"W8_regs", run_cfg<W8, PIPE_REGS>, 1},
    {"L16_a3", run_cfg<L16, PIPE_ASYNC>, 1},
    {"L16_a4", run_cfg<L16s4, PIPE_ASYNC>, 1},
    {"L16_regs", run_cfg<L16, PIPE_REGS>, 1},
    {"W8_a3", run_cfg<W8, PIPE_ASYNC>, 1},
    {"W16_a3", run_cfg<W16, PIPE_ASYNC>, 1},
    {"X8_a3", run_cfg<X8, PIPE_ASYNC>, 1},
    {"X8_regs", run_cfg<X8, PIPE_REGS>, 1},
    {"X16_a3", run_cfg<X16, PIPE_ASYNC>, 1},
    {"Y8_a3", run_cfg<Y8, PIPE_ASYNC>, 1},
    {"Y16_a3", run_cfg<Y16, PIPE_ASYNC>, 1},
    {"L32_a2", run_cfg<L32s2, PIPE_ASYNC>, 1},
    {"Z32_a2", run_cfg<Z32s2, PIPE_ASYNC>, 1},
    {"Z8_a3", run_cfg<Z8, PIPE_ASYNC>, 1},
    {"Z8_regs", run_cfg<Z8, PIPE_REGS>, 1},
    {"Z16_a3", run_cfg<Z16, PIPE_ASYNC>, 1},
    {"Z16_a4", run_cfg<Z16s4, PIPE_ASYNC>, 1},
};
#define N_VARIANTS (int)(sizeof variants / sizeof variants[0])

struct mats {
    int n;
    float *A, *B, *C, *C0, *Cref;
    std::vector<float> h;
};

static void make_mats(mats *m, int n)
{
    m->n = n;
    const size_t e = (size_t)n * n;
    m->h.resize(e);
    unsigned long long x = 0x9E3779B97F4A7C15ull * (unsigned)n;
    CUDA_CHECK(cudaMalloc(&m->A, e * 4));
    CUDA_CHECK(cudaMalloc(&m->B, e * 4));
    CUDA_CHECK(cudaMalloc(&m->C, e * 4));
    CUDA_CHECK(cudaMalloc(&m->C0, e * 4));
    CUDA_CHECK(cudaMalloc(&m->Cref, e * 4));
    float *dst[3] = {m->A, m->B, m->C0};
    for (int t = 0; t < 3; t++) {
        for (size_t i = 0; i < e; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            m->h[i] = (float)((x >> 40) * 0x1p-24 * 2.0 - 1.0);
        }
        CUDA_CHECK(cudaMemcpy(dst[t], m->h.data(), e * 4, cudaMemcpyHostToDevice));
    }
}

static const float ALPHA = 1.25f, BETA = -0.5f;

static void call(const variant &v, mats *m, cudaStream_t s)
{
    CUDA_CHECK(cudaMemcpyAsync(m->C, m->C0, (size_t)m->n * m->n * 4, cudaMemcpyDeviceToDevice, s));
    v.fn(m->n, m->n, m->n, ALPHA, m->A, m->B, BETA, m->C, s);
    CUDA_CHECK(cudaGetLastError());
}

/* Largest |c - c_cublas| over max |c_cublas|; both fp32 (the lab's grader does the real check). */
static double diff_vs_cublas(mats *m)
{
    const size_t e = (size_t)m->n * m->n;
    std::vector<float> a(e), b(e);
    CUDA_CHECK(cudaMemcpy(a.data(), m->C, e * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b.data(), m->Cref, e * 4, cudaMemcpyDeviceToHost));
    double worst = 0, big = 0;
    for (size_t i = 0; i < e; i++) {
        worst = std::max(worst, (double)fabsf(a[i] - b[i]));
        big = std::max(big, (double)fabsf(b[i]));
        if (a[i] != a[i])
            return INFINITY;
    }
    return worst / big;
}

static int time_size(int n, cudaStream_t s)
{
    mats m;
    make_mats(&m, n);
    call(variants[0], &m, s);
    CUDA_CHECK(cudaMemcpy(m.Cref, m.C, (size_t)n * n * 4, cudaMemcpyDeviceToDevice));
    std::vector<int> live;
    int bad = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        if (!variants[v].tune)
            continue;
        call(variants[v], &m, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        const double d = diff_vs_cublas(&m);
        if (!(d < 1e-4)) {
            printf("n=%d %-16s WRONG: max diff %.3g of max |c|\n", n, variants[v].name, d);
            bad = 1;
            continue;
        }
        live.push_back(v);
    }
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    const int rounds = 25;
    std::vector<std::vector<double>> ms(N_VARIANTS);
    for (int r = -2; r < rounds; r++) /* 2 warm-up rounds; each round starts elsewhere */
        for (size_t i = 0; i < live.size(); i++) {
            const int v = live[(i + (r < 0 ? 0 : r)) % live.size()];
            CUDA_CHECK(cudaMemcpyAsync(m.C, m.C0, (size_t)n * n * 4, cudaMemcpyDeviceToDevice, s));
            CUDA_CHECK(cudaEventRecord(e0, s));
            variants[v].fn(n, n, n, ALPHA, m.A, m.B, BETA, m.C, s);
            CUDA_CHECK(cudaEventRecord(e1, s));
            CUDA_CHECK(cudaEventSynchronize(e1));
            float t;
            CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= 0)
                ms[v].push_back(t);
        }
    auto median = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        return x[x.size() / 2];
    };
    const double flops = 2.0 * n * n * (double)n;
    const double cub = median(ms[0]);
    printf("\n n = %d: median of %d, TFLOP/s and fraction of cuBLAS\n", n, rounds);
    for (int v : live) {
        const double t = median(ms[v]);
        std::vector<double> x = ms[v];
        std::sort(x.begin(), x.end());
        printf("  %-16s %8.4f ms  %6.2f TFLOP/s  %5.3f of cuBLAS   (min %.4f, max %.4f)\n",
               variants[v].name, t, flops / t / 1e9, cub / t, x.front(), x.back());
    }
    fflush(stdout);
    cudaFree(m.A), cudaFree(m.B), cudaFree(m.C), cudaFree(m.C0), cudaFree(m.Cref);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tune time [n ...] | tune once n [names]\n");
        return 2;
    }
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    int bad = 0;
    if (!strcmp(argv[1], "time")) {
        if (argc == 2) {
            bad |= time_size(4096, s);
            bad |= time_size(2048, s);
            bad |= time_size(1024, s);
        }
        for (int i = 2; i < argc; i++)
            bad |= time_size(atoi(argv[i]), s);
    } else if (!strcmp(argv[1], "once") && argc >= 3) {
        mats m;
        make_mats(&m, atoi(argv[2]));
        for (int v = 0; v < N_VARIANTS; v++) {
            bool pick = argc == 3;
            for (int i = 3; i < argc; i++)
                pick |= !strcmp(argv[i], variants[v].name);
            if (pick)
                call(variants[v], &m, s);
        }
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
    cublasDestroy(blas);
    return bad;
}
