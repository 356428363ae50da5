/* Lab 06, rung 2: the same tile padded to float tile[32][33].
 *
 * Changed from rung 1: one float of padding per tile row. Why: element (x, k) is then word
 * 33x + k, bank (x + k) % 32, so a warp reading a column hits 32 different banks: one pass
 * instead of 32 (lab 02, "why +1 works"). The row writes stay conflict-free. This is the
 * classic transpose kernel; it works for any shape, and the reference keeps it for shapes whose
 * sides are not multiples of 4. What is left: 4-byte accesses and 4 loads per thread keep only
 * about 32 KB per SM in flight, short of what keeps HBM busy. */
#include "transpose.h"
#include "check.h"

namespace {

#define T32 32     /* tile edge */
#define T32_ROWS 8 /* a 32 x 8 block: each thread moves 4 elements */
#define PAD 1      /* floats of padding per tile row */

__global__ void __launch_bounds__(T32 * T32_ROWS)
transpose_tile32(float *__restrict__ out, const float *__restrict__ in, int rows, int cols,
                 int tiles_c)
{
    __shared__ float tile[T32][T32 + PAD];
    const int tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
    const int r0 = tr * T32, c0 = tc * T32;
    const int x = threadIdx.x % T32, y = threadIdx.x / T32;
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* a warp reads one 128-byte row segment of in */
        const int r = r0 + y + k, c = c0 + x;
        if (r < rows && c < cols)
            tile[y + k][x] = __ldcs(in + (size_t)r * cols + c);
    }
    __syncthreads(); /* the whole tile is in shared memory before anyone reads a column */
#pragma unroll
    for (int k = 0; k < T32; k += T32_ROWS) { /* ... and writes one row segment of out */
        const int c = c0 + y + k, r = r0 + x;
        if (c < cols && r < rows)
            __stcs(out + (size_t)c * rows + r, tile[x][y + k]); /* a column of the tile */
    }
}

} /* namespace */

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    /* One block per tile over a 1-D grid (which has no 65535 limit). */
    const int tiles_c = (cols + T32 - 1) / T32;
    const long long tiles = (long long)((rows + T32 - 1) / T32) * tiles_c;
    transpose_tile32<<<(unsigned)tiles, T32 * T32_ROWS, 0, stream>>>(out, in, rows, cols,
                                                                     tiles_c);
    CUDA_CHECK_LAUNCH();
}
