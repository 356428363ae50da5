/* Lab 03, rung 3: regroup each block's elements by class, one element per thread.
 *
 * Changed from rung 2: the branch is back (the skeleton's four separate chains, different code
 * per class, as real species would have), and what changed is which elements share a warp.
 * Each block of 256 threads loads its 256 elements, counts their classes with shared-memory
 * atomics (the count also hands each element a slot in its class's bin), writes the elements
 * into the four bins back to back in shared memory, and then thread t runs the element at
 * position t of that order. 32 neighbouring positions, one warp, hold one class (but where two
 * bins meet), so the warp takes one path and runs one chain of its class's length: 960 steps
 * per warp on average instead of rung 2's 2048. This is the lesson's technique, and the first
 * rung that passes.
 * Why it is not yet the reference: a block keeps its warp slots, registers and shared memory
 * until its last warp ends, and every block holds about two warps of class 3. Its class-0
 * warps end after 256 steps, its class-3 warps after 2048: for most of the block's life most
 * of its slots hold finished warps, and the SM has fewer warps to issue from than it could
 * (the tail of lab 08, inside a block). Rung 4 gives each warp a share of every class. */
#include "divergence.h"
#include "check.h"
#include "rung_chains.cuh" /* evolve(c, f): the four classes' chains, by a switch */

namespace {

#define THREADS 256 /* one element per thread: the block's tile */

__global__ void regroup_kernel(float *__restrict__ out, const float *__restrict__ in, int n)
{
    __shared__ int count[4], start[4];
    __shared__ float x_of[THREADS]; /* the block's inputs, by class */
    __shared__ int index_of[THREADS]; /* ... and where each one's result goes */
    const int t = threadIdx.x;
    const int i = blockIdx.x * THREADS + t;
    if (t < 4)
        count[t] = 0;
    __syncthreads();
    const float x = i < n ? in[i] : -1.0f; /* -1: past the end, no class */
    const int c = (int)x;
    int slot = 0;
    if (i < n)
        slot = atomicAdd(&count[c], 1);
    __syncthreads();
    if (t == 0)
        for (int k = 0, s = 0; k < 4; k++)
            start[k] = s, s += count[k];
    __syncthreads();
    if (i < n) {
        x_of[start[c] + slot] = x;
        index_of[start[c] + slot] = i;
    }
    __syncthreads();
    if (t >= start[3] + count[3]) /* the last block's positions past its elements */
        return;
    const float mine = x_of[t]; /* position t of the block's class order */
    const int cm = (int)mine;
    out[index_of[t]] = evolve(cm, mine - (float)cm);
}

} /* namespace */

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    const int blocks = (int)(((long long)n + THREADS - 1) / THREADS);
    regroup_kernel<<<blocks, THREADS, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
