/* table.c - lab 09's checks, as data (see lab.h).
 *
 * Threshold 0.50 (reference time / student time), from one make bench on an H200 at 4096^3:
 * the skeleton runs at 0.01x the reference, ladder steps 3-4 (register blocking, scalar
 * loads) at 0.32x, step 5 (float4 + LDS.128) at 0.70x, step 6 (warp tiles) at 0.91x. So
 * 0.50 asks for the lab's core idea (a register tile fed by 16-byte shared loads) and sits
 * far from both the skeleton and the noise around 1.0 (timed ratios varied by 1-2%). */
#include "lab.h"
#include <math.h>

#include "../../../common/sizing.h"

/* Under the CPU emulator (last column: the size it runs instead) each case keeps its shape at a
 * size the emulator checks in well under a second: still past a 128-wide tile in M and N (the
 * primes are primes, the long K as long), several blocks each way; hidden sizes are drawn
 * again while above twice the largest (192^3) multiply-adds (grader/harness/hidden_size.h). */
static const lab_check checks[] = {
    /* name                                          kind           task  size {M, N, K}     points */
    {"1 x 1 x 1",                                    CHECK_VISIBLE, 0,    {1, 1, 1},          0},
    {"33 x 65 x 17: no multiple of any tile",        CHECK_VISIBLE, 0,    {33, 65, 17},       0},
    {"4099 x 7 x 33: tall and thin",                 CHECK_VISIBLE, 0,    {4099, 7, 33},      0},
    {"5 x 3001 x 17: short and wide",                CHECK_VISIBLE, 0,    {5, 3001, 17},      0},
    {"3 x 1000 x 4097: long K, odd",                 CHECK_VISIBLE, 0,    {3, 1000, 4097},    0, {3, 130, 4097}},
    {"257 x 263 x 251: primes",                      CHECK_VISIBLE, 0,    {257, 263, 251},    0, {131, 137, 127}},
    {"2100 x 2116 x 44: more than one wave",         CHECK_VISIBLE, 0,    {2100, 2116, 44},   0, {260, 265, 44}},
    {"512 x 512 x 512: large square",                CHECK_VISIBLE, 0,    {512, 512, 512},    0, {192, 192, 192}},
    /* task 1: A and C multiples of 2^-12, B in {-1, 0, 1}, alpha 1.5, beta -0.75: fp32 gets
     * within a rounding or two of the exact result, TF32 or half precision far from it (at any
     * K: the emulator's size, a twenty-eighth of the multiply-adds, rounds just as far) */
    {"257 x 263 x 1031: precision probe, inputs TF32 would round", CHECK_VISIBLE, 1, {257, 263, 1031}, 0, {67, 71, 521}},
    {"hidden size 1",                                CHECK_HIDDEN,  0,    {0},                0},
    {"hidden size 2",                                CHECK_HIDDEN,  0,    {0},                0},
    {"hidden size 3",                                CHECK_HIDDEN,  0,    {0},                0},
    {"speed: device-sized square",                   CHECK_SPEED,   0,    {0},                5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"sgemm", "int M, int N, int K, float alpha, const float *A, const float *B, float beta, "
     "float *C, cudaStream_t stream",
     "iiifppfp"},
};

/* The harness times cuBLAS as the ceiling. The student's object may not use cuBLAS or CUTLASS
 * (by symbol), nor tensor cores or reduced precision in its device code: every PTX form of
 * mma (mma, mma.sp, wmma, wgmma) and tcgen05, conversions to tf32, half, bf16 or fp8 (vet.sh
 * reads instructions only, not the .file lines that hold source paths), and in the machine
 * code HMMA/IMMA/DMMA (Volta to Ada, TF32 included), HGMMA/IGMMA/QGMMA (Hopper wgmma),
 * UTC*MMA (Blackwell). Not HFMA2: ptxas uses HFMA2.MMA as a move in plain fp32 code.
 * Whatever slips past this, the speed check's inputs expose (a TF32 or half product rounds
 * them) and a rate above the FP32 FMA peak is rejected as impossible. */
/* ------------------------------------------------------------------------------------------ */
/* Sizes (pure arithmetic on the device: the harness and the unit tests both call these)       */

static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* Compute-bound: size for time, not for the L2. n^3 at the FMA peak the clocks imply
     * should take about 2 ms (so a good kernel runs 2-3 ms, far above launch overhead), in
     * steps of 512 from 1024 to 4096: 4096 on an H200 (67 TFLOP/s), 2048 on a T4 (8). */
    (void)task;
    const double peak = 2.0 * device_fp32_lanes_per_sm(d) * d->sm_count * d->sm_clock_khz * 1e3;
    long long n = (long long)(cbrt(peak * 2e-3 / 2.0) / 512.0 + 0.5) * 512;
    n = n < 1024 ? 1024 : n > 4096 ? 4096 : n;
    /* A, B, C, C's entry copy and the harness's saved copy of C; K <= 4096 keeps the speed
     * check's sums exact (dyadic_bound). */
    while (n > 512 && 5.0 * n * n * sizeof(float) > (double)sizing_memory_budget(d))
        n -= 512;
    if (d->emulated)
        n = 96; /* the CPU emulator checks correctness only; keep it quick */
    size[0] = size[1] = size[2] = n;
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double m = (double)size[0], n = (double)size[1], k = (double)size[2];
    f->work = 2.0 * m * n * k; /* one multiply and one add per term */
    f->device_bytes = (m * k + k * n + 2 * m * n) * sizeof(float); /* A, B, C, C's entry copy */
    f->working_set = f->device_bytes;
    f->output_bytes = m * n * sizeof(float);
    f->l2_multiple = 0; /* sized for time: the tiles live in shared memory and registers */
}

const lab_info lab_sgemm = {
    .number = "09",
    .name = "sgemm",
    .title = "SGEMM: from a naive kernel to the FMA roofline",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    /* cuBLAS by its calls, CUTLASS (cutlass::, cute::) and WMMA (nvcuda::) by the code their
     * headers leave in the object; the tensor-core and reduced-precision instructions
     * themselves are read from the PTX and the machine code. A kernel of the student's own
     * called wmma_like_tile, or a struct cutlass_tile, is theirs (grader/make/vet.sh). */
    .forbid_libraries = "cublas cutlass wmma",
    .forbid_about = "writing the matrix product yourself in plain fp32 FMAs",
    .forbid_ptx = "\\<(w|wg)?mma(\\.[a-z0-9_:]+)+|\\<tcgen05\\.[a-z0-9._:]+|\\<cvt\\.[a-z0-9.]*(tf32|f16|bf16|e4m3|e5m2)",
    .forbid_sass = "HMMA|HGMMA|IMMA|IGMMA|QGMMA|BMMA|DMMA|UTC[A-Z]*MMA",
    .threshold = 0.50,
    .hint_correct = "Each C[i][j] must be alpha * (row i of A . column j of B) + beta * C[i][j] (C is read, "
                    "then written). Check the edges: M, N, K need not be multiples of your tile: rows and "
                    "columns past the edge must not be stored, and k past K must contribute zero.",
    .hint_speed = "Each output needs K multiply-adds, but a thread that reads its row of A and column of B "
                  "from global memory does 1 FMA per 8 bytes. Stage BK-deep tiles of A and B in shared "
                  "memory, give each thread an 8x8 block of C in registers (8 + 8 shared loads feed 64 "
                  "FMAs), load with float4 and store A transposed (README steps 1-5; 6-7 reach cuBLAS).",
    .timeout_s = 120,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    /* How much slower the reference may run beside an honest student's process than alone
     * (tests/gpu/noise.sh): on an idle H200 at most 0.7% (1.7% in the noisiest lab); 5%, three times
     * that, since another program on the GPU adds its own. */
    .slowdown_noise = 0.05,
    .speed_size = speed_size,
    /* The estimate's second count (lab.h): half of each dimension */
    .count_scale = {0.5, 0.5, 0.5},
    .footprint = footprint,
};
