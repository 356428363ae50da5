/* Honest: lab 04 in plain scalar code: the memory task's grid-stride loop unrolled by hand,
 * four scalar loads issued before the first multiply (no float4); the arithmetic task with
 * each thread owning eight CONSECUTIVE elements, whose eight chains it interleaves (one load of
 * eight lanes apart per thousand FMAs: the stride costs nothing there). One kernel each, at the
 * grader's launch.
 * lab: ilp
 * where: emu gpu
 * expect: all-correct=OK
 * expect: where-lacks=ESTIMATE \(not a grade\): about
 * expect@emu: output-has=ESTIMATE \(not a grade\): none for this lab: its speed turns on how many loads the compiler keeps in flight */
#include "ilp.h"

#define CHAINS 8

__global__ void scale_unrolled(float *__restrict__ out, const float *__restrict__ in, float a,
                               int n)
{
    const int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n - 3 * stride; i += 4 * stride) {
        const float v0 = in[i], v1 = in[i + stride], v2 = in[i + 2 * stride],
                    v3 = in[i + 3 * stride];
        out[i] = v0 * a;
        out[i + stride] = v1 * a;
        out[i + 2 * stride] = v2 * a;
        out[i + 3 * stride] = v3 * a;
    }
    for (; i < n; i += stride)
        out[i] = in[i] * a;
}

__global__ void chains_consecutive(float *__restrict__ out, const float *__restrict__ in, int n)
{
    const int threads = gridDim.x * blockDim.x;
    for (long long base = (long long)(blockIdx.x * blockDim.x + threadIdx.x) * CHAINS; base < n;
         base += (long long)threads * CHAINS) {
        float x[CHAINS], y[CHAINS];
#pragma unroll
        for (int k = 0; k < CHAINS; k++) {
            x[k] = base + k < n ? in[base + k] : 0.0f;
            y[k] = x[k];
        }
        for (int s = 0; s < ILP_STEPS; s++)
#pragma unroll
            for (int k = 0; k < CHAINS; k++)
                y[k] = fmaf(y[k], x[k], ILP_C);
#pragma unroll
        for (int k = 0; k < CHAINS; k++)
            if (base + k < n)
                out[base + k] = y[k];
    }
}

void ilp_memory(float *out, const float *in, float a, int n, int blocks, int threads,
                cudaStream_t stream)
{
    scale_unrolled<<<blocks, threads, 0, stream>>>(out, in, a, n);
}

void ilp_arith(float *out, const float *in, int n, int blocks, int threads, cudaStream_t stream)
{
    chains_consecutive<<<blocks, threads, 0, stream>>>(out, in, n);
}
