/* lab_reduction.cu - lab 07's problem for the harness: inputs, calls, verification, sizes,
 * the CUB ceiling and the classic ladder of kernels (make bench).
 *
 * *result = in[0] + ... + in[n-1]. Inputs are uniform in [-0.5, 1): mixed signs, and a mean of
 * 0.25 so that the sum grows with n (with a zero mean the sum is a random walk near 0 and a
 * relative check says little). Verified against a double-precision sum with the bound below.
 *
 * The error bound. Any order of float additions is a binary tree over the n inputs; if no
 * input passes through more than d additions, |computed - exact| <= d u sum|x_i| to first
 * order, u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2). A
 * pure tree has d = ceil(log2 n). GPU reductions are trees of serial chains (each thread
 * accumulates its own elements, then warp, block and grid trees), so their worst case d is
 * larger, but rounding errors of such chains are close to independent and grow like sqrt(d),
 * not d (Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019). The grader allows
 *
 *     |got - exact| <= 4 u (ceil(log2 n) + 2) sum|x_i|
 *
 * The orders of the skeleton, of the reference (H200 grid) and of one serial accumulator per
 * thread for 1024 or 40960 threads, replayed in float32 on the CPU on these inputs (n = 33,
 * 65537, 2^24 + 43, 2^28 + 3), land at 1e-4 to 3e-2 of the bound; most of that is the final
 * rounding of the sum to a float. A single serial chain passes up to n = 2^24 (0.4 of the
 * bound) and fails at 2^28 (a float accumulator near 6.7e7 can no longer add 0.25). The bound
 * fails a dropped or doubled element up to n = 65537 (4x the bound), a dropped block of 256
 * at n = 2^24, and 1% of the input at any size; one element among 10^8 it cannot see, and no
 * float32 check can: the sum's own rounding (half an ulp of 6.7e7 is 4) is larger. */
#include "harness.h"
#include "contracts/reduction.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#if !defined(CUDA_EMU)
#include <cub/device/device_reduce.cuh>
#endif

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_reduction; /* the table, lab_reduction.c */
extern "C" void ref_reduction(float *result, const float *in, long long n, float *scratch,
                              cudaStream_t stream);

typedef struct problem {
    long long n;         /* elements */
    float *h_in;         /* host copy of the input */
    double expected;     /* sum of the inputs in double precision */
    double abs_sum;      /* sum of |input|: the scale of the rounding error */
    double tol;          /* allowed |error| / abs_sum (see the bound above) */
    float h_got;         /* the downloaded result */
    size_t scratch_bytes;/* reduction_scratch_floats(n) floats */
    dbuf in, result, scratch; /* device buffers, guarded */
    void *cub_temp;      /* CUB's temporary storage for the ceiling (not in emulation) */
    size_t cub_bytes;    /* its size */
} problem;

/* ------------------------------------------------------------------------------------------ */
/* The ladder (make bench): Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
 * 2007), kernels 2 to 7, written for today's GPUs (warp shuffles instead of volatile shared
 * memory in the last warp: since Volta a warp's lanes are not guaranteed to run in lockstep).
 * Kernel 1 is the skeleton (labs/07-reduction/reduction.cu); the reference is step 8. */

#define LT 256 /* threads per block of every ladder kernel */

__device__ __forceinline__ float ladder_warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* 2: interleaved addressing, strided index. No `%` and no divergence inside the active
 * warps, but thread t touches word 2*s*t: at s = 16 a warp's 32 accesses fall in 2 banks. */
__global__ void step2_strided_index(float *out, const float *in, long long n)
{
    __shared__ float sdata[LT];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* 3: sequential addressing. Active threads are the low ones (whole warps retire) and read
 * consecutive words (conflict-free). Half the threads are idle from the first level on. */
__global__ void step3_sequential(float *out, const float *in, long long n)
{
    __shared__ float sdata[LT];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* 4: first add during load. Each thread loads two elements and adds them: half the blocks,
 * every thread busy at the first level, two loads in flight per thread. */
__global__ void step4_first_add(float *out, const float *in, long long n)
{
    __shared__ float sdata[LT];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * blockDim.x) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* 5: the last warp by shuffles. Below 64 values one warp does the work: registers and
 * __shfl_down_sync, no shared memory and no block-wide barrier for the last 5 levels. */
__global__ void step5_last_warp(float *out, const float *in, long long n)
{
    __shared__ float sdata[LT];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * blockDim.x) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        const float v = ladder_warp_sum(sdata[tid] + sdata[tid + 32]);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* 6: completely unrolled. The block size is a template parameter, so the loop over levels
 * and its tests disappear at compile time. */
template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) step6_unrolled(float *out, const float *in, long long n)
{
    __shared__ float sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (2 * BLOCK) + tid;
    sdata[tid] = (i < n ? in[i] : 0.0f) + (i + BLOCK < n ? in[i + BLOCK] : 0.0f);
    __syncthreads();
#pragma unroll
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        const float v = ladder_warp_sum(sdata[tid] + sdata[tid + 32]);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* 7: multiple elements per thread. A grid that fills the GPU once, a grid-stride loop of
 * scalar loads, a block sum by shuffles; a second launch of one block adds the partials. */
__global__ void __launch_bounds__(LT) step7_grid_stride(float *out, const float *in, long long n)
{
    __shared__ float warp_sums[LT / 32];
    float sum = 0.0f;
    for (long long i = (long long)blockIdx.x * LT + threadIdx.x; i < n;
         i += (long long)gridDim.x * LT)
        sum += in[i];
    sum = ladder_warp_sum(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = ladder_warp_sum(threadIdx.x < LT / 32 ? warp_sums[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0)
            out[blockIdx.x] = sum;
    }
}

typedef void (*pass_kernel)(float *, const float *, long long);

/* Steps 2-6: one launch per tree level, each block reducing `per_block` elements, partial
 * sums ping-ponging in scratch (the same layout as the skeleton's). */
static void run_multipass(pass_kernel kernel, long long per_block, float *result, const float *in,
                          long long n, float *scratch, cudaStream_t s)
{
    float *level[2] = {scratch, scratch + (n + 255) / 256};
    const float *src = in;
    long long m = n;
    int pass = 0;
    do {
        const long long blocks = (m + per_block - 1) / per_block;
        float *dst = blocks == 1 ? result : level[pass & 1];
        kernel<<<(unsigned)blocks, LT, 0, s>>>(dst, src, m);
        CUDA_CHECK_LAUNCH();
        src = dst;
        m = blocks;
        pass++;
    } while (m > 1);
}

static void run_step7(float *result, const float *in, long long n, float *scratch,
                      cudaStream_t s)
{
    static int full = 0;
    if (full == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, step7_grid_stride, LT, 0));
        full = sms * (per_sm > 0 ? per_sm : 1);
    }
    const long long wanted = (n + LT - 1) / LT;
    const int grid = (int)(wanted < full ? wanted : full);
    step7_grid_stride<<<grid, LT, 0, s>>>(grid == 1 ? result : scratch, in, n);
    CUDA_CHECK_LAUNCH();
    if (grid > 1) {
        step7_grid_stride<<<1, LT, 0, s>>>(result, scratch, grid);
        CUDA_CHECK_LAUNCH();
    }
}

static const char *const extras[] = {
    "2 strided index (no %)",  "3 sequential addressing", "4 first add during load",
    "5 last warp by shuffles", "6 completely unrolled",   "7 grid-stride, 2 passes",
};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                    */

static int ceil_log2(long long n)
{
    int k = 0;
    while ((1ll << k) < n)
        k++;
    return k;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->n = size[0];
    const size_t bytes = (size_t)p->n * sizeof(float);
    p->h_in = (float *)xmalloc(bytes);
    fill_uniform_f32(p->h_in, (size_t)p->n, rng_derive(seed, 1), -0.5f, 1.0f);
    /* Double precision, in blocks of 1024 (the block sums are added in double again): its own
     * error is about 1e-13 of sum|x|, a millionth of the tolerance. */
    double sum = 0.0, abs_sum = 0.0;
    for (long long b = 0; b < p->n; b += 1024) {
        const long long e = b + 1024 < p->n ? b + 1024 : p->n;
        double s = 0.0, a = 0.0;
        for (long long i = b; i < e; i++) {
            s += p->h_in[i];
            a += fabs((double)p->h_in[i]);
        }
        sum += s;
        abs_sum += a;
    }
    p->expected = sum;
    p->abs_sum = abs_sum;
    p->tol = 4.0 * 0x1p-24 * (ceil_log2(p->n) + 2);
    p->scratch_bytes = (size_t)reduction_scratch_floats(p->n) * sizeof(float);
    dbuf_alloc(&p->in, bytes);
    dbuf_alloc(&p->result, sizeof(float));
    dbuf_alloc(&p->scratch, p->scratch_bytes);
    dbuf_upload(&p->in, p->h_in, bytes);
#if !defined(CUDA_EMU)
    /* CUB's temporary storage, sized by CUB itself and allocated here, outside any timing. */
    if (p->n <= INT_MAX)
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, (const float *)p->in.data,
                                          (float *)p->result.data, (int)p->n));
    else
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, (const float *)p->in.data,
                                          (float *)p->result.data, p->n));
    CUDA_CHECK(cudaMalloc(&p->cub_temp, p->cub_bytes ? p->cub_bytes : 1));
#endif
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->result);
    dbuf_free(&p->scratch);
    if (p->cub_temp)
        CUDA_CHECK(cudaFree(p->cub_temp));
    free(p->h_in);
    free(p);
}

static void prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    problem *p = (problem *)vp;
    dbuf_poison(&p->result, s);
    /* The contract promises zeroed scratch (a one-pass kernel keeps a counter there). */
    CUDA_CHECK(cudaMemsetAsync(p->scratch.data, 0, p->scratch_bytes, s));
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    float *result = (float *)p->result.data, *scratch = (float *)p->scratch.data;
    const float *in = (const float *)p->in.data;
    switch (impl) {
    case IMPL_STUDENT:
        reduction(result, in, p->n, scratch, s);
        break;
    case IMPL_REFERENCE:
        ref_reduction(result, in, p->n, scratch, s);
        break;
#if !defined(CUDA_EMU)
    case IMPL_CEILING: /* the library's best: CUB, the same bytes read */
        if (p->n <= INT_MAX)
            CUDA_CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_bytes, in, result, (int)p->n, s));
        else
            CUDA_CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_bytes, in, result, p->n, s));
        break;
#endif
    case IMPL_EXTRA + 0:
        run_multipass(step2_strided_index, LT, result, in, p->n, scratch, s);
        break;
    case IMPL_EXTRA + 1:
        run_multipass(step3_sequential, LT, result, in, p->n, scratch, s);
        break;
    case IMPL_EXTRA + 2:
        run_multipass(step4_first_add, 2 * LT, result, in, p->n, scratch, s);
        break;
    case IMPL_EXTRA + 3:
        run_multipass(step5_last_warp, 2 * LT, result, in, p->n, scratch, s);
        break;
    case IMPL_EXTRA + 4:
        run_multipass(step6_unrolled<LT>, 2 * LT, result, in, p->n, scratch, s);
        break;
    case IMPL_EXTRA + 5:
        run_step7(result, in, p->n, scratch, s);
        break;
    default:
        fatal("lab reduction: no implementation %d", impl);
    }
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    harness_check_close(&p->result, &p->expected, &p->abs_sum, 1, p->tol, 0.0, &p->h_got, v);
    long long at = 0;
    if (!dbuf_guards_intact(&p->scratch, &at))
        snprintf(v->problem, sizeof v->problem,
                 "wrote outside the scratch buffer (byte %lld of %zu): it holds "
                 "reduction_scratch_floats(n) floats",
                 at, p->scratch_bytes);
    harness_check_input(&p->in, p->h_in, (size_t)p->n * sizeof(float), v);
}

static double work(const void *vp)
{
    return (double)((const problem *)vp)->n * sizeof(float); /* bytes read */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    if (p->n >= (1ll << 20))
        snprintf(buf, len, "n=%lld (%.0f MiB)", p->n, p->n * 4.0 / (1 << 20));
    else
        snprintf(buf, len, "n=%lld", p->n);
}

static void speed_size(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* At least 2^28 floats (1 GiB) and 8x the L2, so no call finds its input in cache; plus 3,
     * so the timed case has a ragged end like the visible ones. One call then takes about 250
     * microseconds on an H200, far above launch overhead. */
    size_t bytes = (size_t)1 << 30;
    if (bytes < 8 * d->l2_bytes)
        bytes = 8 * d->l2_bytes;
    const size_t budget = harness_memory_budget(d);
    if (bytes + bytes / 64 > budget) /* input plus scratch */
        bytes = budget / 65 * 64;
    if (d->emulated)
        bytes = (size_t)1 << 22;
    size[0] = (long long)(bytes / sizeof(float)) + 3;
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    long long n;
    switch (rng_range(r, 0, 3)) {
    case 0: /* tiny: less than a few warps */
        n = rng_range(r, 1, 100);
        break;
    case 1: /* a power of two, or one off it */
        n = (1ll << rng_range(r, 5, 24)) + rng_range(r, -1, 1);
        break;
    case 2: /* a multiple of a block, a few off it */
        n = 256 * rng_range(r, 1, 40000) + rng_range(r, -3, 3);
        break;
    default:
        n = rng_range(r, 1, 1ll << 24);
    }
    size[0] = n < 1 ? 1 : n;
}

const lab_info *const harness_lab = &lab_reduction;
const lab_task harness_tasks[] = {
    {"reduction", "GB/s", "CUB DeviceReduce::Sum", 0, extras,
     (int)(sizeof extras / sizeof extras[0]), create, destroy, prepare, run, verify, work,
     describe, speed_size, hidden_size, NULL},
};
const int harness_n_tasks = 1;
