/* Lab 03 - warp divergence: REFERENCE SOLUTION.
 *
 * Every element runs its class's chain of dependent FMAs, 256, 512, 1024 or 2048 of them
 * (contract: grader/labs/03-divergence/divergence.h). The four chains are different code. A
 * warp issues one instruction for one path at a time, so a warp whose 32 elements belong to
 * four classes runs four chains back to back: 3840 steps, where a warp of one class runs its
 * class's count, 960 on average. Making the branch short does not cure it: one loop with a
 * per-lane count runs until the warp's longest chain (2048) is done.
 *
 * The fix keeps the four branches and changes who meets them: each block regroups its
 * elements by class in shared memory, then each warp takes 32 elements of ONE class, so
 * every branch is warp-uniform and each warp runs exactly one chain. Results are unchanged:
 * each element still gets its own class's chain, and goes back to its own index.
 *
 *   tile of 2048 elements, classes mixed         regrouped (counting sort in shared memory)
 *   2 0 3 1 1 0 2 3 0 ...                        0 0 0 ... | 1 1 1 ... | 2 2 ... | 3 3 3 ...
 *                                                \_warp_/\_warp_/ ...   (32 of one class each)
 *
 * A class's bin rarely holds a multiple of 32 elements. Its last partial group (< 32) is not
 * run half empty: it is carried over in shared memory and joins the same class's elements of
 * the block's next tile. Only the very last leftovers of each block run as partial warps
 * (at most four per block, over thousands of full ones).
 *
 * A group of class 3 costs 8x one of class 0, and the block's warps meet at a barrier after
 * every tile. Warps therefore take groups from a shared counter, longest class first: the
 * long groups are spread over the warps at the start, the short ones fill the gaps, and no
 * warp is left running a 2048-step group while the others wait (longest job first).
 *
 * Cost of the regrouping per element: one load, one shared atomic, two shared stores and
 * loads, one store, against 960 FMAs of chain on average: about 1% of the time. */
#include "divergence.h"
#include "check.h"

#define THREADS 256                 /* 8 warps; 8 blocks fill an SM's 2048 thread slots */
#define WARPS (THREADS / 32)
#define PER_THREAD 8                /* elements each thread brings to a tile */
#define TILE (THREADS * PER_THREAD) /* elements regrouped at a time: 2048 */
#define CLASSES 4
#define CARRY 31                    /* at most 31 leftovers of a class wait for the next tile */

/* The four update rules of the contract, as in the skeleton: different code per class. */
__device__ __forceinline__ float evolve_class0(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-8f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_0; k++)
        y = fmaf(y, m, f);
    return y;
}

__device__ __forceinline__ float evolve_class1(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f - 0x1p-9f), b = 1.0f - f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_1; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ __forceinline__ float evolve_class2(float f)
{
    const float m = fmaf(f, 0x1p-9f, 1.0f), b = 0.5f * f;
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_2; k++)
        y = fmaf(y, m, b);
    return y;
}

__device__ __forceinline__ float evolve_class3(float f)
{
    const float m = fmaf(-f, 0x1p-9f, 1.0f + 0x1p-9f);
    float y = f;
    for (int k = 0; k < DIVERGENCE_STEPS_3; k++)
        y = fmaf(y, m, 0.25f);
    return y;
}

/* The branch is still here; what changed is that c is the same in all 32 lanes of the warp
 * that reaches it, so the warp takes one path and skips the other three entirely. */
__device__ __forceinline__ float evolve(int c, float f)
{
    if (c == 0)
        return evolve_class0(f);
    if (c == 1)
        return evolve_class1(f);
    if (c == 2)
        return evolve_class2(f);
    return evolve_class3(f);
}

/* Shared memory of one block: the tile's elements sorted by class, and the carried ones. */
struct regroup_smem {
    float f[TILE + CLASSES * CARRY];   /* parameters f, grouped by class (bins back to back) */
    int idx[TILE + CLASSES * CARRY];   /* where each one's result goes in out[] */
    float carry_f[CLASSES][CARRY];     /* leftovers of each class from the previous tile */
    int carry_i[CLASSES][CARRY];       /* ... and their indices */
    int carry_n[CLASSES];              /* how many leftovers of each class */
    int count[CLASSES];                /* elements of each class this round (carried + new) */
    int start[CLASSES];                /* where each class's bin begins in f[] / idx[] */
    int next;                          /* the next group a warp takes this round */
};

/* Load the PER_THREAD elements this thread contributes to tile t; -1 (no class) past n.
 * k-th load of the block reads TILE/PER_THREAD consecutive floats: coalesced. */
__device__ __forceinline__ void load_tile(float x[PER_THREAD], const float *__restrict__ in,
                                          int n, long long t)
{
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const long long i = t * TILE + k * THREADS + threadIdx.x;
        x[k] = i < n ? in[i] : -1.0f;
    }
}

/* One persistent block per resident slot; block b regroups and runs tiles b, b + gridDim.x,
 * ... The next tile's loads are issued before the current tile's chains, so their latency
 * hides behind arithmetic. */
__global__ void __launch_bounds__(THREADS)
regroup_kernel(float *__restrict__ out, const float *__restrict__ in, int n, int tiles)
{
    __shared__ regroup_smem s;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    if (tid < CLASSES)
        s.carry_n[tid] = 0;
    float x[PER_THREAD];
    load_tile(x, in, n, blockIdx.x);

    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        /* 1. Count: each bin starts with its carried elements; a shared atomic per element
         *    gives it a slot in its bin. */
        if (tid < CLASSES)
            s.count[tid] = s.carry_n[tid];
        if (tid == 0)
            s.next = 0;
        __syncthreads();
        int slot[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (x[k] >= 0.0f)
                slot[k] = atomicAdd(&s.count[(int)x[k]], 1);
        __syncthreads();
        if (tid == 0) {
            int sum = 0;
            for (int c = 0; c < CLASSES; c++) {
                s.start[c] = sum;
                sum += s.count[c];
            }
        }
        __syncthreads();

        /* 2. Scatter the new elements and the carried ones into their bins. */
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (x[k] >= 0.0f) {
                const int c = (int)x[k];
                const int j = s.start[c] + slot[k];
                s.f[j] = x[k] - (float)c;
                s.idx[j] = (int)(t * TILE + k * THREADS + tid);
            }
        if (tid < CLASSES * 32) {
            const int c = tid / 32, j = tid % 32;
            if (j < s.carry_n[c]) {
                s.f[s.start[c] + j] = s.carry_f[c][j];
                s.idx[s.start[c] + j] = s.carry_i[c][j];
            }
        }

        /* 3. Prefetch the next tile: x[] is free now, and the loads fly during step 4. */
        load_tile(x, in, n, t + gridDim.x);
        __syncthreads();

        /* 4. Every full group of 32 same-class elements is one warp's job: one path. Groups are
         *    numbered longest class first (class 3's, then 2's, 1's, 0's) and each warp takes
         *    the next one from a shared counter until none is left. Full groups of classes
         *    3..c+1 end at group number end_c (scalars, not an array: a dynamically indexed
         *    array would live in slow local memory). */
        const int end3 = s.count[3] / 32, end2 = end3 + s.count[2] / 32;
        const int end1 = end2 + s.count[1] / 32, total = end1 + s.count[0] / 32;
        for (;;) {
            int q = 0;
            if (lane == 0)
                q = atomicAdd(&s.next, 1);
            q = __shfl_sync(0xffffffffu, q, 0);
            if (q >= total)
                break;
            const int c = 3 - (q >= end3) - (q >= end2) - (q >= end1);
            const int first = c == 3 ? 0 : c == 2 ? end3 : c == 1 ? end2 : end1;
            const int j = s.start[c] + 32 * (q - first) + lane;
            out[s.idx[j]] = evolve(c, s.f[j]);
        }

        /* 5. The partial group at the end of each bin waits for the next tile. */
        if (tid < CLASSES * 32) {
            const int c = tid / 32, j = tid % 32;
            const int left = s.count[c] % 32;
            if (j < left) {
                const int from = s.start[c] + s.count[c] - left + j;
                s.carry_f[c][j] = s.f[from];
                s.carry_i[c][j] = s.idx[from];
            }
        }
        __syncthreads();
        if (tid < CLASSES)
            s.carry_n[tid] = s.count[tid] % 32;
    }

    /* 6. The block's last leftovers: warp c runs class c's (fewer than 32 lanes busy). */
    __syncthreads();
    if (warp < CLASSES && lane < s.carry_n[warp])
        out[s.carry_i[warp][lane]] = evolve(warp, s.carry_f[warp][lane]);
}

void divergence(float *out, const float *in, int n, cudaStream_t stream)
{
    /* As many blocks as fit on the device at once (SMs x resident blocks per SM, from the
     * occupancy API), each looping over tiles: no block waits for a second wave. */
    static int resident = 0;
    if (resident == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, regroup_kernel,
                                                                 THREADS, 0));
        resident = sms * (per_sm > 0 ? per_sm : 1);
    }
    const int tiles = (int)(((long long)n + TILE - 1) / TILE);
    const int grid = tiles < resident ? tiles : resident;
    regroup_kernel<<<grid, THREADS, 0, stream>>>(out, in, n, tiles);
    CUDA_CHECK_LAUNCH();
}
