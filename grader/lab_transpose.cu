/* lab_transpose.cu - lab 06's problem for the harness: inputs, calls, verification, sizes.
 *
 * out (cols x rows) = transpose of in (rows x cols), row-major. The data only moves, so the
 * output is compared bit for bit with the CPU's transpose. The ceiling is cudaMemcpy of the
 * same number of bytes, device to device: a transpose reads and writes every byte once, as a
 * copy does, and cannot do better than the copy engine's best path.
 *
 * The extra variants are the README's ladder (the textbook tiled kernels) and the reference's
 * fast kernel with one design choice changed each, so the bench shows what each one is worth. */
#include "harness.h"
#include "contracts/transpose.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_transpose; /* the table, lab_transpose.c */
extern "C" void ref_transpose(float *out, const float *in, int rows, int cols,
                              cudaStream_t stream);

typedef struct problem {
    int rows, cols;     /* shape of the input; the output is cols x rows */
    size_t n;           /* rows * cols */
    float *h_in;        /* host copy of the input */
    float *h_expected;  /* CPU transpose */
    float *h_got;       /* scratch for the downloaded output */
    dbuf in, out;       /* device buffers, guarded */
} problem;

/* ------------------------------------------------------------------------------------------ */
/* Bench-only ladder steps                                                                     */

/* The textbook kernel: 32 x 32 tiles, a 32 x 8 block, 4 floats per thread, any shape. PAD 0
 * is the tile whose columns are 32-way conflicted; PAD 1 the padded one (also the reference's
 * path for shapes that are not multiples of 4). */
template <int PAD>
__global__ void __launch_bounds__(256)
tile32_kernel(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
              int tiles_c)
{
    __shared__ float tile[32][32 + PAD];
    const int tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
    const int r0 = tr * 32, c0 = tc * 32;
    const int x = threadIdx.x % 32, y = threadIdx.x / 32;
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int r = r0 + y + k, c = c0 + x;
        if (r < rows && c < cols)
            tile[y + k][x] = __ldcs(in + (size_t)r * cols + c);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int c = c0 + y + k, r = r0 + x;
        if (c < cols && r < rows)
            __stcs(out + (size_t)c * rows + r, tile[x][y + k]);
    }
}

enum tile_order {
    ROW_MAJOR, /* tile column fastest: resident blocks read whole input rows between them */
    COL_MAJOR, /* the reference: tile row fastest, resident blocks write whole output rows */
    GROUPED    /* 8 tile rows at a time, column by column: ~2 KB runs on both sides */
};

__device__ __forceinline__ int swizzle64(int r, int c) { return r * 64 + (c ^ (r & 28)); }

/* The reference's fast kernel (solutions/06-transpose) with its design choices as parameters:
 * threads per block, the order of tiles over the grid, streaming cache hints, and the tile's
 * height (64 or 128 input rows: 256- or 512-byte runs in each output row). Needs rows and
 * cols multiples of 4. */
template <int THREADS, int ORDER, bool HINTS, int TILE_R>
__global__ void __launch_bounds__(THREADS)
tile64_vec4_kernel(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
                   int tiles_r, int tiles_c)
{
    constexpr int LOAD_ROWS = THREADS / 16, LOAD_PASSES = TILE_R / LOAD_ROWS;
    constexpr int WARPS = THREADS / 32, STORE_PASSES = 16 * (TILE_R / 32) / WARPS;
    __shared__ __align__(16) float tile[TILE_R * 64];
    int tr, tc;
    if (ORDER == ROW_MAJOR) {
        tr = blockIdx.x / tiles_c;
        tc = blockIdx.x - tr * tiles_c;
    } else if (ORDER == COL_MAJOR) {
        tc = blockIdx.x / tiles_r;
        tr = blockIdx.x - tc * tiles_r;
    } else {
        const int group = blockIdx.x / (8 * tiles_c), first = 8 * group;
        const int height = tiles_r - first < 8 ? tiles_r - first : 8;
        const int i = blockIdx.x - group * 8 * tiles_c;
        tc = i / height;
        tr = first + (i - tc * height);
    }
    const int r0 = tr * TILE_R, c0 = tc * 64;
    const int q = threadIdx.x % 16, rq = threadIdx.x / 16;
    const bool col_in = c0 + 4 * q < cols;
    float4 v[LOAD_PASSES];
#pragma unroll
    for (int p = 0; p < LOAD_PASSES; p++) {
        const int r = r0 + rq + p * LOAD_ROWS;
        v[p] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (col_in && r < rows) {
            const float4 *src = (const float4 *)(in + (size_t)r * cols + c0 + 4 * q);
            v[p] = HINTS ? __ldcs(src) : *src;
        }
    }
#pragma unroll
    for (int p = 0; p < LOAD_PASSES; p++)
        *(float4 *)&tile[swizzle64(rq + p * LOAD_ROWS, 4 * q)] = v[p];
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int p = 0; p < STORE_PASSES; p++) {
        const int job = warp + WARPS * p;
        const int c = 4 * (job % 16) + lane / 8;
        const int j = 8 * (job / 16) + lane % 8;
        if (c0 + c < cols && r0 + 4 * j < rows) {
            float4 o;
            o.x = tile[swizzle64(4 * j + 0, c)];
            o.y = tile[swizzle64(4 * j + 1, c)];
            o.z = tile[swizzle64(4 * j + 2, c)];
            o.w = tile[swizzle64(4 * j + 3, c)];
            float4 *dst = (float4 *)(out + (size_t)(c0 + c) * rows + r0 + 4 * j);
            if (HINTS)
                __stcs(dst, o);
            else
                *dst = o;
        }
    }
}

template <int PAD>
static void launch_tile32(float *out, const float *in, int rows, int cols, cudaStream_t s)
{
    const int tiles_c = (cols + 31) / 32;
    const long long tiles = (long long)((rows + 31) / 32) * tiles_c;
    tile32_kernel<PAD><<<(unsigned)tiles, 256, 0, s>>>(out, in, rows, cols, tiles_c);
    CUDA_CHECK_LAUNCH();
}

template <int THREADS, int ORDER, bool HINTS, int TILE_R = 64>
static void launch_tile64(float *out, const float *in, int rows, int cols, cudaStream_t s)
{
    if (rows % 4 || cols % 4)
        fatal("lab transpose: the float4 variants need rows and cols multiples of 4");
    const int tiles_r = (rows + TILE_R - 1) / TILE_R, tiles_c = (cols + 63) / 64;
    const long long tiles = (long long)tiles_r * tiles_c;
    tile64_vec4_kernel<THREADS, ORDER, HINTS, TILE_R>
        <<<(unsigned)tiles, THREADS, 0, s>>>(out, in, rows, cols, tiles_r, tiles_c);
    CUDA_CHECK_LAUNCH();
}

/* The reference hands out its 64 x 64 tiles column by column (COL_MAJOR). The float4 steps
 * below differ from it in the order of tiles, and, for the last three, in one more choice. */
static const char *const extras[] = {
    "tiled 32x32, [32][32]",
    "tiled 32x32, [32][33]",
    "64x64 float4, row order",
    "64x64 float4, grouped order",
    "64x64 f4, row order, no hints",
    "64x64 f4, row order, 128 thr",
    "128x64 f4, row order",
};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                     */

/* Transpose in 64 x 64 blocks, so that both sides stay in the CPU's caches. */
static void cpu_transpose(float *out, const float *in, int rows, int cols)
{
    for (int rb = 0; rb < rows; rb += 64)
        for (int cb = 0; cb < cols; cb += 64) {
            const int re = rb + 64 < rows ? rb + 64 : rows, ce = cb + 64 < cols ? cb + 64 : cols;
            for (int r = rb; r < re; r++)
                for (int c = cb; c < ce; c++)
                    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
        }
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    p->n = (size_t)p->rows * p->cols;
    p->h_in = (float *)xmalloc(p->n * sizeof(float));
    p->h_expected = (float *)xmalloc(p->n * sizeof(float));
    p->h_got = (float *)xmalloc(p->n * sizeof(float));
    fill_uniform_f32(p->h_in, p->n, rng_derive(seed, 1), -1.f, 1.f);
    cpu_transpose(p->h_expected, p->h_in, p->rows, p->cols);
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
    const int R = p->rows, C = p->cols;
    switch (impl) {
    case IMPL_STUDENT: transpose(out, in, R, C, s); break;
    case IMPL_REFERENCE: ref_transpose(out, in, R, C, s); break;
    case IMPL_CEILING: /* the same bytes read and written, by the copy engine's best path */
        CUDA_CHECK(cudaMemcpyAsync(out, in, p->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        break;
    case IMPL_EXTRA + 0: launch_tile32<0>(out, in, R, C, s); break;
    case IMPL_EXTRA + 1: launch_tile32<1>(out, in, R, C, s); break;
    case IMPL_EXTRA + 2: launch_tile64<256, ROW_MAJOR, true>(out, in, R, C, s); break;
    case IMPL_EXTRA + 3: launch_tile64<256, GROUPED, true>(out, in, R, C, s); break;
    case IMPL_EXTRA + 4: launch_tile64<256, ROW_MAJOR, false>(out, in, R, C, s); break;
    case IMPL_EXTRA + 5: launch_tile64<128, ROW_MAJOR, true>(out, in, R, C, s); break;
    case IMPL_EXTRA + 6: launch_tile64<256, ROW_MAJOR, true, 128>(out, in, R, C, s); break;
    default: fatal("lab transpose: no implementation %d", impl);
    }
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    harness_check_exact(&p->out, p->h_expected, p->n, p->h_got, v);
    v->cols = (size_t)p->rows; /* a row of the output is `rows` long */
    harness_check_input(&p->in, p->h_in, p->n * sizeof(float), v);
}

static double work(const void *vp)
{
    const problem *p = (const problem *)vp;
    return 2.0 * p->n * sizeof(float); /* each element read once and written once */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d x %d", p->rows, p->cols);
}

static void speed_size(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* A square matrix of at least 16x the L2 (16384 x 16384 on an H200's 60 MB), its side a
     * multiple of 1024, input and output within the harness's memory budget. */
    long long side = 1024;
    while ((size_t)side * side * sizeof(float) < 16 * d->l2_bytes)
        side += 1024;
    while (side > 1024 && 2 * (size_t)side * side * sizeof(float) > harness_memory_budget(d))
        side -= 1024;
    if (d->emulated)
        side = 256;
    size[0] = side;
    size[1] = side;
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 1200);
    size[1] = rng_range(r, 1, 1200);
    switch (rng_range(r, 0, 3)) {
    case 0: /* both multiples of 4, not of 64: the paths that use 16-byte accesses */
        size[0] = 4 * rng_range(r, 1, 300);
        size[1] = 4 * rng_range(r, 1, 300);
        break;
    case 1: /* a tile's edge plus or minus one */
        size[0] = 32 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
        break;
    default: /* as drawn */
        break;
    }
}

const lab_info *const harness_lab = &lab_transpose;
const lab_task harness_tasks[] = {
    {"transpose", "GB/s", "cudaMemcpy D2D", 0, extras, (int)(sizeof extras / sizeof extras[0]),
     create, destroy, prepare, run, verify, work, describe, speed_size, hidden_size, NULL},
};
const int harness_n_tasks = 1;
