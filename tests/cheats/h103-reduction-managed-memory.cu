/* Honest: lab 07 in one pass with managed memory: the blocks' partial sums in a workspace taken
 * with cudaMallocManaged on the first call (kept, never freed), and the count of finished
 * blocks in a __managed__ variable, which the last block to finish resets for the next call.
 * Only the GPU touches either once the first call has begun (the host never reads them), as a
 * GPU without concurrent managed access asks. A style no check may mistake for the grader's
 * memory or for work left running.
 * lab: reduction
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-error
 * expect: no-accusation */
#include "reduction.h"

#define THREADS 256
#define MAX_BLOCKS 4096

static float *partials;           /* MAX_BLOCKS floats of managed memory, kept across calls */
__managed__ unsigned int finished; /* blocks of the current call done; 0 between calls */

__device__ float block_sum(float v)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    const float total = s[0];
    __syncthreads(); /* (s is read by every thread before a second use overwrites it) */
    return total;
}

__global__ void __launch_bounds__(THREADS) one_pass(float *result, float *part, const float *in,
                                                    long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    const float mine = block_sum(acc);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = mine;
        __threadfence(); /* the partial is visible before the count says it is there */
        last = atomicAdd(&finished, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    float sum = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
        sum += ((volatile float *)part)[b];
    const float total = block_sum(sum);
    if (threadIdx.x == 0) {
        *result = total;
        finished = 0; /* ready for the next call on this stream */
    }
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch; /* the managed workspace takes its place */
    if (!partials && cudaMallocManaged(&partials, MAX_BLOCKS * sizeof(float)) != cudaSuccess) {
        partials = NULL;
        return; /* the result stays poisoned: the check fails and says so */
    }
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 4LL * sms)
        blocks = 4LL * sms;
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    one_pass<<<(unsigned)blocks, THREADS, 0, stream>>>(result, partials, in, n);
}
