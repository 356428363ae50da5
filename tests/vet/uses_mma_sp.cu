/* A sparse tensor-core instruction in inline PTX, behind an architecture guard: mma.sp must
 * be caught like mma (the PTX is read for compute_90, so the guarded code shows). */
#include "sgemm.h"
__global__ void k(float *c)
{
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    unsigned a0 = 0, a1 = 0, b0 = 0, b1 = 0, e = 0;
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6,%7}, {%0,%1,%2,%3}, %8, 0x0;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(e));
#endif
    c[threadIdx.x] = d0 + d1 + d2 + d3;
}
extern "C" void sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
                      float beta, float *C, cudaStream_t stream)
{
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta;
    k<<<1, 32, 0, stream>>>(C);
}
