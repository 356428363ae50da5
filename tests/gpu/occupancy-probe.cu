/* occupancy-probe.cu - lab 04's "the same work from threads instead of registers": the
 * skeleton's two kernels (one float per iteration; one chain per thread) and rung 1's memory
 * kernel (blocks that stream their own share, one float4 per iteration), each at the lab's
 * fixed launch (one block of 1/8 of an SM's thread slots per SM) and at full occupancy (every
 * thread slot filled), and a kernel of one float per thread with no loop (a block per 256
 * floats), against cudaMemcpy D2D of the same bytes and the FP32 FMA peak at the SM clock
 * measured in the same run (tests/gpu/run-all.sh occupancy; the figures are in
 * labs/04-ilp/README.md, recorded in tests/gpu/results/h200-occupancy.txt).
 *
 *   nvcc -O3 -arch=native -Icommon -Igrader/labs/04-ilp -Isolutions/04-ilp \
 *       tests/gpu/occupancy-probe.cu common/timing.cu common/device.cu common/device_info.c \
 *       common/stats.c common/util.c common/check.cu common/sizing.c -o build/occupancy-probe
 *
 * The sizes are the lab's speed checks' (grader/labs/04-ilp/table.c). Each variant's output is
 * compared bit for bit with the same kernel's at the lab's launch (its code does not depend on
 * the launch), and the memory kernels' with in * a. Times: common/timing.h's, the median of
 * 31 interleaved rounds, each sample after an L2 flush. */
#include "probe.h"
#include "sizing.h"
#include "ilp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

namespace skeleton {
#include "../../labs/04-ilp/ilp.cu"
}
namespace rung1 {
#include "../../solutions/04-ilp/steps/1-float4-one-in-flight.cu"
}

#define SCALE 1.5f

/* Threads without a loop: one float each, a block per 256 floats, as many blocks as the array
 * needs (full occupancy, blocks retiring and starting through the run). */
__global__ void scale_one_per_thread(float *out, const float *in, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * a;
}

typedef struct run {
    float *in, *out;
    int n;
    int blocks, threads; /* the launch of the variant being timed */
    int lab_blocks, full_blocks;
} run;

/* The memory variants: 0 the copy; 1, 2 the skeleton at the lab's launch and at full
 * occupancy; 3, 4 rung 1 likewise; 5 one float per thread, no loop. */
#define MEMORY_VARIANTS 6
static const char *const memory_names[MEMORY_VARIANTS] = {
    "cudaMemcpy D2D", "skeleton: one float per iteration", "skeleton: one float per iteration",
    "rung 1: block shares, one float4 per iteration", "rung 1: block shares, one float4 per iteration",
    "one float per thread, no loop"};

static int memory_blocks(const run *r, int v)
{
    return v == 5 ? (r->n + r->threads - 1) / r->threads : v % 2 ? r->lab_blocks : r->full_blocks;
}

static void memory(void *ctx, int v, cudaStream_t s)
{
    run *r = (run *)ctx;
    if (v == 0)
        CUDA_CHECK(cudaMemcpyAsync(r->out, r->in, (size_t)r->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    else if (v <= 2)
        skeleton::ilp_memory(r->out, r->in, SCALE, r->n, memory_blocks(r, v), r->threads, s);
    else if (v <= 4)
        rung1::ilp_memory(r->out, r->in, SCALE, r->n, memory_blocks(r, v), r->threads, s);
    else
        scale_one_per_thread<<<memory_blocks(r, v), r->threads, 0, s>>>(r->out, r->in, SCALE, r->n);
    CUDA_CHECK(cudaGetLastError());
}

/* The arithmetic variants: the skeleton at the lab's launch (0) and at full occupancy (1). */
static void arith(void *ctx, int v, cudaStream_t s)
{
    run *r = (run *)ctx;
    skeleton::ilp_arith(r->out, r->in, r->n, v ? r->full_blocks : r->lab_blocks, r->threads, s);
}

/* The variant's output, downloaded, after a run of its own into a poisoned buffer. */
static std::vector<float> output(probe *p, run *r, timed_fn fn, int v)
{
    std::vector<float> h((size_t)r->n);
    probe_output(p, fn, r, v, r->out, h.size(), h.data());
    return h;
}

static void alloc_inputs(run *r, int n)
{
    r->n = n;
    std::vector<float> h((size_t)n);
    for (int i = 0; i < n; i++)
        h[(size_t)i] = 0.5f + (float)(i % 4093) / 8192.0f; /* in [0.5, 1): the chains stay finite */
    CUDA_CHECK(cudaMalloc(&r->in, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&r->out, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(r->in, h.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}

static void free_inputs(run *r)
{
    CUDA_CHECK(cudaFree(r->in));
    CUDA_CHECK(cudaFree(r->out));
}

int main(void)
{
    probe p;
    probe_open(&p);
    const device_info *d = &p.dev;
    run r;
    r.threads = d->max_threads_per_sm / 8; /* the lab's launch: grader/labs/04-ilp/problem.cu */
    r.lab_blocks = d->sm_count;
    r.full_blocks = d->sm_count * (d->max_threads_per_sm / r.threads);
    const double mhz = device_measure_sm_clock_mhz(d, p.stream);
    printf("%s, %d SMs, %d threads per SM; the lab's launch <<<%d, %d>>>, full occupancy "
           "<<<%d, %d>>>; SM clock under load %.0f MHz\n", d->name, d->sm_count,
           d->max_threads_per_sm, r.lab_blocks, r.threads, r.full_blocks, r.threads, mhz);
    int bad = 0;

    /* Memory: n floats read and written, the lab's size. */
    alloc_inputs(&r, (int)(sizing_speed_bytes(d, 8, 2) / sizeof(float)) - 3);
    double ms[MEMORY_VARIANTS];
    probe_time(&p, memory, &r, MEMORY_VARIANTS, 31, ms);
    printf("\nmemory: n = %d floats (%.0f MB read + written)\n", r.n, 2.0 * r.n * sizeof(float) / 1e6);
    printf("%-48s %-14s %9s %9s %9s  %s\n", "variant", "launch", "ms", "GB/s", "of copy", "check");
    std::vector<float> in((size_t)r.n);
    CUDA_CHECK(cudaMemcpy(in.data(), r.in, in.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int v = 0; v < MEMORY_VARIANTS; v++) {
        const std::vector<float> h = output(&p, &r, memory, v);
        int w = 0;
        for (int i = 0; i < r.n && !w; i++)
            w = h[(size_t)i] != (v ? in[(size_t)i] * SCALE : in[(size_t)i]);
        bad += w;
        char launch[32] = "-";
        if (v)
            snprintf(launch, sizeof launch, "<<<%d, %d>>>", memory_blocks(&r, v), r.threads);
        printf("%-48s %-14s %9.4f %9.1f %9.3f  %s\n", memory_names[v], launch, ms[v],
               2.0 * r.n * sizeof(float) / (ms[v] * 1e6), ms[0] / ms[v], w ? "WRONG" : "ok");
    }
    free_inputs(&r);

    /* Arithmetic: ILP_STEPS FMAs per element, the lab's size. */
    alloc_inputs(&r, (int)(sizing_speed_bytes(d, 4, 1) / (2 * sizeof(float))) + 3);
    probe_time(&p, arith, &r, 2, 31, ms);
    const double peak = device_fma_peak_gflops(d, mhz);
    printf("\narithmetic: n = %d chains of %d FMAs; FP32 FMA peak at %.0f MHz: %.1f TFLOP/s\n",
           r.n, ILP_STEPS, mhz, peak / 1e3);
    printf("%-48s %-14s %9s %9s %9s  %s\n", "variant", "launch", "ms", "TFLOP/s", "of peak", "check");
    const std::vector<float> at_lab = output(&p, &r, arith, 0);
    for (int v = 0; v < 2; v++) {
        const std::vector<float> h = output(&p, &r, arith, v);
        const int w = memcmp(h.data(), at_lab.data(), h.size() * sizeof(float)) != 0;
        bad += w;
        const double tflops = 2.0 * ILP_STEPS * r.n / (ms[v] * 1e9);
        char launch[32];
        snprintf(launch, sizeof launch, "<<<%d, %d>>>", v ? r.full_blocks : r.lab_blocks, r.threads);
        printf("%-48s %-14s %9.4f %9.1f %9.3f  %s\n", "skeleton: one chain per thread", launch,
               ms[v], tflops, tflops * 1e3 / peak, w ? "WRONG" : "ok");
    }
    free_inputs(&r);
    probe_close(&p);
    return bad ? 1 : 0;
}
