/* Honest but wrong: lab 07 with the classic unrolled last warp written for pre-Volta GPUs: the
 * final 64 partial sums are added by warp 0 on volatile shared memory with no __syncwarp(),
 * counting on its lanes running in lockstep. Only lanes of warp 0 touch those words after the
 * last __syncthreads(): the advice is the warp-synchronous one, a __syncwarp() between the
 * read and the write (h41 is this file done right).
 * lab: reduction
 * where: emu
 * expect: correct=FAIL
 * expect: no-accusation
 * expect: output-has=data race on shared memory in kernel partial_sums
 * expect: output-has=both threads are in warp 0, and no thread of another warp races on this memory
 * expect: output-has=put a __syncwarp\(\) between the steps
 * expect: output-has=\S*07-reduction/reduction\.cu:33\b
 * expect: log-lacks=put a __syncthreads\(\) between
 * expect: output-lacks=worker_loop_untrusted|exec\.cpp|launch\.h */
#include "reduction.h"

#define THREADS 256

__device__ void block_sum_to(float *out, float acc)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = THREADS / 2; k > 32; k /= 2) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        volatile float *v = s; /* "a warp runs in lockstep": not since Volta */
        for (int k = 32; k > 0; k /= 2)
            v[threadIdx.x] += v[threadIdx.x + k];
        if (threadIdx.x == 0)
            *out = s[0];
    }
}

__global__ void partial_sums(float *partials, const float *in, long long n)
{
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS)
        acc += in[i];
    block_sum_to(&partials[blockIdx.x], acc);
}

__global__ void final_sum(float *result, const float *partials, int count)
{
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        acc += partials[i];
    block_sum_to(result, acc);
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 256)
        blocks = 256;
    partial_sums<<<(unsigned)blocks, THREADS, 0, stream>>>(scratch, in, n);
    final_sum<<<1, THREADS, 0, stream>>>(result, scratch, (int)blocks);
}
