/* Honest: lab 09 double-buffered with cooperative groups' memcpy_async (cp.async on sm_80 and
 * later): while the block multiplies one 16 x 16 pair of tiles, the next pair is on its way
 * into the other buffers; cg::wait_prior<1> waits for the older copies only. Edge tiles (M, N
 * or K not a multiple of 16) are filled with zeros by plain stores.
 * lab: sgemm
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "sgemm.h"
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

#define T 16

/* Tile (r0, c0) of the rows x cols row-major matrix M into tile[T][T]: whole rows by
 * memcpy_async, rows that cross an edge element by element with zeros beyond it. */
__device__ void load_tile(cg::thread_block block, float (*tile)[T], const float *m, int rows,
                          int cols, int r0, int c0)
{
    for (int r = 0; r < T; r++) {
        const int gr = r0 + r;
        if (gr < rows && c0 + T <= cols) {
            cg::memcpy_async(block, tile[r], m + (long long)gr * cols + c0, sizeof(float) * T);
        } else if (threadIdx.y == 0) {
            const int c = threadIdx.x;
            tile[r][c] = gr < rows && c0 + c < cols ? m[(long long)gr * cols + c0 + c] : 0.0f;
        }
    }
}

__global__ void double_buffered(int M, int N, int K, float alpha, const float *A, const float *B,
                                float beta, float *C)
{
    __shared__ float As[2][T][T], Bs[2][T][T];
    cg::thread_block block = cg::this_thread_block();
    const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    const int tiles = (K + T - 1) / T;
    float acc = 0.0f;
    if (tiles > 0) {
        load_tile(block, As[0], A, M, K, row0, 0);
        load_tile(block, Bs[0], B, K, N, 0, col0);
    }
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1;
        if (t + 1 < tiles) {
            load_tile(block, As[cur ^ 1], A, M, K, row0, (t + 1) * T);
            load_tile(block, Bs[cur ^ 1], B, K, N, (t + 1) * T, col0);
            cg::wait_prior<1>(block); /* tile t has arrived; t + 1 may still be on its way */
        } else {
            cg::wait(block);
        }
        block.sync(); /* the plain stores of edge tiles too */
        for (int k = 0; k < T; k++)
            acc += As[cur][threadIdx.y][k] * Bs[cur][k][threadIdx.x];
        block.sync(); /* everyone is done with this buffer before it is refilled */
    }
    const int row = row0 + threadIdx.y, col = col0 + threadIdx.x;
    if (row < M && col < N) {
        float *c = C + (long long)row * N + col;
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    double_buffered<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
