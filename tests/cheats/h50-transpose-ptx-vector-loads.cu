/* Honest: lab 06 with inline PTX: a 32 x 32 tile through shared memory, each thread of a row
 * of the tile reading four neighbours with one ld.global.nc.v4.f32 where the row allows it
 * (cols a multiple of 4: every such load is 16-byte aligned) and ld.global.nc.f32 one by one
 * elsewhere; stores with st.global.f32.
 * lab: transpose
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "transpose.h"

#define TILE 32

__device__ __forceinline__ float load_nc(const float *p)
{
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void tile_transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    /* 8 threads per row of the tile, four columns each; 32 / 4 rows per pass */
    const int tc = (threadIdx.x % 8) * 4, tr = threadIdx.x / 8;
    for (int r = tr; r < TILE; r += 32) {
        const int gr = r0 + r, gc = c0 + tc;
        if (gr >= rows)
            continue;
        const float *p = in + (long long)gr * cols + gc;
        if (cols % 4 == 0 && gc + 3 < cols) {
            float4 v;
            asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
            tile[r][tc] = v.x;
            tile[r][tc + 1] = v.y;
            tile[r][tc + 2] = v.z;
            tile[r][tc + 3] = v.w;
        } else {
            for (int k = 0; k < 4 && gc + k < cols; k++)
                tile[r][tc + k] = load_nc(p + k);
        }
    }
    __syncthreads();
    /* out is cols x rows: row c of out holds column c of in */
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
        const int oc = i % TILE, orow = i / TILE; /* oc: along out's row (in's row index) */
        const int gr = r0 + oc, gc = c0 + orow;
        if (gr < rows && gc < cols) {
            float *q = out + (long long)gc * rows + gr;
            asm volatile("st.global.f32 [%0], %1;" ::"l"(q), "f"(tile[oc][orow]) : "memory");
        }
    }
}

void transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    tile_transpose<<<grid, 256, 0, stream>>>(out, in, rows, cols);
}
