/* Honest: lab 07 with a workspace of its own, as a library would keep one: 128 MiB of device
 * memory taken with cudaMalloc on the first call and reused by every later call, never freed
 * (the process ends with the context). Each block sums a grid-stride share of the input into
 * the workspace; a second kernel of one block adds the partials. A GPU has room for this many
 * times over, and so must the emulated device (its memory is 2 GiB): under the emulator this
 * case once crashed with "File size limit exceeded", device memory being a file that the
 * worker's file-size limit applied to.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK */
#include "reduction.h"

#define THREADS 256
#define WORKSPACE_BYTES ((size_t)128 << 20)

static float *workspace; /* WORKSPACE_BYTES, kept across calls: the worker lives across them */

__global__ void __launch_bounds__(THREADS) block_sums(float *partials, const float *in, long long n)
{
    __shared__ float s[THREADS];
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(THREADS) add_partials(float *result, const float *partials,
                                                        int blocks)
{
    __shared__ float s[THREADS];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += THREADS)
        acc += partials[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *result = s[0];
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch; /* the workspace takes its place */
    if (!workspace && cudaMalloc(&workspace, WORKSPACE_BYTES) != cudaSuccess)
        return; /* the result stays poisoned: the check fails and says so */
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 8LL * sms)
        blocks = 8LL * sms;
    /* Partials at the workspace's far end: every call relies on all of it being mapped. */
    float *partials = workspace + WORKSPACE_BYTES / sizeof(float) - blocks;
    block_sums<<<(unsigned)blocks, THREADS, 0, stream>>>(partials, in, n);
    add_partials<<<1, THREADS, 0, stream>>>(result, partials, (int)blocks);
}
