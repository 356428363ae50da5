/* devcheck.cu - inputs made and outputs checked on the device. See devcheck.h. */
#include "devcheck.h"
#include "check.h"

#include <math.h>
#include <string.h>

__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned grid_for(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return (unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

__global__ void fill_f32_kernel(float *x, size_t n, uint64_t seed, float lo, float hi,
                                float step)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double u = (double)(mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1)) >> 11) * 0x1p-53;
        double v = lo + (hi - lo) * u;
        if (step > 0)
            v = floor(v / step) * step;
        x[i] = (float)v;
    }
}

__global__ void fill_u32_kernel(unsigned *x, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = (unsigned)(mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1)) >> 32);
}

struct choice16 {
    float v[16];
};

__global__ void fill_choice_kernel(float *x, size_t n, uint64_t seed, choice16 c, int count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = c.v[(mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1)) >> 33) % (unsigned)count];
}

void dev_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi, float step,
                  cudaStream_t s)
{
    fill_f32_kernel<<<grid_for(n), 256, 0, s>>>(x, n, seed, lo, hi, step);
    CUDA_CHECK_LAUNCH();
}

void dev_fill_u32(unsigned *x, size_t n, uint64_t seed, cudaStream_t s)
{
    fill_u32_kernel<<<grid_for(n), 256, 0, s>>>(x, n, seed);
    CUDA_CHECK_LAUNCH();
}

void dev_fill_choice_f32(float *x, size_t n, uint64_t seed, const float *values, int count,
                         cudaStream_t s)
{
    choice16 c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < count && i < 16; i++)
        c.v[i] = values[i];
    fill_choice_kernel<<<grid_for(n), 256, 0, s>>>(x, n, seed, c, count < 1 ? 1 : count > 16 ? 16 : count);
    CUDA_CHECK_LAUNCH();
}

/* One atomic per block, not per thread: a million threads' atomics on one word take longer
 * than reading a gigabyte (the grader hashes every input of every timed call, twice a round).
 * XOR is order-free, so the value is the same however the block combines it. */
__global__ void hash_kernel(const unsigned *w, size_t n, unsigned long long *out)
{
    __shared__ unsigned long long warp_h[32];
    uint64_t h = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        h ^= mix64(((uint64_t)w[i] << 32 | 0x5bd1e995u) ^ (0x9e3779b97f4a7c15ull * (i + 1)));
    for (int d = 16; d > 0; d /= 2)
        h ^= __shfl_xor_sync(0xffffffffu, (unsigned long long)h, d);
    if ((threadIdx.x & 31) == 0)
        warp_h[threadIdx.x / 32] = h;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t b = 0;
        for (unsigned k = 0; k < (blockDim.x + 31) / 32; k++)
            b ^= warp_h[k];
        if (b)
            atomicXor(out, (unsigned long long)b);
    }
}

/* Scratch for the reductions below (one per process; the harness is single-threaded). */
static void *scratch(size_t bytes)
{
    static void *p;
    if (!p)
        CUDA_CHECK(cudaMalloc(&p, 64));
    (void)bytes;
    return p;
}

uint64_t dev_hash(const void *p, size_t bytes, cudaStream_t s)
{
    unsigned long long *d = (unsigned long long *)scratch(8), h = 0;
    CUDA_CHECK(cudaMemsetAsync(d, 0, 8, s));
    hash_kernel<<<grid_for(bytes / 4), 256, 0, s>>>((const unsigned *)p, bytes / 4, d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return h;
}

/* As hash_kernel: the block's sum first, one atomic per block. */
__global__ void abs_sum_kernel(const float *x, size_t n, double *out)
{
    __shared__ double warp_acc[32];
    double acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        acc += fabs((double)x[i]);
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if ((threadIdx.x & 31) == 0)
        warp_acc[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0;
        for (unsigned k = 0; k < (blockDim.x + 31) / 32; k++)
            b += warp_acc[k];
        atomicAdd(out, b);
    }
}

double dev_abs_sum_f32(const float *x, size_t n, cudaStream_t s)
{
    double *d = (double *)scratch(8), h = 0;
    CUDA_CHECK(cudaMemsetAsync(d, 0, 8, s));
    abs_sum_kernel<<<grid_for(n), 256, 0, s>>>(x, n, d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return h;
}

struct compare_acc {
    unsigned long long n_bad, first_bad;
};

__global__ void compare_kernel(const void *got, const void *want, size_t n, int type,
                               double rel, double abs_tol, compare_acc *acc)
{
    unsigned long long bad = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned g = ((const unsigned *)got)[i], w = ((const unsigned *)want)[i];
        int ok;
        if (type == DEV_U32 || (rel == 0 && abs_tol == 0)) {
            ok = g == w;
        } else {
            const float gf = __uint_as_float(g), wf = __uint_as_float(w);
            if (isinf(wf) || isinf(gf) || isnan(wf) || isnan(gf))
                ok = g == w && !isnan(gf);
            else
                ok = fabs((double)gf - wf) <= rel * fmax(fabs((double)gf), fabs((double)wf)) +
                                                  abs_tol;
        }
        if (!ok) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    if (bad) {
        atomicAdd(&acc->n_bad, bad);
        atomicMin(&acc->first_bad, first);
    }
}

void dev_compare(const void *got, const void *want, size_t n, dev_elem type, double rel,
                 double abs, dev_compare_result *r, cudaStream_t s)
{
    compare_acc *d = (compare_acc *)scratch(sizeof(compare_acc)), h;
    h.n_bad = 0;
    h.first_bad = ~0ull;
    CUDA_CHECK(cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, s));
    compare_kernel<<<grid_for(n), 256, 0, s>>>(got, want, n, (int)type, rel, abs, d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    memset(r, 0, sizeof *r);
    r->n_bad = h.n_bad;
    if (h.n_bad) {
        unsigned g = 0, w = 0;
        r->first_bad = h.first_bad;
        CUDA_CHECK(cudaMemcpy(&g, (const unsigned *)got + h.first_bad, 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&w, (const unsigned *)want + h.first_bad, 4, cudaMemcpyDeviceToHost));
        if (type == DEV_U32) {
            r->got = g, r->want = w;
        } else {
            float gf, wf;
            memcpy(&gf, &g, 4), memcpy(&wf, &w, 4);
            r->got = gf, r->want = wf;
        }
    }
}
