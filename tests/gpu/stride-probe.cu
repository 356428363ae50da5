/* stride-probe.cu - lab 01's "hardware reason", measured: a copy in which thread i moves element
 * i * stride, at strides 1 to 64, and at stride 1 with its reads, its writes or both starting
 * one float past a 128-byte boundary, against cudaMemcpy D2D of the same useful bytes
 * (tests/gpu/run-all.sh stride; its figures are in labs/01-coalescing/README.md, recorded in
 * tests/gpu/results/h200-stride.txt).
 *
 *   nvcc -O3 -arch=native -Icommon tests/gpu/stride-probe.cu common/timing.cu common/device.cu \
 *       common/device_info.c common/stats.c common/util.c common/check.cu -o build/stride-probe
 *   build/stride-probe           the table: ms and GB/s of useful bytes (read + written)
 *   build/stride-probe --once    each variant launched once, in the table's order, untimed: for
 *                                Nsight Compute (`ncu --metrics dram__bytes_read.sum,...`)
 *
 * Every variant moves the same n floats (sized to fit the stride-64 buffers in half the free
 * memory), with a grid of full occupancy and 256 threads a block; each is checked at its first,
 * middle and last element after its run. Times: common/timing.h's, the median of 31 rounds. */
#include "probe.h"

#include <stdio.h>
#include <string.h>

#define MAX_STRIDE 64

__global__ void strided_copy(float *out, const float *in, long long n, int stride, int in_offset,
                             int out_offset)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += step)
        out[i * stride + out_offset] = in[i * stride + in_offset];
}

__global__ void fill_index(float *x, long long n)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n; j += step)
        x[j] = (float)(j % 1000003);
}

typedef struct variant {
    const char *name;
    int stride;                 /* 0: cudaMemcpy D2D of the n useful floats */
    int in_offset, out_offset;  /* floats past a 128-byte boundary where reads, writes start */
} variant;

static const variant variants[] = {
    {"cudaMemcpy D2D", 0, 0, 0},
    {"stride 1", 1, 0, 0},
    {"stride 1, both misaligned by 1 float", 1, 1, 1},
    {"stride 1, reads misaligned by 1 float", 1, 1, 0},
    {"stride 1, writes misaligned by 1 float", 1, 0, 1},
    {"stride 2", 2, 0, 0},
    {"stride 4", 4, 0, 0},
    {"stride 8", 8, 0, 0},
    {"stride 16", 16, 0, 0},
    {"stride 32", 32, 0, 0},
    {"stride 64", 64, 0, 0},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

typedef struct run {
    float *in, *out;
    long long n;
    int blocks;
} run;

static void launch(void *ctx, int v, cudaStream_t s)
{
    const run *r = (const run *)ctx;
    if (variants[v].stride == 0)
        CUDA_CHECK(cudaMemcpyAsync(r->out, r->in, (size_t)r->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    else
        strided_copy<<<r->blocks, 256, 0, s>>>(r->out, r->in, r->n, variants[v].stride,
                                               variants[v].in_offset, variants[v].out_offset);
    CUDA_CHECK(cudaGetLastError());
}

/* Element i of variant v's copy, read back from out; 0 when it holds what in held. */
static int wrong(const run *r, int v, long long i)
{
    const variant *x = &variants[v];
    const long long from = x->stride ? i * x->stride + x->in_offset : i;
    const long long to = x->stride ? i * x->stride + x->out_offset : i;
    float got;
    CUDA_CHECK(cudaMemcpy(&got, r->out + to, sizeof got, cudaMemcpyDeviceToHost));
    return got != (float)(from % 1000003);
}

int main(int argc, char **argv)
{
    const int once = argc > 1 && !strcmp(argv[1], "--once");
    probe p;
    probe_open(&p);
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    run r;
    r.n = 128ll << 20;
    while (r.n > (1 << 20) && 2 * ((size_t)r.n * MAX_STRIDE + 1) * sizeof(float) > free_b / 2)
        r.n /= 2;
    const size_t elems = (size_t)r.n * MAX_STRIDE + 1;
    r.blocks = p.dev.sm_count * (p.dev.max_threads_per_sm / 256);
    CUDA_CHECK(cudaMalloc(&r.in, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&r.out, elems * sizeof(float)));
    fill_index<<<r.blocks, 256>>>(r.in, (long long)elems);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("%s, %d SMs, L2 %zu MiB; n = %lld floats moved by every variant (%.0f MB read + "
           "written), <<<%d, 256>>>\n", p.dev.name, p.dev.sm_count, p.dev.l2_bytes >> 20, r.n,
           2.0 * r.n * sizeof(float) / 1e6, r.blocks);
    int bad = 0;
    if (once) { /* the counters' run: each variant launched once, and nothing else */
        for (int v = 0; v < N_VARIANTS; v++) {
            printf("launch %d: %s\n", v, variants[v].name);
            launch(&r, v, p.stream);
        }
        CUDA_CHECK(cudaStreamSynchronize(p.stream));
    } else {
        double ms[N_VARIANTS];
        probe_time(&p, launch, &r, N_VARIANTS, 31, ms);
        printf("%-40s %9s %9s %9s  %s\n", "variant", "ms", "GB/s", "of s=1", "check");
        for (int v = 0; v < N_VARIANTS; v++) {
            probe_run_poisoned(&p, launch, &r, v, r.out, elems * sizeof(float));
            const int w = wrong(&r, v, 0) + wrong(&r, v, r.n / 2) + wrong(&r, v, r.n - 1);
            bad += w;
            printf("%-40s %9.4f %9.1f %9.3f  %s\n", variants[v].name, ms[v],
                   2.0 * r.n * sizeof(float) / (ms[v] * 1e6), ms[1] / ms[v], w ? "WRONG" : "ok");
        }
    }
    CUDA_CHECK(cudaFree(r.in));
    CUDA_CHECK(cudaFree(r.out));
    probe_close(&p);
    return bad ? 1 : 0;
}
