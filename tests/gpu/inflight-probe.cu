/* inflight-probe.cu - lab 04's memory task at the lab's fixed launch (one block of 1/8 of an SM's
 * thread slots per SM), by the ways a thread can keep bytes in flight, each against
 * cudaMemcpy D2D of the same bytes, timed in one process (tests/gpu/run-all.sh inflight).
 *
 *   nvcc -O3 -arch=native -Igrader/labs/04-ilp -o build/inflight-probe tests/gpu/inflight-probe.cu -lcuda
 *   build/inflight-probe
 *
 * Each variant scales n floats (out = in * a) and is checked bit for bit. Times: the median of
 * 31 samples after 3 warm-up calls, each sample after a write of twice the L2's size. The
 * variants:
 *   regs16      the lab's reference kernel itself (solutions/04-ilp/ilp.cu, included): 16 float4
 *               loads per thread in registers before any store
 *   loads16     the same loads, no stores (one sum per thread): what reading alone reaches
 *   regs16+pf1  the reference, each thread also prefetching into L2 what it loads one sweep later
 *   regs16+pf2  the same, two sweeps ahead
 *   cpasync     cp.async (sm_80+): 16-byte copies from global into shared memory, 8 stages per
 *               thread in flight, then scaled out of shared memory
 *   bulk        cp.async.bulk (sm_90+, the TMA): one thread moves 16 KiB chunks between global and
 *               shared memory, 6 stages in flight; the block scales each chunk in shared memory
 *   full-occ    a plain float4 copy at full occupancy (not the lab's launch): what threads supply
 * Each over buffers from cudaMalloc, then from the driver's virtual memory API (cuMemCreate +
 * cuMemMap), as the grader allocates a check's buffers to share them with a worker process:
 * at the minimum and the recommended granularity, exportable as a file descriptor or not. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "../../solutions/04-ilp/ilp.cu" /* scale_vec4_kernel, LOADS: the reference's own loop */

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

__device__ __forceinline__ float4 scale4(float4 v, float a)
{
    return make_float4(v.x * a, v.y * a, v.z * a, v.w * a);
}

/* The reference's loop, each thread also prefetching into L2 what it loads PF sweeps later. */
template <int PF>
__global__ void regs16_prefetch(float4 *__restrict__ out, const float4 *__restrict__ in, float a, int n4)
{
    const int S = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n4; base += LOADS * S) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++) {
            const long long j = base + (long long)PF * LOADS * S + (long long)k * S;
            if (j < n4)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(in + j));
        }
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * S < n4)
                v[k] = in[base + k * S];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * S < n4)
                out[base + k * S] = scale4(v[k], a);
    }
}

__global__ void loads16(float4 *__restrict__ out, const float4 *__restrict__ in, float a, int n4)
{
    const int S = gridDim.x * blockDim.x;
    float acc = 0.f;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n4; base += LOADS * S) {
        float4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            if (base + k * S < n4)
                v[k] = in[base + k * S];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            acc += v[k].x + v[k].y + v[k].z + v[k].w;
    }
    if (acc == 12345.f) /* never: keeps the loads */
        out[0].x = acc * a;
}

/* cp.async: stage s of thread t holds its float4 number base + s*S; STAGES copies in flight. */
#define STAGES 8
__global__ void cpasync(float4 *__restrict__ out, const float4 *__restrict__ in, float a, int n4)
{
#if __CUDA_ARCH__ >= 800
    extern __shared__ float4 buf[]; /* STAGES x blockDim.x */
    const int S = gridDim.x * blockDim.x, t = threadIdx.x;
    const int first = blockIdx.x * blockDim.x + t;
    auto issue = [&](int j, int slot) {
        const long long i = first + (long long)j * S;
        float4 *dst = &buf[slot * blockDim.x + t];
        unsigned d = (unsigned)__cvta_generic_to_shared(dst);
        if (i < n4)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(in + i));
        asm volatile("cp.async.commit_group;");
    };
    const int iters = (int)((n4 - first + (long long)S - 1) / S);
    for (int j = 0; j < STAGES - 1; j++)
        issue(j, j % STAGES);
    for (int j = 0; j < iters; j++) {
        issue(j + STAGES - 1, (j + STAGES - 1) % STAGES);
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
        const long long i = first + (long long)j * S;
        out[i] = scale4(buf[(j % STAGES) * blockDim.x + t], a);
    }
    asm volatile("cp.async.wait_all;");
#endif
}

/* cp.async.bulk: thread 0 moves chunks of CHUNK floats; chunk c of block b is b + c*gridDim.x. */
#define BSTAGES 6
#define CHUNK 4096 /* floats: 16 KiB */
__device__ __forceinline__ bool mbar_try(unsigned bar, unsigned parity)
{
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok != 0;
}

__global__ void bulk(float *__restrict__ out, const float *__restrict__ in, float a, int n)
{
#if __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) float sbuf[]; /* BSTAGES x CHUNK */
    __shared__ __align__(8) unsigned long long bars[BSTAGES];
    const int chunks = n / CHUNK; /* the probe's n is a multiple of CHUNK */
    const int mine = (chunks - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;
    const unsigned bytes = CHUNK * sizeof(float);
    auto bar = [&](int s) { return (unsigned)__cvta_generic_to_shared(&bars[s]); };
    auto smem = [&](int s) { return (unsigned)__cvta_generic_to_shared(sbuf + (size_t)s * CHUNK); };
    auto load = [&](int j) {
        const int s = j % BSTAGES;
        const float *src = in + ((size_t)blockIdx.x + (size_t)j * gridDim.x) * CHUNK;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar(s)), "r"(bytes)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem(s)),
                     "l"(src), "r"(bytes), "r"(bar(s))
                     : "memory");
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < BSTAGES; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar(s)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int j = 0; j < BSTAGES && j < mine; j++)
            load(j);
    }
    __syncthreads();
    for (int j = 0; j < mine; j++) {
        const int s = j % BSTAGES;
        while (!mbar_try(bar(s), (unsigned)(j / BSTAGES) & 1))
            ;
        float4 *v = (float4 *)(sbuf + (size_t)s * CHUNK);
        for (int i = threadIdx.x; i < CHUNK / 4; i += blockDim.x)
            v[i] = scale4(v[i], a);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) {
            float *dst = out + ((size_t)blockIdx.x + (size_t)j * gridDim.x) * CHUNK;
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(s)),
                         "r"(bytes)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            /* refill the stage whose store was issued one step ago, once that store has read it */
            if (j >= 1 && j - 1 + BSTAGES < mine) {
                asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
                load(j - 1 + BSTAGES);
            }
        }
        /* the last stage (j = 0's) is refilled at j = 1; nothing else to do at j = 0 */
    }
    if (threadIdx.x == 0)
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

__global__ void full_occ(float4 *__restrict__ out, const float4 *__restrict__ in, float a, int n4)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x)
        out[i] = scale4(in[i], a);
}

static void cu_check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        const char *m = "?";
        cuGetErrorString(r, &m);
        fprintf(stderr, "%s: %s\n", what, m);
        exit(1);
    }
}

/* kind 0: cudaMalloc; 1: VMM, minimum granularity, fd-exportable (the grader's); 2: VMM,
 * recommended granularity, fd-exportable; 3: VMM, minimum granularity, no handle type */
static void *alloc_kind(int kind, size_t bytes)
{
    if (kind == 0) {
        void *p;
        CK(cudaMalloc(&p, bytes));
        return p;
    }
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = kind == 3 ? CU_MEM_HANDLE_TYPE_NONE : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    cu_check(cuMemGetAllocationGranularity(&gran, &prop, kind == 2 ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
                                                                   : CU_MEM_ALLOC_GRANULARITY_MINIMUM),
             "granularity");
    const size_t size = (bytes + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    cu_check(cuMemCreate(&h, size, &prop, 0), "cuMemCreate");
    CUdeviceptr ptr;
    cu_check(cuMemAddressReserve(&ptr, size, 0, 0, 0), "reserve");
    cu_check(cuMemMap(ptr, size, 0, h, 0), "map");
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cu_check(cuMemSetAccess(ptr, size, &access, 1), "access");
    return (void *)ptr;
}

__global__ void fill(float *p, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = (float)((i * 2654435761u) >> 8) * 0x1p-24f - 0.5f;
}

__global__ void count_wrong(const float *out, const float *in, float a, int n, unsigned *wrong)
{
    unsigned w = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        w += out[i] != in[i] * a;
    if (w)
        atomicAdd(wrong, w);
}

int main()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    const int sms = p.multiProcessorCount;
    const int threads = std::max(32, p.maxThreadsPerMultiProcessor / 8 / 32 * 32);
    const int n = 125829120; /* the bench's n, rounded to a multiple of CHUNK: 480 MiB per buffer */
    const float a = 1.375f;
    float *in, *out, *flush;
    unsigned *wrong;
    const size_t flush_bytes = 2 * (size_t)p.l2CacheSize;
    CK(cudaFree(0));
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMalloc(&wrong, sizeof *wrong));
    CK(cudaFuncSetAttribute(cpasync, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGES * threads * 16));
    const int bulk_smem = BSTAGES * CHUNK * 4;
    if (p.major >= 9)
        CK(cudaFuncSetAttribute(bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, bulk_smem));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("%s, %d SMs, launch <<<%d,%d>>>, n = %d floats (%.0f MB read + written), L2 %d MiB\n", p.name,
           sms, sms, threads, n, 2.0 * n * 4 / 1e6, p.l2CacheSize >> 20);

    struct V {
        const char *name;
        int min_major;
        void (*go)(float *, const float *, float, int, int, int);
    };
    std::vector<V> vs = {
        {"cudaMemcpy D2D", 0,
         [](float *o, const float *i, float, int n, int, int) {
             CK(cudaMemcpyAsync(o, i, (size_t)n * 4, cudaMemcpyDeviceToDevice));
         }},
        {"regs16 (reference)", 0,
         [](float *o, const float *i, float a, int n, int b, int t) {
             scale_vec4_kernel<<<b, t>>>((float4 *)o, (const float4 *)i, a, n);
         }},
        {"loads16 (no stores)", 0,
         [](float *o, const float *i, float a, int n, int b, int t) {
             loads16<<<b, t>>>((float4 *)o, (const float4 *)i, a, n / 4);
         }},
        {"regs16+pf1", 0,
         [](float *o, const float *i, float a, int n, int b, int t) {
             regs16_prefetch<1><<<b, t>>>((float4 *)o, (const float4 *)i, a, n / 4);
         }},
        {"regs16+pf2", 0,
         [](float *o, const float *i, float a, int n, int b, int t) {
             regs16_prefetch<2><<<b, t>>>((float4 *)o, (const float4 *)i, a, n / 4);
         }},
        {"cpasync x8", 8,
         [](float *o, const float *i, float a, int n, int b, int t) {
             cpasync<<<b, t, STAGES * t * 16>>>((float4 *)o, (const float4 *)i, a, n / 4);
         }},
        {"bulk 6x16KiB", 9,
         [](float *o, const float *i, float a, int n, int b, int t) {
             bulk<<<b, t, BSTAGES * CHUNK * 4>>>(o, i, a, n);
         }},
        {"full-occ float4", 0,
         [](float *o, const float *i, float a, int n, int b, int t) {
             full_occ<<<b * 8, t>>>((float4 *)o, (const float4 *)i, a, n / 4);
         }},
    };
    static const char *kinds[] = {"cudaMalloc", "cuMemCreate, minimum granularity, fd handle (the grader's)",
                                  "cuMemCreate, recommended granularity, fd handle",
                                  "cuMemCreate, minimum granularity, no handle"};
    for (int kind = 0; kind < 4; kind++) {
    in = (float *)alloc_kind(kind, (size_t)n * 4);
    out = (float *)alloc_kind(kind, (size_t)n * 4);
    printf("buffers: %s (in %p, out %p)\n", kinds[kind], (void *)in, (void *)out);
    fill<<<sms * 8, 256>>>(in, n);
    double memcpy_ms = 0;
    printf("%-22s %9s %9s %9s %s\n", "variant", "ms", "GB/s", "of memcpy", "check");
    for (const V &v : vs) {
        if (p.major < v.min_major)
            continue;
        CK(cudaMemset(out, 0xff, (size_t)n * 4));
        CK(cudaMemset(wrong, 0, sizeof *wrong));
        v.go(out, in, a, n, sms, threads);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        unsigned w = 0;
        const bool stores = v.name[0] != 'l';
        if (stores) {
            count_wrong<<<sms * 8, 256>>>(out, in, a, n, wrong);
            CK(cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost));
        }
        for (int k = 0; k < 3; k++)
            v.go(out, in, a, n, sms, threads);
        std::vector<float> ms;
        for (int k = 0; k < 31; k++) {
            CK(cudaMemsetAsync(flush, k, flush_bytes));
            CK(cudaEventRecord(e0));
            v.go(out, in, a, n, sms, threads);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        if (memcpy_ms == 0)
            memcpy_ms = med;
        const double bytes = (stores ? 2.0 : 1.0) * n * 4;
        printf("%-22s %9.4f %9.1f %9.3f %s\n", v.name, med, bytes / med / 1e6,
               stores ? memcpy_ms / med : bytes / med / 1e6 / (2.0 * n * 4 / memcpy_ms / 1e6),
               !stores ? "(reads only: rate against memcpy's)" : v.name[0] == 'c' && v.name[1] == 'u' ? "" : w ? "WRONG" : "ok");
        if (w && stores && v.name[0] != 'c')
            printf("  %u of %d elements wrong\n", w, n);
    }
    /* the buffers stay: the next kind's land elsewhere (the GPU has room for all of them) */
    }
    return 0;
}
