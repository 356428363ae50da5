/* sorted-probe.cu - lab 03's "what the times add": the skeleton (four chains, a branch per
 * thread) and rung 1 (one loop with each lane's count) on the lab's input as the grader draws
 * it (classes mixed in every warp) and on the same elements sorted by class (every warp of one
 * class, so no warp diverges), timed side by side (tests/gpu/run-all.sh sorted; the figures are
 * in labs/03-divergence/README.md, recorded in tests/gpu/results/h200-sorted.txt).
 *
 *   nvcc -O3 -arch=native -Icommon -Igrader/labs/03-divergence tests/gpu/sorted-probe.cu \
 *       common/timing.cu common/device.cu common/device_info.c common/stats.c common/util.c \
 *       common/check.cu -o build/sorted-probe
 *
 * n = 33554437 elements, the lab's speed size on an H200; inputs are multiples of 2^-14 in
 * [0, 4), the class their integer part, drawn uniformly. Each variant's output is compared bit
 * for bit between the skeleton and rung 1 (the same rules, the same FMAs) on each input. Times:
 * common/timing.h's, the median of 31 interleaved rounds, each after an L2 flush. */
#include "probe.h"
#include "divergence.h"

#include <algorithm>
#include <stdio.h>
#include <string.h>
#include <vector>

namespace skeleton {
#include "../../labs/03-divergence/divergence.cu"
}
namespace rung1 {
#include "../../solutions/03-divergence/steps/1-cheap-branch.cu"
}

typedef struct run {
    float *mixed, *sorted, *out;
    int n;
} run;

static const char *const names[] = {"skeleton, classes mixed", "rung 1, classes mixed",
                                    "skeleton, sorted by class", "rung 1, sorted by class"};

static void call(void *ctx, int v, cudaStream_t s)
{
    const run *r = (const run *)ctx;
    const float *in = v < 2 ? r->mixed : r->sorted;
    if (v % 2 == 0)
        skeleton::divergence(r->out, in, r->n, s);
    else
        rung1::divergence(r->out, in, r->n, s);
}

static std::vector<float> output(probe *p, run *r, int v)
{
    std::vector<float> h((size_t)r->n);
    probe_output(p, call, r, v, r->out, h.size(), h.data());
    return h;
}

int main(void)
{
    probe p;
    probe_open(&p);
    run r;
    r.n = 33554437;
    std::vector<float> h((size_t)r.n);
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (float &v : h) { /* a multiple of 2^-14 in [0, 4): xorshift64 */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v = (float)(x % (4u << 14)) * 0x1p-14f;
    }
    const size_t bytes = h.size() * sizeof(float);
    CUDA_CHECK(cudaMalloc(&r.mixed, bytes));
    CUDA_CHECK(cudaMalloc(&r.sorted, bytes));
    CUDA_CHECK(cudaMalloc(&r.out, bytes));
    CUDA_CHECK(cudaMemcpy(r.mixed, h.data(), bytes, cudaMemcpyHostToDevice));
    std::stable_sort(h.begin(), h.end(), [](float a, float b) { return (int)a < (int)b; });
    CUDA_CHECK(cudaMemcpy(r.sorted, h.data(), bytes, cudaMemcpyHostToDevice));
    double ms[4];
    probe_time(&p, call, &r, 4, 31, ms);
    printf("%s, %d SMs; n = %d elements, chains of 256, 512, 1024, 2048 FMAs by class\n",
           p.dev.name, p.dev.sm_count, r.n);
    printf("%-28s %9s  %s\n", "variant", "ms", "check (skeleton and rung 1 equal)");
    int bad = 0;
    for (int v = 0; v < 4; v += 2) {
        const std::vector<float> a = output(&p, &r, v), b = output(&p, &r, v + 1);
        const int w = memcmp(a.data(), b.data(), bytes) != 0;
        bad += w;
        printf("%-28s %9.4f  %s\n%-28s %9.4f  %s\n", names[v], ms[v], w ? "WRONG" : "ok",
               names[v + 1], ms[v + 1], w ? "WRONG" : "ok");
    }
    CUDA_CHECK(cudaFree(r.mixed));
    CUDA_CHECK(cudaFree(r.sorted));
    CUDA_CHECK(cudaFree(r.out));
    probe_close(&p);
    return bad ? 1 : 0;
}
