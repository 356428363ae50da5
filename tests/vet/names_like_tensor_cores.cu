/* Honest: lab 09 names of the student's own that contain every word the lab's libraries use
 * (a kernel wmma_like_tile, a helper mma_sync_emulated, a struct cutlass_tile, nvcuda_free,
 * cublas_like): plain fp32 FMAs, no tensor-core instruction. */
#include "sgemm.h"
struct cutlass_tile {
    int rows, cols;
};
__device__ float mma_sync_emulated(float a, float b, float c) { return fmaf(a, b, c); }
__global__ void wmma_like_tile(int M, int N, int K, float alpha, const float *A, const float *B,
                               float beta, float *C, cutlass_tile t)
{
    const int i = blockIdx.y * t.rows + threadIdx.y, j = blockIdx.x * t.cols + threadIdx.x;
    if (i >= M || j >= N)
        return;
    float acc = 0.f;
    for (int k = 0; k < K; k++)
        acc = mma_sync_emulated(A[(size_t)i * K + k], B[(size_t)k * N + j], acc);
    C[(size_t)i * N + j] = alpha * acc + beta * C[(size_t)i * N + j];
}
static int nvcuda_free(void) { return 0; }
static dim3 cublas_like(int n) { return dim3((n + 15) / 16); }
void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
           cudaStream_t stream)
{
    const cutlass_tile t = {16, 16};
    wmma_like_tile<<<dim3(cublas_like(N).x, (M + 15) / 16), dim3(16, 16), nvcuda_free(), stream>>>(
        M, N, K, alpha, A, B, beta, C, t);
}
