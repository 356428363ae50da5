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

/* The generators and the hash below take one 64-bit mix per PAIR of words, not one per
 * word: a mix is some twenty integer instructions, and at one a word they, not the memory,
 * set the pace (the grader makes, hashes and compares every timed call's data each round).
 * Pair p of a buffer is words 2p and 2p+1; where the buffer is 16-byte aligned a thread
 * takes two pairs at once with one 16-byte access. The key of pair p, PAIR_KEY * (p + 1), is carried
 * from one step of a thread's loop to the next by an addition. */
#define PAIR_KEY 0x9e3779b97f4a7c15ull

static int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/* Uniform in [0, 1) from 32 random bits. */
__device__ __forceinline__ double unit_of(unsigned bits) { return bits * 0x1p-32; }

/* v rounded down to a multiple of step (> 0); inv_step is 1 / step where that is a power of
 * two (then v * inv_step is v / step exactly, without a division's cost), else 0. */
__device__ __forceinline__ double round_down_to(double v, double step, double inv_step)
{
    return floor(inv_step > 0 ? v * inv_step : v / step) * step;
}

__device__ __forceinline__ float uniform_in(unsigned bits, float lo, float hi, float step,
                                            double inv_step)
{
    double v = lo + ((double)hi - lo) * unit_of(bits);
    if (step > 0)
        v = round_down_to(v, step, inv_step);
    return (float)v;
}

/* The two words of pair p: the low and high halves of one mix. Word i is the same whatever
 * the launch shape and alignment. */
__device__ __forceinline__ uint64_t pair_bits(uint64_t seed, uint64_t key) { return mix64(seed + key); }

/* What a fill writes at word i, from the mix of its pair (fill_kernel's op). */
struct fill_f32_op {
    float lo, hi, step;
    double inv_step;
    __device__ float operator()(unsigned bits) const
    {
        return uniform_in(bits, lo, hi, step, inv_step);
    }
};
struct fill_u32_op {
    __device__ unsigned operator()(unsigned bits) const { return bits; }
};
struct choice16 {
    float v[16];
};
struct fill_choice_op {
    choice16 c;
    unsigned count;
    /* (bits * count) >> 32: each of count values on 2^32 / count of the 2^32 words */
    __device__ float operator()(unsigned bits) const
    {
        return c.v[(unsigned)(((unsigned long long)bits * count) >> 32)];
    }
};

/* x[i] = op(bits of word i): 16-byte stores of two pairs where x is aligned, else pairs. */
template <class T, class Op>
__global__ void fill_kernel(T *x, size_t n, uint64_t seed, Op op, int vec)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t done = 0; /* words the vector loop wrote */
    if (vec) {
        const size_t nq = n / 4;
        uint64_t key = PAIR_KEY * (2 * tid + 1);
        const uint64_t step = PAIR_KEY * (2 * stride);
        for (size_t q = tid; q < nq; q += stride, key += step) {
            const uint64_t a = pair_bits(seed, key), b = pair_bits(seed, key + PAIR_KEY);
            union {
                T v[4];
                uint4 u;
            } o;
            o.v[0] = op((unsigned)a), o.v[1] = op((unsigned)(a >> 32));
            o.v[2] = op((unsigned)b), o.v[3] = op((unsigned)(b >> 32));
            *reinterpret_cast<uint4 *>(x + 4 * q) = o.u;
        }
        done = 4 * nq;
    }
    const size_t np = (n + 1) / 2;
    for (size_t p = done / 2 + tid; p < np; p += stride) {
        const uint64_t a = pair_bits(seed, PAIR_KEY * (p + 1));
        x[2 * p] = op((unsigned)a);
        if (2 * p + 1 < n)
            x[2 * p + 1] = op((unsigned)(a >> 32));
    }
}

template <class T, class Op>
static void fill(T *x, size_t n, uint64_t seed, Op op, cudaStream_t s)
{
    fill_kernel<<<grid_for((n + 3) / 4), 256, 0, s>>>(x, n, seed, op, aligned16(x));
    CUDA_CHECK_LAUNCH();
}

void dev_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi, float step,
                  cudaStream_t s)
{
    int e;
    const int power_of_two = step > 0 && frexp((double)step, &e) == 0.5;
    fill_f32_op op = {lo, hi, step, power_of_two ? 1.0 / step : 0.0};
    fill(x, n, seed, op, s);
}

void dev_fill_u32(unsigned *x, size_t n, uint64_t seed, cudaStream_t s)
{
    fill(x, n, seed, fill_u32_op(), s);
}

void dev_fill_choice_f32(float *x, size_t n, uint64_t seed, const float *values, int count,
                         cudaStream_t s)
{
    fill_choice_op op;
    memset(&op, 0, sizeof op);
    op.count = (unsigned)(count < 1 ? 1 : count > 16 ? 16 : count);
    for (unsigned i = 0; i < op.count; i++)
        op.c.v[i] = values[i];
    fill(x, n, seed, op, s);
}

/* The hash's term for pair p (words lo, hi): a bijective mix of the pair's 64 bits keyed by
 * its place, so a changed word, or two words that trade places, changes the term. The terms
 * are XORed, so the value does not depend on which thread took which pair. */
__device__ __forceinline__ uint64_t hash_term(unsigned lo, unsigned hi, uint64_t key)
{
    return mix64(((uint64_t)hi << 32 | lo) ^ key);
}

/* One atomic per block, not per thread: a million threads' atomics on one word take longer
 * than reading a gigabyte. Hashes n words at w into *out. */
__global__ void hash_kernel(const unsigned *w, size_t n, int vec, unsigned long long *out)
{
    __shared__ unsigned long long warp_h[32];
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    uint64_t h = 0;
    size_t done = 0;
    if (vec) {
        const size_t nq = n / 4;
        uint64_t key = PAIR_KEY * (2 * tid + 1);
        const uint64_t step = PAIR_KEY * (2 * stride);
        for (size_t q = tid; q < nq; q += stride, key += step) {
            const uint4 v = *reinterpret_cast<const uint4 *>(w + 4 * q);
            h ^= hash_term(v.x, v.y, key) ^ hash_term(v.z, v.w, key + PAIR_KEY);
        }
        done = 4 * nq;
    }
    const size_t np = (n + 1) / 2;
    for (size_t p = done / 2 + tid; p < np; p += stride)
        h ^= hash_term(w[2 * p], 2 * p + 1 < n ? w[2 * p + 1] : 0u, PAIR_KEY * (p + 1));
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

/* Scratch for the reductions below (one per process; the harness is single-threaded):
 * grown to the largest size asked for. */
static void *scratch(size_t bytes)
{
    static void *p;
    static size_t have;
    if (bytes > have) {
        if (p)
            CUDA_CHECK(cudaFree(p));
        have = bytes < 64 ? 64 : bytes;
        CUDA_CHECK(cudaMalloc(&p, have));
    }
    return p;
}

void dev_hash_many(const void *const *p, const size_t *bytes, int n, uint64_t *h, cudaStream_t s)
{
    if (n <= 0)
        return;
    unsigned long long *d = (unsigned long long *)scratch((size_t)n * 8);
    CUDA_CHECK(cudaMemsetAsync(d, 0, (size_t)n * 8, s));
    for (int i = 0; i < n; i++) {
        const size_t words = bytes[i] / 4;
        hash_kernel<<<grid_for((words + 3) / 4), 256, 0, s>>>((const unsigned *)p[i], words,
                                                              aligned16(p[i]), d + i);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemcpyAsync(h, d, (size_t)n * 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

uint64_t dev_hash(const void *p, size_t bytes, cudaStream_t s)
{
    uint64_t h = 0;
    dev_hash_many(&p, &bytes, 1, &h, s);
    return h;
}

/* As hash_kernel: the block's sum first, one atomic per block. */
__global__ void abs_sum_kernel(const float *x, size_t n, int vec, double *out)
{
    __shared__ double warp_acc[32];
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    double acc = 0;
    size_t done = 0;
    if (vec) {
        const size_t nq = n / 4;
        for (size_t q = tid; q < nq; q += stride) {
            const float4 v = *reinterpret_cast<const float4 *>(x + 4 * q);
            acc += (fabs((double)v.x) + fabs((double)v.y)) + (fabs((double)v.z) + fabs((double)v.w));
        }
        done = 4 * nq;
    }
    for (size_t i = done + tid; i < n; i += stride)
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
    abs_sum_kernel<<<grid_for((n + 3) / 4), 256, 0, s>>>(x, n, aligned16(x), d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return h;
}

struct compare_acc {
    unsigned long long n_bad, first_bad;
};

/* Whether got may stand for want (dev_compare's rule). */
__device__ __forceinline__ int same_enough(unsigned g, unsigned w, int exact, double rel,
                                           double abs_tol)
{
    if (g == w) /* the same bits (the usual case: checked first, it costs no arithmetic) */
        return exact || (g & 0x7fffffffu) <= 0x7f800000u; /* ... but a NaN is never right */
    if (exact)
        return 0;
    const float gf = __uint_as_float(g), wf = __uint_as_float(w);
    if (!isfinite(gf) || !isfinite(wf)) /* an infinity or a NaN: only its own bits match it */
        return 0;
    return fabs((double)gf - wf) <= rel * fmax(fabs((double)gf), fabs((double)wf)) + abs_tol;
}

__global__ void compare_kernel(const unsigned *got, const unsigned *want, size_t n, int exact,
                               int vec, double rel, double abs_tol, compare_acc *acc)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long bad = 0, first = ~0ull;
    size_t done = 0;
    if (vec) {
        const size_t nq = n / 4;
        for (size_t q = tid; q < nq; q += stride) {
            const uint4 g = *reinterpret_cast<const uint4 *>(got + 4 * q);
            const uint4 w = *reinterpret_cast<const uint4 *>(want + 4 * q);
            const int ok[4] = {same_enough(g.x, w.x, exact, rel, abs_tol),
                               same_enough(g.y, w.y, exact, rel, abs_tol),
                               same_enough(g.z, w.z, exact, rel, abs_tol),
                               same_enough(g.w, w.w, exact, rel, abs_tol)};
            for (int j = 0; j < 4; j++)
                if (!ok[j]) {
                    bad++;
                    if (4 * q + j < first)
                        first = 4 * q + j;
                }
        }
        done = 4 * nq;
    }
    for (size_t i = done + tid; i < n; i += stride)
        if (!same_enough(got[i], want[i], exact, rel, abs_tol)) {
            bad++;
            if (i < first)
                first = i;
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
    const int exact = type == DEV_U32 || (rel == 0 && abs == 0);
    compare_kernel<<<grid_for((n + 3) / 4), 256, 0, s>>>(
        (const unsigned *)got, (const unsigned *)want, n, exact, aligned16(got) && aligned16(want),
        rel, abs, d);
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
