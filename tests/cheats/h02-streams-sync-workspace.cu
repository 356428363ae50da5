/* Honest: a correct lab 01 solution in another style: its own stream and event, a workspace
 * allocated on the first call and reused, a synchronize before returning. Must be graded as
 * correct.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK */
#include "coalescing.h"
#include "cheat_common.cuh"

static float *workspace; /* kept across calls: the grader's worker lives across them */
static size_t workspace_floats;

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if (workspace_floats < (size_t)rows) {
        cudaFree(workspace);
        cudaMalloc(&workspace, rows * sizeof(float));
        workspace_floats = rows;
    }
    cudaStream_t mine;
    cudaEvent_t ready;
    cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaEventRecord(ready, stream);
    cudaStreamWaitEvent(mine, ready, 0);
    cudaMemcpyAsync(workspace, scale, rows * sizeof(float), cudaMemcpyDeviceToDevice, mine);
    honest_coalescing(out, in, workspace, bias, rows, cols, mine);
    cudaStreamSynchronize(mine);
    cudaEventDestroy(ready);
    cudaStreamDestroy(mine);
}
