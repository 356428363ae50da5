/* transpose_tiles.cuh - lab 06's tiled transpose kernels, written once: the reference
 * (transpose.cu, its lesson in its opening comment) and ladder rungs 1 to 3 (steps/) launch
 * them with their own parameters:
 *   launch_tile32<PAD>     32 x 32 tiles of single floats, any shape: rung 1 (PAD 0), rung 2
 *                          and the reference's general path (PAD 1);
 *   launch_tile64<ORDER>   64 x 64 float4 tiles, XOR-swizzled, for sides that are multiples of
 *                          4: the reference (TILES_DOWN_COLUMNS) and rung 3 (TILES_ALONG_ROWS).
 * Each launches one block per tile over a 1-D grid (which has no 65535 limit). Everything here
 * is in an anonymous namespace: each file that includes it gets its own copy. */
#ifndef SOLUTIONS_TRANSPOSE_TILES_CUH
#define SOLUTIONS_TRANSPOSE_TILES_CUH

#include "transpose.h"
#include "check.h"

#include <stddef.h>

namespace {

/* ------------------------------------------------------------------------------------------ */
/* Fast path: rows % 4 == 0 and cols % 4 == 0                                                  */

#define TILE 64                      /* tile edge in floats: 256-byte row segments */
#define THREADS 256                  /* 8 warps */
#define VECS (TILE / 4)              /* float4 per tile row: 16 */
#define LOAD_ROWS (THREADS / VECS)   /* tile rows read per pass: 16 */
#define LOAD_PASSES (TILE / LOAD_ROWS) /* 4 float4 loads per thread */
#define STORE_PASSES (32 / (THREADS / 32)) /* 4 float4 stores per thread (see the store loop) */

/* Word of tile element (r, c) in shared memory. The 16-byte group of column c is XORed with
 * bits 2-4 of the row: a 16-byte group stays whole and aligned (float4 stores of a row stay
 * possible), and one 4-byte read of the write phase, in which a warp reads rows 4j+m
 * (j = 0..7, one m) of 4 neighbouring columns, finds those 8 rows in 8 different groups:
 * 8 groups x 4 columns = 32 different banks. */
__device__ __forceinline__ int swizzle(int r, int c)
{
    return r * TILE + (c ^ (r & 28));
}

/* The order in which blocks take tiles: which tiles are in flight together. */
enum TileOrder {
    TILES_DOWN_COLUMNS, /* the reference: the resident blocks write long runs of out's rows */
    TILES_ALONG_ROWS,   /* rung 3: the resident blocks read long runs of in's rows */
};

template <TileOrder ORDER>
__global__ void __launch_bounds__(THREADS)
transpose_tile64_vec4(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
                      int tiles_per_line)
{
    __shared__ __align__(16) float tile[TILE * TILE]; /* 16 KB */
    /* One tile per block; block b + 1 takes the next tile down a column of tiles_per_line
     * tiles, or along a row of tiles_per_line tiles (ORDER). */
    int tr, tc;
    if (ORDER == TILES_DOWN_COLUMNS)
        tc = blockIdx.x / tiles_per_line, tr = blockIdx.x - tc * tiles_per_line;
    else
        tr = blockIdx.x / tiles_per_line, tc = blockIdx.x - tr * tiles_per_line;
    const int r0 = tr * TILE, c0 = tc * TILE;

    /* Read: 16 threads cover a tile row (256 bytes), a warp two rows, the block 16 rows per
     * pass. All 4 loads are issued before any is used. */
    const int q = threadIdx.x % VECS, rq = threadIdx.x / VECS;
    const bool col_in = c0 + 4 * q < cols; /* cols % 4 == 0: a float4 is all in or all out */
    float4 v[LOAD_PASSES];
#pragma unroll
    for (int p = 0; p < LOAD_PASSES; p++) {
        const int r = r0 + rq + p * LOAD_ROWS;
        v[p] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (col_in && r < rows)
            v[p] = __ldcs((const float4 *)(in + (size_t)r * cols + c0 + 4 * q));
    }
    /* Park them: one 16-byte store per load. A quarter-warp (8 threads) writes 8 neighbouring
     * groups of one row, 8 different groups after the XOR: all 32 banks, no conflict. */
#pragma unroll
    for (int p = 0; p < LOAD_PASSES; p++)
        *(float4 *)&tile[swizzle(rq + p * LOAD_ROWS, 4 * q)] = v[p];
    __syncthreads();

    /* Write: a warp writes 4 rows of `out` (tile columns c .. c+3), 8 threads x 16 bytes =
     * 128 bytes each; thread (lane % 8) takes tile rows 4j .. 4j+3 of its column. Over the
     * 4 passes a warp covers 4 columns in full (both 32-row halves) and the 8 warps all 64. */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int p = 0; p < STORE_PASSES; p++) {
        const int job = warp + (THREADS / 32) * p;  /* 0 .. 31 */
        const int c = 4 * (job % 16) + lane / 8;    /* tile column = row of out */
        const int j = 8 * (job / 16) + lane % 8;    /* tile rows 4j .. 4j+3 = 4 floats of out */
        if (c0 + c < cols && r0 + 4 * j < rows) {
            float4 o;
            o.x = tile[swizzle(4 * j + 0, c)];
            o.y = tile[swizzle(4 * j + 1, c)];
            o.z = tile[swizzle(4 * j + 2, c)];
            o.w = tile[swizzle(4 * j + 3, c)];
            __stcs((float4 *)(out + (size_t)(c0 + c) * rows + r0 + 4 * j), o);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* General path: any shape                                                                     */

#define T32 32     /* tile edge */
#define T32_ROWS 8 /* a 32 x 8 block: each thread moves 4 elements */

/* PAD floats of padding per tile row: with 1, column k of the tile is in 32 different banks
 * (lab 02; the reference and rung 2); with 0, a column is in one bank (rung 1). */
template <int PAD>
__global__ void __launch_bounds__(T32 * T32_ROWS)
transpose_tile32(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
                 int tiles_c)
{
    __shared__ float tile[T32][T32 + PAD];
    const int tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
    const int r0 = tr * T32, c0 = tc * T32;
    const int x = threadIdx.x % T32, y = threadIdx.x / T32;
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* a warp reads one 128-byte row segment */
        const int r = r0 + y + k, c = c0 + x;
        if (r < rows && c < cols)
            tile[y + k][x] = __ldcs(in + (size_t)r * cols + c);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* ... and writes one of out */
        const int c = c0 + y + k, r = r0 + x;
        if (c < cols && r < rows)
            __stcs(out + (size_t)c * rows + r, tile[x][y + k]);
    }
}
template <TileOrder ORDER>
void launch_tile64(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const int tiles_r = (rows + TILE - 1) / TILE, tiles_c = (cols + TILE - 1) / TILE;
    const long long tiles = (long long)tiles_r * tiles_c;
    transpose_tile64_vec4<ORDER><<<(unsigned)tiles, THREADS, 0, stream>>>(
        out, in, rows, cols, ORDER == TILES_DOWN_COLUMNS ? tiles_r : tiles_c);
    CUDA_CHECK_LAUNCH();
}

template <int PAD>
void launch_tile32(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    const int tiles_c = (cols + T32 - 1) / T32;
    const long long tiles = (long long)((rows + T32 - 1) / T32) * tiles_c;
    transpose_tile32<PAD><<<(unsigned)tiles, T32 * T32_ROWS, 0, stream>>>(out, in, rows, cols,
                                                                          tiles_c);
    CUDA_CHECK_LAUNCH();
}

} /* namespace */

#endif
