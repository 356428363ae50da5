/* lab_ilp.cu - lab 04's problems for the harness: inputs, calls, verification, sizes.
 *
 * Two tasks (contract: grader/contracts/ilp.h), both at a launch the grader fixes: one block
 * per SM, 1/8 of an SM's thread slots per block.
 *   0 memory: out[i] = in[i] * a. One rounded multiply: compared bit for bit.
 *   1 arith:  ILP_STEPS dependent FMAs per element, against a double-precision CPU chain.
 *
 * How the launch is enforced. The entry point runs in prepare(), untimed, while its stream is
 * being captured into a CUDA graph (global capture mode: a synchronizing or allocating call
 * inside it fails the capture). The graph must hold exactly one node, a kernel with
 * gridDim = (blocks, 1, 1) and blockDim = (threads, 1, 1). Then the device is synchronized
 * (whatever escaped to another stream is finished) and the output poisoned, so the only
 * thing that can write the output afterwards is the recorded graph, which run() launches.
 * What is timed is therefore exactly what was checked, on every call. (Under the CPU
 * emulator there are no graphs: the entry point is called directly and the shape is not
 * checked there; speed is not measured there either.)
 *
 * Ceilings: memory, cudaMemcpy device to device of the same bytes; arith, the FP32 FMA peak
 * (SMs x FP32 lanes per SM x 2 flops x the SM clock measured under load). Ladder steps
 * (IMPL_EXTRA) give the README's curves: loads in flight per thread, chains per thread, the
 * access pattern at 16 loads in flight, and the same work at full occupancy (parallelism
 * from threads instead of from each thread). */
#include "harness.h"
#include "contracts/ilp.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_ilp; /* the table, lab_ilp.c */
extern "C" void ref_ilp_memory(float *out, const float *in, float a, int n, int blocks,
                               int threads, cudaStream_t stream);
extern "C" void ref_ilp_arith(float *out, const float *in, int n, int blocks, int threads,
                              cudaStream_t stream);

enum { TASK_MEMORY, TASK_ARITH };

#define ARITH_GRID 16384 /* arith inputs are 1 + (k - 8192) * 2^-23, 0 <= k < 16384 */

typedef struct problem {
    int task;              /* TASK_MEMORY or TASK_ARITH */
    int n;                 /* elements */
    float a;               /* memory: the scale factor */
    int blocks, threads;   /* the fixed launch: one block per SM, 1/8 of its thread slots */
    int sms, full_blocks;  /* SM count; blocks of 256 that fill every SM (TLP ladder steps) */
    float *h_in;           /* host copy of the input */
    float *h_exact;        /* memory: the expected output, bit for bit */
    double *h_expected;    /* arith: the CPU chain in double precision */
    float *h_got;          /* scratch for the downloaded output */
    dbuf in, out;          /* device buffers, guarded */
    cudaStream_t capture;  /* private stream the entry point is recorded on */
#if !defined(CUDA_EMU)
    cudaGraphExec_t exec;  /* the recorded call; run() launches it */
#endif
    char launch_problem[240]; /* what was wrong with the recorded launch; "" if nothing */
} problem;

/* ---------------------------------------------------------------------------------------- */
/* Ladder kernels (bench only; the harness launches them itself)                             */

/* Memory, block shares: block b streams its own contiguous 1/gridDim of the array, U float4
 * per thread per loop iteration, loads written before stores. What is really in flight is
 * the compiler's call, not the source's: in the sm_90 build ptxas hoists stores between the
 * loads, so U = 1 and 2 keep about 2 loads in flight and U = 4, 8 and 16 about 4 (count the
 * LDG.E.128 before the first STG.E.128 in `cuobjdump --dump-sass`). The README says so. */
template <int U>
__global__ void scale_ladder_kernel(float4 *__restrict__ out, const float4 *__restrict__ in,
                                    float a, int n)
{
    const int n4 = n / 4;
    const int share = (n4 + gridDim.x - 1) / gridDim.x;
    const int begin = blockIdx.x * share;
    const int end = begin + share < n4 ? begin + share : n4;
    const int T = blockDim.x;
    int base = begin + threadIdx.x;
    for (; base + (U - 1) * T < end; base += U * T) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            v[k] = in[base + k * T];
#pragma unroll
        for (int k = 0; k < U; k++)
            out[base + k * T] = make_float4(v[k].x * a, v[k].y * a, v[k].z * a, v[k].w * a);
    }
    for (; base < end; base += T) {
        const float4 v = in[base];
        out[base] = make_float4(v.x * a, v.y * a, v.z * a, v.w * a);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4)
        ((float *)out)[4 * n4 + threadIdx.x] = ((const float *)in)[4 * n4 + threadIdx.x] * a;
}

/* Memory, block shares with 16 loads issued before the first store (the SASS has 16 LDG.128
 * then 16 STG.128): the first version of the reference, kept as a ladder step. Against the
 * reference's grid-wide sweep it shows what the access pattern across the chip costs at the
 * same bytes in flight. */
__device__ __forceinline__ float4 scale4(float4 v, float a)
{
    return make_float4(v.x * a, v.y * a, v.z * a, v.w * a);
}

__global__ void scale_shares16_kernel(float4 *__restrict__ out, const float4 *__restrict__ in,
                                      float a, int n)
{
    const int n4 = n / 4;
    const int share = (n4 + gridDim.x - 1) / gridDim.x;
    const int begin = blockIdx.x * share;
    const int end = begin + share < n4 ? begin + share : n4;
    const int T = blockDim.x, chunk = 16 * blockDim.x;
    int base = begin + threadIdx.x;
    for (; base + 15 * T < end; base += chunk) {
        float4 v[16];
#pragma unroll
        for (int k = 0; k < 16; k++)
            v[k] = in[base + k * T];
#pragma unroll
        for (int k = 0; k < 16; k++)
            out[base + k * T] = scale4(v[k], a);
    }
    if (base < end) {
        float4 v[16];
#pragma unroll
        for (int k = 0; k < 16; k++)
            if (base + k * T < end)
                v[k] = in[base + k * T];
#pragma unroll
        for (int k = 0; k < 16; k++)
            if (base + k * T < end)
                out[base + k * T] = scale4(v[k], a);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4) {
        const int i = 4 * n4 + threadIdx.x;
        ((float *)out)[i] = ((const float *)in)[i] * a;
    }
}

/* Memory, one float per thread per iteration, with as many threads as the SMs hold. */
__global__ void scale_scalar_kernel(float *__restrict__ out, const float *__restrict__ in,
                                    float a, int n)
{
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i] * a;
}

/* Arith, C chains advanced side by side per thread (C = 1: the skeleton's schedule). */
template <int C>
__global__ void chains_ladder_kernel(float *__restrict__ out, const float *__restrict__ in,
                                     int n)
{
    const int S = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n; base += C * S) {
        float x[C], y[C];
#pragma unroll
        for (int j = 0; j < C; j++)
            x[j] = y[j] = base + j * S < n ? in[base + j * S] : 1.0f;
#pragma unroll 64
        for (int k = 0; k < ILP_STEPS; k++)
#pragma unroll
            for (int j = 0; j < C; j++)
                y[j] = fmaf(y[j], x[j], ILP_C);
#pragma unroll
        for (int j = 0; j < C; j++)
            if (base + j * S < n)
                out[base + j * S] = y[j];
    }
}

/* ---------------------------------------------------------------------------------------- */
/* CPU reference and inputs                                                                   */

/* The contract's chain in double for x = 1 + (k - 8192) * 2^-23 (exact in float). */
static double chain_cpu(int k)
{
    const double x = 1.0 + (k - ARITH_GRID / 2) * ldexp(1.0, -23);
    double y = x;
    for (int s = 0; s < ILP_STEPS; s++)
        y = y * x + (double)ILP_C;
    return y;
}

static void *create(int task, const long long size[LAB_MAX_DIMS], uint64_t seed,
                    const device_info *d)
{
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->task = task;
    p->n = (int)size[0];
    p->sms = d->sm_count;
    p->blocks = d->sm_count;
    p->threads = (d->max_threads_per_sm / 8) / 32 * 32;
    if (p->threads < 32)
        p->threads = 32;
    p->full_blocks = d->sm_count * (d->max_threads_per_sm / 256 > 0 ? d->max_threads_per_sm / 256 : 1);
    const size_t bytes = (size_t)p->n * sizeof(float);
    p->h_in = (float *)xmalloc(bytes);
    p->h_got = (float *)xmalloc(bytes);
    rng r;
    rng_seed(&r, rng_derive(seed, 2));
    if (task == TASK_MEMORY) {
        p->a = (float)(0.5 + 1.5 * rng_unit(&r)); /* in [0.5, 2) */
        fill_uniform_f32(p->h_in, (size_t)p->n, rng_derive(seed, 1), -1.f, 1.f);
        p->h_exact = (float *)xmalloc(bytes);
        /* The product of two floats is exact in double; rounding it to float once is what
         * the GPU's single multiply does. */
        for (int i = 0; i < p->n; i++)
            p->h_exact[i] = (float)((double)p->h_in[i] * p->a);
    } else {
        /* 16384 distinct inputs near 1, where x^ILP_STEPS stays between 1/e and e: every
         * step matters to the result. The CPU chain runs once per distinct input. */
        double *table = (double *)xmalloc(ARITH_GRID * sizeof(double));
        unsigned char *known = (unsigned char *)xcalloc(ARITH_GRID, 1);
        p->h_expected = (double *)xmalloc((size_t)p->n * sizeof(double));
        for (int i = 0; i < p->n; i++) {
            const int k = (int)(rng_u64(&r) % ARITH_GRID);
            p->h_in[i] = (float)(1.0 + (k - ARITH_GRID / 2) * ldexp(1.0, -23));
            if (!known[k]) {
                table[k] = chain_cpu(k);
                known[k] = 1;
            }
            p->h_expected[i] = table[k];
        }
        free(table);
        free(known);
    }
    dbuf_alloc(&p->in, bytes);
    dbuf_alloc(&p->out, bytes);
    dbuf_upload(&p->in, p->h_in, bytes);
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->capture, cudaStreamNonBlocking));
    return p;
}

static void call_entry(problem *p, int impl, cudaStream_t s);

/* One plain call of each entry point before anything is recorded, so that loading their
 * kernels (lazy module loading) and any first-call setup in a launcher happen outside the
 * capture. Its output is poisoned before every checked call anyway. */
static void warm_up(problem *p)
{
#if !defined(CUDA_EMU)
    call_entry(p, IMPL_STUDENT, p->capture);
    call_entry(p, IMPL_REFERENCE, p->capture);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
#else
    (void)p;
#endif
}

static void *create_memory(const long long size[LAB_MAX_DIMS], uint64_t seed,
                           const device_info *d)
{
    problem *p = (problem *)create(TASK_MEMORY, size, seed, d);
    warm_up(p);
    return p;
}

static void *create_arith(const long long size[LAB_MAX_DIMS], uint64_t seed,
                          const device_info *d)
{
    problem *p = (problem *)create(TASK_ARITH, size, seed, d);
    warm_up(p);
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (p->exec)
        CUDA_CHECK(cudaGraphExecDestroy(p->exec));
#endif
    CUDA_CHECK(cudaStreamDestroy(p->capture));
    dbuf_free(&p->in);
    dbuf_free(&p->out);
    free(p->h_in);
    free(p->h_exact);
    free(p->h_expected);
    free(p->h_got);
    free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Calls                                                                                      */

static void call_entry(problem *p, int impl, cudaStream_t s)
{
    float *out = (float *)p->out.data;
    const float *in = (const float *)p->in.data;
    if (p->task == TASK_MEMORY) {
        if (impl == IMPL_STUDENT)
            ilp_memory(out, in, p->a, p->n, p->blocks, p->threads, s);
        else
            ref_ilp_memory(out, in, p->a, p->n, p->blocks, p->threads, s);
    } else {
        if (impl == IMPL_STUDENT)
            ilp_arith(out, in, p->n, p->blocks, p->threads, s);
        else
            ref_ilp_arith(out, in, p->n, p->blocks, p->threads, s);
    }
}

#if !defined(CUDA_EMU)
static const char *node_type_name(cudaGraphNodeType t)
{
    switch (t) {
    case cudaGraphNodeTypeKernel: return "a kernel";
    case cudaGraphNodeTypeMemcpy: return "a memory copy";
    case cudaGraphNodeTypeMemset: return "a memset";
    case cudaGraphNodeTypeHost: return "a host function";
    case cudaGraphNodeTypeGraph: return "a child graph";
    case cudaGraphNodeTypeEmpty: return "an empty node";
    default: return "an operation";
    }
}

/* Record one call of the entry point as a graph and check its shape; on success p->exec
 * holds it, ready to launch. On failure p->exec is NULL and p->launch_problem says why. */
static void record_launch(problem *p, int impl, cudaStream_t s)
{
    const char *fn = p->task == TASK_MEMORY ? "ilp_memory" : "ilp_arith";
    if (p->exec) {
        CUDA_CHECK(cudaGraphExecDestroy(p->exec));
        p->exec = NULL;
    }
    p->launch_problem[0] = '\0';
    CUDA_CHECK(cudaStreamBeginCapture(p->capture, cudaStreamCaptureModeGlobal));
    call_entry(p, impl, p->capture);
    cudaGraph_t g = NULL;
    const cudaError_t e = cudaStreamEndCapture(p->capture, &g);
    (void)cudaGetLastError(); /* a call the capture refused must not poison later checks */
    size_t nodes = 0;
    if (e == cudaSuccess && g)
        CUDA_CHECK(cudaGraphGetNodes(g, NULL, &nodes));
    if (e != cudaSuccess || !g) {
        snprintf(p->launch_problem, sizeof p->launch_problem,
                 "%s made a call that is not allowed while its launch is recorded (%s): "
                 "launch one kernel and return; no synchronizing, no allocation",
                 fn, cudaGetErrorString(e));
    } else if (nodes != 1) {
        snprintf(p->launch_problem, sizeof p->launch_problem,
                 "%s put %zu operations on its stream; it must launch exactly one kernel "
                 "<<<%d, %d>>> on the stream it is given%s",
                 fn, nodes, p->blocks, p->threads,
                 nodes == 0 ? " (did the launch go to another stream?)" : "");
    } else {
        cudaGraphNode_t node;
        cudaGraphNodeType type;
        CUDA_CHECK(cudaGraphGetNodes(g, &node, &nodes));
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) {
            snprintf(p->launch_problem, sizeof p->launch_problem,
                     "%s launched %s; it must launch one kernel <<<%d, %d>>>", fn,
                     node_type_name(type), p->blocks, p->threads);
        } else {
            cudaKernelNodeParams k;
            CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &k));
            if (k.gridDim.x != (unsigned)p->blocks || k.gridDim.y != 1 || k.gridDim.z != 1 ||
                k.blockDim.x != (unsigned)p->threads || k.blockDim.y != 1 ||
                k.blockDim.z != 1)
                snprintf(p->launch_problem, sizeof p->launch_problem,
                         "%s launched <<<(%u,%u,%u), (%u,%u,%u)>>>; the launch is fixed: "
                         "<<<%d, %d>>> exactly (change the work per thread, not the grid)",
                         fn, k.gridDim.x, k.gridDim.y, k.gridDim.z, k.blockDim.x,
                         k.blockDim.y, k.blockDim.z, p->blocks, p->threads);
        }
    }
    if (!p->launch_problem[0]) {
        CUDA_CHECK(cudaGraphInstantiate(&p->exec, g, 0));
        CUDA_CHECK(cudaGraphUpload(p->exec, s)); /* untimed: the first launch is not slower */
    }
    if (g)
        CUDA_CHECK(cudaGraphDestroy(g));
    /* Anything the call started outside the capture is finished before the poison below. */
    CUDA_CHECK(cudaDeviceSynchronize());
}
#endif

static void prepare(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (impl == IMPL_STUDENT || impl == IMPL_REFERENCE)
        record_launch(p, impl, s);
#endif
    dbuf_poison(&p->out, s);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    float *out = (float *)p->out.data;
    const float *in = (const float *)p->in.data;
    const int n = p->n, B = p->blocks, T = p->threads;
    if (impl == IMPL_STUDENT || impl == IMPL_REFERENCE) {
#if defined(CUDA_EMU)
        call_entry(p, impl, s);
#else
        if (p->exec) /* otherwise the recorded launch was rejected: the output stays poisoned */
            CUDA_CHECK(cudaGraphLaunch(p->exec, s));
#endif
        return;
    }
    if (impl == IMPL_CEILING) { /* memory only; arith's ceiling is computed (ceiling_ms) */
        CUDA_CHECK(cudaMemcpyAsync(out, in, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice,
                                   s));
        return;
    }
    float4 *o4 = (float4 *)out;
    const float4 *i4 = (const float4 *)in;
    if (p->task == TASK_MEMORY) {
        switch (impl - IMPL_EXTRA) {
        case 0: scale_ladder_kernel<1><<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 1: scale_ladder_kernel<2><<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 2: scale_ladder_kernel<4><<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 3: scale_ladder_kernel<8><<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 4: scale_ladder_kernel<16><<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 5: scale_shares16_kernel<<<B, T, 0, s>>>(o4, i4, p->a, n); break;
        case 6: scale_scalar_kernel<<<p->full_blocks, 256, 0, s>>>(out, in, p->a, n); break;
        default: scale_ladder_kernel<1><<<p->full_blocks, 256, 0, s>>>(o4, i4, p->a, n); break;
        }
    } else {
        switch (impl - IMPL_EXTRA) {
        case 0: chains_ladder_kernel<1><<<B, T, 0, s>>>(out, in, n); break;
        case 1: chains_ladder_kernel<2><<<B, T, 0, s>>>(out, in, n); break;
        case 2: chains_ladder_kernel<4><<<B, T, 0, s>>>(out, in, n); break;
        case 3: chains_ladder_kernel<8><<<B, T, 0, s>>>(out, in, n); break;
        default: chains_ladder_kernel<1><<<p->full_blocks, 256, 0, s>>>(out, in, n); break;
        }
    }
    CUDA_CHECK_LAUNCH();
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    if (p->task == TASK_MEMORY) {
        harness_check_exact(&p->out, p->h_exact, (size_t)p->n, p->h_got, v);
    } else {
        /* Bound: y0 = x > 0, x > 0 and ILP_C > 0, so every term of every step is positive
         * and no rounding error is amplified by cancellation: each of the K = ILP_STEPS steps
         * adds at most u = 2^-24 to the relative error when fused, 2u unfused. (2K + 8) u,
         * about 1.2e-4, admits both. One step too few or too many moves every result with
         * x >= 1 (half the inputs) by 2.5e-4 or more, so a wrong step count cannot pass. */
        const double tol = (2.0 * ILP_STEPS + 8.0) * 0x1p-24;
        harness_check_close(&p->out, p->h_expected, NULL, (size_t)p->n, tol, 0.0, p->h_got, v);
    }
    harness_check_input(&p->in, p->h_in, (size_t)p->n * sizeof(float), v);
    if (p->launch_problem[0] && !v->problem[0])
        snprintf(v->problem, sizeof v->problem, "%s", p->launch_problem);
}

static double work_memory(const void *vp)
{
    return 2.0 * ((const problem *)vp)->n * sizeof(float); /* bytes read + written */
}

static double work_arith(const void *vp)
{
    return 2.0 * ILP_STEPS * ((const problem *)vp)->n; /* flops of the chains */
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "n=%d <<<%d,%d>>>", p->n, p->blocks, p->threads);
}

/* The arith ceiling: its flops at the FP32 FMA peak (SMs x lanes x 2 x measured clock). */
static double ceiling_arith(void *vp, const device_info *d, double clock_mhz, cudaStream_t s)
{
    (void)s;
    if (clock_mhz <= 0)
        clock_mhz = d->sm_clock_khz / 1e3;
    return work_arith(vp) / (device_fma_peak_gflops(d, clock_mhz) * 1e6);
}

static void speed_size_memory(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* Each of in and out is 8x the L2 (at least 256 MB): nothing survives in cache between
     * calls. n % 4 == 1 leaves a scalar tail. */
    const size_t bytes = harness_speed_bytes(d, 8, 2);
    size[0] = (long long)(bytes / sizeof(float)) - 3;
    if (d->emulated)
        size[0] = 100003;
}

static void speed_size_arith(const device_info *d, long long size[LAB_MAX_DIMS])
{
    /* Compute-bound (2048 flops per 8 bytes), but in + out is still 4x the L2 (at least
     * 256 MB), and each call takes about a millisecond on an H200. */
    const size_t bytes = harness_speed_bytes(d, 4, 1); /* in + out together */
    size[0] = (long long)(bytes / (2 * sizeof(float))) + 3;
    if (d->emulated)
        size[0] = 4099;
}

static void hidden_size_memory(rng *r, long long size[LAB_MAX_DIMS])
{
    switch (rng_range(r, 0, 2)) {
    case 0: size[0] = rng_range(r, 1, 200); break;
    case 1: size[0] = 4 * 256 * rng_range(r, 1, 2000) + rng_range(r, 1, 3); break;
    default: size[0] = rng_range(r, 1000, 5000000); break;
    }
}

static void hidden_size_arith(rng *r, long long size[LAB_MAX_DIMS])
{
    switch (rng_range(r, 0, 2)) {
    case 0: size[0] = rng_range(r, 1, 200); break;
    case 1: size[0] = 256 * rng_range(r, 1, 2000) + rng_range(r, -1, 1); break;
    default: size[0] = rng_range(r, 1000, 1000000); break;
    }
    if (size[0] < 1)
        size[0] = 1;
}

static const char *const memory_extras[] = {
    "shares, 1 float4 per iter",  "shares, 2 float4 per iter",  "shares, 4 float4 per iter",
    "shares, 8 float4 per iter",  "shares, 16 float4 per iter", "shares, 16 loads before use",
    "scalar, full occupancy (TLP)", "float4 x1, full occupancy (TLP)",
};
static const char *const arith_extras[] = {
    "1 chain per thread", "2 chains per thread", "4 chains per thread",
    "8 chains per thread", "1 chain, full occupancy (TLP)",
};

const lab_info *const harness_lab = &lab_ilp;
const lab_task harness_tasks[] = {
    {"ilp_memory", "GB/s", "cudaMemcpy D2D", 0, memory_extras,
     (int)(sizeof memory_extras / sizeof memory_extras[0]), create_memory, destroy, prepare, run,
     verify, work_memory, describe, speed_size_memory, hidden_size_memory, NULL},
    {"ilp_arith", "GFLOP/s", "FP32 FMA peak", 0, arith_extras,
     (int)(sizeof arith_extras / sizeof arith_extras[0]), create_arith, destroy, prepare, run,
     verify, work_arith, describe, speed_size_arith, hidden_size_arith, ceiling_arith},
};
const int harness_n_tasks = 2;
