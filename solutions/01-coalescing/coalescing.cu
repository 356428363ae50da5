/* Lab 01 - global-memory coalescing: REFERENCE SOLUTION.
 *
 * out[r][c] = in[r][c] * scale[r] + bias[r] (contract: grader/labs/01-coalescing/coalescing.h).
 *
 * The matrix is row-major, so the whole thing is one contiguous array of rows*cols floats.
 * Consecutive threads take consecutive 16-byte chunks (float4) of that array: a warp's load
 * is 32 x 16 = 512 contiguous bytes, four full 128-byte lines, every byte of every sector
 * used. Each thread keeps UNROLL independent float4 loads in flight before it uses the first,
 * so there are enough bytes in flight per SM to cover DRAM latency (Little's law; lab 04).
 * The row of an element is recomputed from its flat index, which costs a few integer
 * instructions per 16 bytes: cheap next to the memory time, and it makes odd row lengths free. */
#include "coalescing.h"
#include "check.h"

#define THREADS 256 /* 8 warps per block; 8 blocks fill an SM's 2048 thread slots */
#define UNROLL 4    /* float4 loads in flight per thread: 64 bytes */

/* Apply row gains to the four consecutive elements e .. e+3 held in v (all < n). */
template <typename Index>
__device__ __forceinline__ float4 scale_quad(float4 v, Index e, Index cols,
                                             const float *__restrict__ scale,
                                             const float *__restrict__ bias)
{
    Index r = e / cols, c = e - r * cols;
    float s = __ldg(scale + r), b = __ldg(bias + r);
    float *x = &v.x;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        x[k] = fmaf(x[k], s, b);
        if (k < 3 && ++c == cols) { /* the quad crosses into the next row */
            c = 0;
            ++r;
            s = __ldg(scale + r);
            b = __ldg(bias + r);
        }
    }
    return v;
}

/* Index is 32-bit when the matrix has fewer than 2^32 elements: 64-bit division is a long
 * software sequence on the GPU, 32-bit a short one. */
template <typename Index>
__global__ void __launch_bounds__(THREADS)
scale_rows_vec4(float4 *__restrict__ out, const float4 *__restrict__ in,
                const float *__restrict__ scale, const float *__restrict__ bias, Index n,
                Index cols)
{
    const Index n4 = n / 4;
    const Index stride = (Index)gridDim.x * THREADS;
    Index i = (Index)blockIdx.x * THREADS + threadIdx.x;
    /* Main loop: UNROLL independent loads first, then the math and the stores. Streaming
     * hints (.cs: evict first) keep this once-touched data from displacing anything in L2. */
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            v[k] = __ldcs(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            __stcs(out + i + k * stride, scale_quad<Index>(v[k], 4 * (i + k * stride), cols,
                                                           scale, bias));
    }
    for (; i < n4; i += stride)
        __stcs(out + i, scale_quad<Index>(__ldcs(in + i), 4 * i, cols, scale, bias));
    /* The last n % 4 elements, one thread each. */
    const Index tail = 4 * n4 + (Index)blockIdx.x * THREADS + threadIdx.x;
    if (tail < n) {
        const Index r = tail / cols;
        ((float *)out)[tail] = fmaf(((const float *)in)[tail], scale[r], bias[r]);
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    /* A grid-stride loop over a grid that fills the device once (resident blocks per SM x
     * SMs): no tail of partly-filled waves, and each thread has several chunks to pipeline. */
    static int blocks = 0;
    if (blocks == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale_rows_vec4<unsigned>,
                                                                 THREADS, 0));
        blocks = sms * (per_sm > 0 ? per_sm : 1);
    }
    const unsigned long long n = (unsigned long long)rows * cols;
    const unsigned long long needed = (n / 4 + THREADS - 1) / THREADS + 1;
    const int grid = needed < (unsigned long long)blocks ? (int)needed : blocks;
    if (n < (1ull << 32))
        scale_rows_vec4<unsigned><<<grid, THREADS, 0, stream>>>(
            (float4 *)out, (const float4 *)in, scale, bias, (unsigned)n, (unsigned)cols);
    else
        scale_rows_vec4<unsigned long long><<<grid, THREADS, 0, stream>>>(
            (float4 *)out, (const float4 *)in, scale, bias, n, (unsigned long long)cols);
    CUDA_CHECK_LAUNCH();
}
