/* Honest: lab 07 by thread-block clusters (sm_90 and later): the blocks of a cluster add their
 * sums into the first block's shared memory through distributed shared memory
 * (cluster.map_shared_rank), then one atomic per cluster into the result. Two launch styles in
 * one file: below a million floats a kernel whose cluster size is given at launch
 * (cudaLaunchKernelEx, cudaLaunchAttributeClusterDimension, clusters of 2), above it one whose
 * size is compiled in (__cluster_dims__(4, 1, 1)), so the checks take both. The CPU emulator
 * refuses clusters at the build (tests/emu/refusals.sh's cluster-group case): a GPU grades it.
 * Clusters need compute capability 9.0: built for an older GPU, the kernels add each block's
 * sum to the result, launched plainly.
 * lab: reduction
 * where: gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "reduction.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 256

/* the block's sum, in thread 0 */
__device__ float block_total(float v)
{
    __shared__ float warp_sums[THREADS / 32];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = 0.0f;
    if (threadIdx.x < 32) {
        v = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define HAS_CLUSTERS 1
#define CLUSTERS_OF_4 __cluster_dims__(4, 1, 1)
#else
#define HAS_CLUSTERS 0
#define CLUSTERS_OF_4
#endif

__device__ void cluster_add(const float *in, long long n, float *result)
{
    float v = 0.0f;
    const long long stride = (long long)gridDim.x * THREADS;
#if HAS_CLUSTERS
    __shared__ float cluster_sum;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0)
        cluster_sum = 0.0f;
    cluster.sync(); /* every block's cluster_sum zeroed before any block adds to the first's */
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = block_total(v);
    if (threadIdx.x == 0)
        atomicAdd(cluster.map_shared_rank(&cluster_sum, 0), v);
    cluster.sync(); /* every block's sum in the first block's before it reads it */
    if (cluster.block_rank() == 0 && threadIdx.x == 0)
        atomicAdd(result, cluster_sum);
#else
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = block_total(v);
    if (threadIdx.x == 0)
        atomicAdd(result, v);
#endif
}

__global__ void CLUSTERS_OF_4 sum_clusters_of_4(const float *in, long long n, float *result)
{
    cluster_add(in, n, result);
}

__global__ void sum_clusters_at_launch(const float *in, long long n, float *result)
{
    cluster_add(in, n, result);
}

__global__ void zero_result(float *result)
{
    *result = 0.0f;
}

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    (void)scratch;
    int device = 0, sms = 0, major = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    const int cluster = n < (1 << 20) ? 2 : 4;
    long long blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 8LL * sms)
        blocks = 8LL * sms;
    blocks = (blocks + cluster - 1) / cluster * cluster; /* whole clusters */
    zero_result<<<1, 1, 0, stream>>>(result);
    if (cluster == 4 || major < 9) { /* (before sm_90: no cluster at all) */
        sum_clusters_of_4<<<(unsigned)blocks, THREADS, 0, stream>>>(in, n, result);
        return;
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(THREADS);
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    cudaLaunchKernelEx(&config, sum_clusters_at_launch, in, n, result);
}
