/* Honest: lab 01 in another style: cooperative groups for the indexing (the grid's rank and
 * size), a workspace allocated on the first call and reused (the row gains packed as float2
 * pairs, staged by a kernel of its own), its own stream and event joined back to the caller's
 * stream, and a host-side check of the last launch. Correct and coalesced.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"
#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;

static float2 *g_gains;     /* workspace: (scale, bias) per row */
static size_t g_gains_rows; /* rows it holds */

__global__ void pack_gains(float2 *gains, const float *scale, const float *bias, int rows)
{
    const cg::grid_group grid = cg::this_grid();
    for (unsigned long long r = grid.thread_rank(); r < (unsigned long long)rows; r += grid.size())
        gains[r] = make_float2(scale[r], bias[r]);
}

__global__ void apply_gains(float *out, const float *in, const float2 *gains, int rows, int cols)
{
    const cg::grid_group grid = cg::this_grid();
    const unsigned long long n = (unsigned long long)rows * cols;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) {
        const float2 g = gains[i / cols];
        out[i] = in[i] * g.x + g.y;
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    if ((size_t)rows > g_gains_rows) { /* grow the workspace; keep it between calls */
        cudaStreamSynchronize(stream);
        cudaFree(g_gains);
        cudaMalloc(&g_gains, (size_t)rows * sizeof(float2));
        g_gains_rows = (size_t)rows;
    }
    cudaStream_t side;
    cudaEvent_t staged;
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&staged, cudaEventDisableTiming);
    cudaEvent_t start;
    cudaEventCreateWithFlags(&start, cudaEventDisableTiming);
    cudaEventRecord(start, stream); /* the side stream starts after what is queued */
    cudaStreamWaitEvent(side, start, 0);
    pack_gains<<<(rows + 255) / 256, 256, 0, side>>>(g_gains, scale, bias, rows);
    cudaEventRecord(staged, side);
    cudaStreamWaitEvent(stream, staged, 0);
    int sms = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    apply_gains<<<sms * 8, 256, 0, stream>>>(out, in, g_gains, rows, cols);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "coalescing: launch failed: %s\n", cudaGetErrorString(e));
    cudaEventDestroy(start);
    cudaEventDestroy(staged);
    cudaStreamDestroy(side);
}
