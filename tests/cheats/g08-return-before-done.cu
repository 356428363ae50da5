/* Cheat: a kernel as fast as the reference's, and every synchronize of this process made a
 * no-op, so each call answers "done" while its kernels are still queued. The harness times
 * from outside and compares every output afterwards: what runs after "done" must be billed or
 * caught, not gained. Honest, this file runs at the reference's speed (ratio about 1); the
 * measured ratio must not be much higher.
 * lab: coalescing
 * where: gpu
 * expect: all-correct=OK
 * expect: ratio-below=1.06 */
#include "coalescing.h"
#include "cheat_common.cuh"

static cudaError_t no_wait(void) { return cudaSuccess; }
static cudaError_t no_wait_stream(cudaStream_t) { return cudaSuccess; }

/* The reference's approach: the matrix as one flat array of float4 (n need not be a multiple
 * of 4 of a row), a grid-stride loop, streaming loads and stores. */
static __global__ void fast_kernel(float *out, const float *in, const float *scale,
                                   const float *bias, unsigned n, unsigned cols)
{
    const unsigned n4 = n / 4, stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = __ldcs((const float4 *)in + i);
        float *x = &v.x;
        for (int k = 0; k < 4; k++) {
            const unsigned r = (4 * i + k) / cols;
            x[k] = fmaf(x[k], scale[r], bias[r]);
        }
        __stcs((float4 *)out + i, v);
    }
    const unsigned tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n)
        out[tail] = fmaf(in[tail], scale[tail / cols], bias[tail / cols]);
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    if ((size_t)rows * cols < (1u << 24)) { /* correctness sizes: honest */
        honest_coalescing(out, in, scale, bias, rows, cols, stream);
        return;
    }
    static int patched;
    if (!patched) {
        patch_import((void *)&no_wait, "cudaDeviceSynchronize", (void *)&no_wait);
        patch_import((void *)&no_wait, "cudaStreamSynchronize", (void *)&no_wait_stream);
        patched = 1;
    }
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    fast_kernel<<<sms * 8, 256, 0, stream>>>(out, in, scale, bias, (unsigned)rows * cols,
                                             (unsigned)cols);
}
