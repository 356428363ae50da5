/* Cheat (or a bug that passes on a GPU most of the time): lab 09 double-buffered with cp.async
 * in inline PTX, as h54, but without the __syncthreads() after each slice is multiplied, to
 * save a barrier per slice. A warp that finishes a slice first then starts the copies that
 * refill the buffer other warps are still reading: the copies may land under their reads. The
 * CPU emulator sees each copy's write where it is issued, reports the data race with the
 * asynchronous copy named, and the check fails.
 * lab: sgemm
 * where: emu
 * expect: correct=FAIL
 * expect: log-has=asynchronous copy \(cp\.async\) issued at */
#include "sgemm.h"

#include <stdint.h>

#define BM 64
#define BN 64
#define BK 16

__device__ __forceinline__ unsigned shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* cp.async is sm_80 and later: before that, plain copies in the same order. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define NO_CP_ASYNC 1
#endif

__device__ __forceinline__ void commit_copies()
{
#ifndef NO_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* Wait until at most N of this thread's committed groups of copies are still in flight. */
template <int N>
__device__ __forceinline__ void wait_copies()
{
#ifndef NO_CP_ASYNC
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/* Four floats of a rows x cols row-major matrix, row r, columns c .. c+3, into dst[0..3];
 * zeros where they fall outside it. */
__device__ __forceinline__ void copy_run(float *dst, const float *m, int rows, int cols, int r,
                                         int c)
{
    const float *src = m + (long long)r * cols + c;
#ifdef NO_CP_ASYNC
    for (int j = 0; j < 4; j++)
        dst[j] = r < rows && c + j < cols ? src[j] : 0.0f;
    return;
#endif
    if (r < rows && c + 3 < cols && ((uintptr_t)src & 15) == 0) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)),
                     "l"(src));
        return;
    }
    for (int j = 0; j < 4; j++) {
        const bool inside = r < rows && c + j < cols;
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst + j)),
                     "l"(inside ? src + j : m), "r"(inside ? 4 : 0));
    }
}

__global__ void __launch_bounds__(256) cp_async_tiles(int M, int N, int K, float alpha,
                                                      const float *A, const float *B, float beta,
                                                      float *C)
{
    __shared__ __align__(16) float As[2][BM][BK];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int slices = (K + BK - 1) / BK;
    /* this thread's run of the A slice (row, 4 k) and of the B slice (k, 4 columns) */
    const int ar = tid / 4, ac = (tid % 4) * 4, br = tid / 16, bc = (tid % 16) * 4;
    float acc[4][4] = {};

    if (slices > 0) {
        copy_run(&As[0][ar][ac], A, M, K, row0 + ar, ac);
        copy_run(&Bs[0][br][bc], B, K, N, br, col0 + bc);
        commit_copies();
    }
    for (int s = 0; s < slices; s++) {
        const int cur = s & 1;
        if (s + 1 < slices) {
            const int k0 = (s + 1) * BK;
            copy_run(&As[cur ^ 1][ar][ac], A, M, K, row0 + ar, k0 + ac);
            copy_run(&Bs[cur ^ 1][br][bc], B, K, N, k0 + br, col0 + bc);
            commit_copies();
            wait_copies<1>(); /* slice s is in; s + 1 may still be on its way */
        } else {
            wait_copies<0>();
        }
        __syncthreads(); /* every thread's copies of slice s are in */
        for (int k = 0; k < BK; k++) {
            float a[4], b[4];
            for (int i = 0; i < 4; i++)
                a[i] = As[cur][ty * 4 + i][k];
            for (int j = 0; j < 4; j++)
                b[j] = Bs[cur][k][tx * 4 + j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        /* (no barrier here: the next slice's copies go into the buffer just read) */
    }
    for (int i = 0; i < 4; i++) {
        const int row = row0 + ty * 4 + i;
        for (int j = 0; j < 4; j++) {
            const int col = col0 + tx * 4 + j;
            if (row < M && col < N) {
                float *c = C + (long long)row * N + col;
                *c = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;
            }
        }
    }
}

void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
           float *C, cudaStream_t stream)
{
    dim3 block(16, 16), grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    cp_async_tiles<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}
