/*
 * test_warp.cu -- warp collectives against the CUDA Programming Guide and the
 * PTX ISA (shfl.sync, vote.sync, match.sync, redux.sync): edge lanes, widths,
 * inactive and exited lanes, partial warps, reads outside the mask (a
 * warning and the GPU's value), and the errors for what CUDA leaves undefined.
 */
#include <cuda_runtime.h>

#include <vector>

#include "emu_test.h"

namespace {

constexpr unsigned FULL = 0xffffffffu;

/* Runs KERNEL-like launches that write one int per thread into a buffer of
 * N ints, returns them. */
template <class Launch>
std::vector<int> run_ints(int n, Launch launch)
{
    int *d = nullptr;
    std::vector<int> h((size_t)n, -12345);
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess)
        return h;
    cudaMemset(d, 0, n * sizeof(int));
    launch(d);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    CU_ASSERT_EQUAL(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d);
    return h;
}

__global__ void shfl_idx(int *out, int src, int width)
{
    int lane = threadIdx.x % 32;
    out[threadIdx.x] = __shfl_sync(FULL, lane * 10, src, width);
}

__global__ void shfl_up(int *out, unsigned delta, int width)
{
    out[threadIdx.x] = __shfl_up_sync(FULL, (int)threadIdx.x, delta, width);
}

__global__ void shfl_down(int *out, unsigned delta, int width)
{
    out[threadIdx.x] = __shfl_down_sync(FULL, (int)threadIdx.x, delta, width);
}

__global__ void shfl_xor(int *out, int mask, int width)
{
    out[threadIdx.x] = __shfl_xor_sync(FULL, (int)threadIdx.x, mask, width);
}

void test_shfl_idx_widths()
{
    auto a = run_ints(32, [](int *d) { shfl_idx<<<1, 32>>>(d, 3, 32); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], 30);
    /* width 8: each group of 8 reads its own lane 3 */
    auto b = run_ints(32, [](int *d) { shfl_idx<<<1, 32>>>(d, 3, 8); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(b[l], ((l & ~7) + 3) * 10);
    /* a source lane outside [0, width) is taken modulo width */
    auto c = run_ints(32, [](int *d) { shfl_idx<<<1, 32>>>(d, 35, 32); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(c[l], 30);
    auto e = run_ints(32, [](int *d) { shfl_idx<<<1, 32>>>(d, -1, 16); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(e[l], ((l & ~15) + 15) * 10);
}

void test_shfl_up_edges()
{
    auto a = run_ints(32, [](int *d) { shfl_up<<<1, 32>>>(d, 3, 32); });
    for (int l = 0; l < 32; ++l) /* lanes below delta keep their own value */
        CU_ASSERT_EQUAL(a[l], l < 3 ? l : l - 3);
    auto b = run_ints(32, [](int *d) { shfl_up<<<1, 32>>>(d, 3, 8); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(b[l], l % 8 < 3 ? l : l - 3);
}

void test_shfl_down_edges()
{
    auto a = run_ints(32, [](int *d) { shfl_down<<<1, 32>>>(d, 5, 32); });
    for (int l = 0; l < 32; ++l) /* lanes whose source is past the end keep their own */
        CU_ASSERT_EQUAL(a[l], l + 5 < 32 ? l + 5 : l);
    auto b = run_ints(32, [](int *d) { shfl_down<<<1, 32>>>(d, 5, 16); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(b[l], l % 16 + 5 < 16 ? l + 5 : l);
    /* delta is taken as 5 bits by shfl.sync: 32 is 0, every lane reads itself */
    auto c = run_ints(32, [](int *d) { shfl_down<<<1, 32>>>(d, 32, 32); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(c[l], l);
}

void test_shfl_xor_widths()
{
    auto a = run_ints(32, [](int *d) { shfl_xor<<<1, 32>>>(d, 1, 32); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], l ^ 1);
    /* width 8, lane mask 8: a group may read an earlier group but not a later one */
    auto b = run_ints(32, [](int *d) { shfl_xor<<<1, 32>>>(d, 8, 8); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(b[l], (l ^ 8) > ((l & ~7) | 7) ? l : (l ^ 8));
}

struct Pair {
    double a;  /* 8 bytes: one 64-bit chunk */
    float b;   /* and a second chunk */
};

__global__ void shfl_wide(double *out_a, float *out_b)
{
    Pair p{threadIdx.x + 0.5, threadIdx.x * 2.0f};
    Pair q = __shfl_sync(FULL, p, (threadIdx.x + 1) % 32);
    out_a[threadIdx.x] = q.a;
    out_b[threadIdx.x] = q.b;
}

void test_shfl_wide_types()
{
    double *da;
    float *db;
    EXPECT_OK(cudaMalloc(&da, 32 * sizeof(double)));
    EXPECT_OK(cudaMalloc(&db, 32 * sizeof(float)));
    shfl_wide<<<1, 32>>>(da, db);
    EXPECT_OK(cudaGetLastError());
    double ha[32];
    float hb[32];
    EXPECT_OK(cudaMemcpy(ha, da, sizeof ha, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hb, db, sizeof hb, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; ++l) {
        CU_ASSERT_EQUAL(ha[l], (l + 1) % 32 + 0.5);
        CU_ASSERT_EQUAL(hb[l], ((l + 1) % 32) * 2.0f);
    }
    cudaFree(da);
    cudaFree(db);
}

__global__ void butterfly_sum(int *out)
{
    int v = threadIdx.x % 32;
    for (int m = 16; m > 0; m /= 2)
        v += __shfl_xor_sync(FULL, v, m);
    out[threadIdx.x] = v;
}

void test_butterfly_reduction()
{
    auto a = run_ints(64, [](int *d) { butterfly_sum<<<1, 64>>>(d); });
    for (int t = 0; t < 64; ++t)
        CU_ASSERT_EQUAL(a[t], 496);
}

__global__ void ballot_half(int *out)
{
    int lane = threadIdx.x % 32;
    out[threadIdx.x] = -1;
    if (lane < 16) /* lanes 16..31 are inactive, outside the mask */
        out[threadIdx.x] = (int)__ballot_sync(0x0000ffffu, lane % 2);
}

__global__ void ballot_after_exit(int *out)
{
    int lane = threadIdx.x % 32;
    out[threadIdx.x] = -1;
    if (lane >= 20)
        return; /* exited lanes named in the mask do not take part */
    out[threadIdx.x] = (int)__ballot_sync(FULL, 1);
}

__global__ void ballot_partial_warp(int *out)
{
    out[threadIdx.x] = (int)__ballot_sync(FULL, 1);
}

void test_ballot_inactive_lanes()
{
    auto a = run_ints(32, [](int *d) { ballot_half<<<1, 32>>>(d); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], l < 16 ? 0xaaaa : -1);
    auto b = run_ints(32, [](int *d) { ballot_after_exit<<<1, 32>>>(d); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(b[l], l < 20 ? 0xfffff : -1);
    /* 40 threads: the second warp has 8 lanes, the others do not exist */
    auto c = run_ints(40, [](int *d) { ballot_partial_warp<<<1, 40>>>(d); });
    for (int t = 0; t < 40; ++t)
        CU_ASSERT_EQUAL((unsigned)c[t], t < 32 ? FULL : 0xffu);
}

__global__ void active_mask(int *out)
{
    int lane = threadIdx.x % 32;
    if (lane < 10) {
        out[threadIdx.x] = 1;
        out[threadIdx.x] ^= (int)__activemask();
    } else {
        out[threadIdx.x] = 2;
        out[threadIdx.x] ^= (int)__activemask();
    }
}

void test_activemask_divergent()
{
    auto a = run_ints(32, [](int *d) { active_mask<<<1, 32>>>(d); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL((unsigned)a[l], l < 10 ? 0x3ffu ^ 1 : 0xfffffc00u ^ 2);
}

__global__ void votes(int *out)
{
    int lane = threadIdx.x;
    out[lane] = __any_sync(FULL, lane == 5) | __all_sync(FULL, lane < 32) << 1 |
                __all_sync(FULL, lane < 31) << 2 | __any_sync(FULL, lane > 40) << 3;
}

void test_any_all()
{
    auto a = run_ints(32, [](int *d) { votes<<<1, 32>>>(d); });
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], 1 | 2);
}

__global__ void reduce_match(int *out)
{
    int lane = threadIdx.x;
    int pred = 0;
    out[lane * 6 + 0] = (int)__reduce_add_sync(FULL, (unsigned)lane);
    out[lane * 6 + 1] = (int)__reduce_min_sync(FULL, 100u - lane);
    out[lane * 6 + 2] = __reduce_max_sync(FULL, lane - 16);
    out[lane * 6 + 3] = (int)__match_any_sync(FULL, lane / 8);
    out[lane * 6 + 4] = (int)__match_all_sync(FULL, 7, &pred);
    out[lane * 6 + 5] = pred;
}

void test_reduce_and_match()
{
    auto a = run_ints(32 * 6, [](int *d) { reduce_match<<<1, 32>>>(d); });
    for (int l = 0; l < 32; ++l) {
        CU_ASSERT_EQUAL(a[l * 6 + 0], 496);
        CU_ASSERT_EQUAL(a[l * 6 + 1], 69);
        CU_ASSERT_EQUAL(a[l * 6 + 2], 15);
        CU_ASSERT_EQUAL((unsigned)a[l * 6 + 3], 0xffu << (8 * (l / 8)));
        CU_ASSERT_EQUAL((unsigned)a[l * 6 + 4], FULL);
        CU_ASSERT_EQUAL(a[l * 6 + 5], 1);
    }
}

/* Warp-synchronous shared-memory reduction: correct only with the
 * __syncwarp() calls between reads and writes; the race check must accept it. */
__global__ void syncwarp_reduce(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    s[t + 32] = t + 32;
    __syncwarp();
    for (int stride = 32; stride > 0; stride /= 2) {
        int v = t < stride ? s[t] + s[t + stride] : 0;
        __syncwarp();
        if (t < stride)
            s[t] = v;
        __syncwarp();
    }
    out[t] = s[0];
}

void test_syncwarp_orders_shared_memory()
{
    StderrCapture cap;
    auto a = run_ints(32, [](int *d) { syncwarp_reduce<<<1, 32>>>(d); });
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(err, "");
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], 64 * 63 / 2);
}

/* The same reduction without the __syncwarp() between a read and the write
 * another lane makes: a race on shared memory. */
__global__ void unsynced_warp_reduce(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    s[t + 32] = t + 32;
    __syncwarp();
    for (int stride = 32; stride > 0; stride /= 2)
        if (t < stride)
            s[t] += s[t + stride];
    out[t] = s[0];
}

void test_missing_syncwarp_is_a_race()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 32 * sizeof(int)));
    StderrCapture cap;
    unsynced_warp_reduce<<<1, 32>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "cuda-emu: error: data race on shared memory in kernel "
                            "unsynced_warp_reduce, block (0,0,0), thread ("));
    CU_ASSERT(contains(err, "__shared__ s, element"));
    EXPECT_OK(cudaDeviceReset());
}

/* Counts the occurrences of PART in TEXT. */
int count_of(const std::string &text, const std::string &part)
{
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

/* 48 threads: lanes 16..31 of the second warp do not exist, so lanes 0..15 of
 * that warp read no lane's register when they shuffle down by 16. A GPU
 * returns whatever that register holds; the emulator returns 0 and warns. */
__global__ void shfl_from_missing_lane(int *out)
{
    out[threadIdx.x] = __shfl_down_sync(FULL, (int)threadIdx.x, 16);
}

void test_shfl_from_missing_lane_warns()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 48 * sizeof(int)));
    StderrCapture cap;
    shfl_from_missing_lane<<<1, 48>>>(d);
    shfl_from_missing_lane<<<1, 48>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    int h[48] = {0};
    CU_ASSERT_EQUAL(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int t = 0; t < 32; ++t)
        CU_ASSERT_EQUAL(h[t], t < 16 ? t + 16 : t);
    for (int t = 32; t < 48; ++t)
        CU_ASSERT_EQUAL(h[t], 0);
    CU_ASSERT(contains(err, "cuda-emu: warning: a shuffle reads a lane outside its mask in "
                            "kernel shfl_from_missing_lane, block (0,0,0), thread (32,0,0)"));
    CU_ASSERT(contains(err, "reads lane 16, which does not exist"));
    CU_ASSERT(contains(err, "leaves this value undefined"));
    /* once per source line: 16 lanes, two launches, one warning */
    CU_ASSERT_EQUAL(count_of(err, "cuda-emu: warning: a shuffle reads a lane outside"), 1);
    CU_ASSERT(err.find("cuda-emu: error") == std::string::npos);
    cudaFree(d);
    if (cudaGetLastError() != cudaSuccess) /* leave no sticky error to the next test */
        EXPECT_OK(cudaDeviceReset());
}

/* The last step of NVIDIA's reduce7: the warp sums of a 256-thread block go to
 * shared memory, and the first 8 lanes shuffle them down with the mask of
 * those 8 lanes, reading lanes 8..31 outside it. A GPU gives the block's sum. */
__global__ void reduce7_last_warp(const int *in, int *out)
{
    __shared__ int sdata[8];
    unsigned tid = threadIdx.x;
    int sum = in[blockIdx.x * blockDim.x + tid];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(FULL, sum, offset);
    if (tid % 32 == 0)
        sdata[tid / 32] = sum;
    __syncthreads();
    const unsigned extent = blockDim.x / 32;
    const unsigned ballot = __ballot_sync(FULL, tid < extent);
    if (tid < extent) {
        sum = sdata[tid];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(ballot, sum, offset);
    }
    if (tid == 0)
        out[blockIdx.x] = sum;
}

void test_reduce7_partial_mask_matches_gpu()
{
    const int n = 4 * 256;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i)
        h[i] = i % 97;
    int *in, *out;
    EXPECT_OK(cudaMalloc(&in, n * sizeof(int)));
    EXPECT_OK(cudaMalloc(&out, 4 * sizeof(int)));
    EXPECT_OK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    StderrCapture cap;
    reduce7_last_warp<<<4, 256>>>(in, out);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
    int got[4] = {0, 0, 0, 0};
    CU_ASSERT_EQUAL(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int b = 0; b < 4; ++b) {
        int expect = 0;
        for (int i = 0; i < 256; ++i)
            expect += h[b * 256 + i];
        CU_ASSERT_EQUAL(got[b], expect);
    }
    /* whichever block a worker reaches first */
    CU_ASSERT(contains(err, "cuda-emu: warning: a shuffle reads a lane outside its mask in "
                            "kernel reduce7_last_warp, block ("));
    CU_ASSERT(contains(err, "), thread (0,0,0)\n  lane 0 of warp 0 calls "));
    CU_ASSERT(contains(err, "__shfl_down_sync(mask 0x000000ff) at "));
    CU_ASSERT(contains(err, "test_warp.cu:"));
    CU_ASSERT(contains(err, "reads lane 16, which has exited"));
    CU_ASSERT_EQUAL(count_of(err, "cuda-emu: warning: a shuffle reads a lane outside"), 1);
    cudaFree(in);
    cudaFree(out);
    if (cudaGetLastError() != cudaSuccess) /* leave no sticky error to the next test */
        EXPECT_OK(cudaDeviceReset());
}

/* Two halves of a warp shuffle at the same call with masks of their own: the
 * low half reads the high half's operands, as a GPU's converged warp does. */
__global__ void shfl_halves(int *out)
{
    unsigned lane = threadIdx.x % 32;
    unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    out[threadIdx.x] = __shfl_down_sync(mask, (int)threadIdx.x * 3, 16);
}

void test_shfl_reads_other_half_at_same_call()
{
    StderrCapture cap;
    auto a = run_ints(32, [](int *d) { shfl_halves<<<1, 32>>>(d); });
    std::string err = cap.stop();
    for (int l = 0; l < 32; ++l)
        CU_ASSERT_EQUAL(a[l], l < 16 ? (l + 16) * 3 : l * 3);
    CU_ASSERT(contains(err, "waits at the same shuffle with a mask of its own"));
    if (cudaGetLastError() != cudaSuccess) /* leave no sticky error to the next test */
        EXPECT_OK(cudaDeviceReset());
}

__global__ void shfl_bad_width(int *out, int width)
{
    out[threadIdx.x] = __shfl_xor_sync(FULL, (int)threadIdx.x, 1, width);
}

void test_shfl_width_must_be_power_of_two()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 32 * sizeof(int)));
    StderrCapture cap;
    shfl_bad_width<<<1, 32>>>(d, 12);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "cuda-emu: error: a shuffle with an invalid width in kernel "
                            "shfl_bad_width, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "__shfl_xor_sync at "));
    CU_ASSERT(contains(err, "has width 12"));
    EXPECT_OK(cudaDeviceReset());
}

__global__ void mask_without_self(int *out)
{
    out[threadIdx.x] = (int)__ballot_sync(0x1u, 1);
}

__global__ void masks_disagree(int *out)
{
    unsigned mask = threadIdx.x < 16 ? FULL : 0xffff0000u;
    out[threadIdx.x] = (int)__ballot_sync(mask, 1);
}

void test_mask_errors()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 32 * sizeof(int)));
    StderrCapture cap;
    mask_without_self<<<1, 32>>>(d);
    std::string err = cap.stop();
    CU_ASSERT(contains(err, "the calling lane in kernel mask_without_self, block (0,0,0), "
                            "thread (1,0,0)"));
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaMalloc(&d, 32 * sizeof(int)));
    StderrCapture cap2;
    masks_disagree<<<1, 32>>>(d);
    err = cap2.stop();
    CU_ASSERT(contains(err, "lanes of a warp disagree at a warp collective"));
    CU_ASSERT(contains(err, "mask 0xffff0000"));
    EXPECT_OK(cudaDeviceReset());
}

/* A realistic block reduction: grid-stride loads as float4, a warp sum with
 * __shfl_down_sync, warp sums through shared memory, one atomicAdd per
 * block; checked against a double-precision sum on the CPU. */
__global__ void reduce_sum(const float *in, int n, float *total)
{
    __shared__ float warp_sums[8];
    float v = 0.0f;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += gridDim.x * blockDim.x) {
        float4 q = __ldg(&in4[i]);
        v += (q.x + q.y) + (q.z + q.w);
    }
    for (int i = n / 4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        v += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL, v, offset);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL, v, offset);
        if (threadIdx.x == 0)
            atomicAdd(total, v);
    }
}

void test_block_reduction_against_cpu()
{
    const int n = 100003;
    std::vector<float> h(n);
    double expect = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = (float)((i * 7919) % 1000) / 1000.0f;
        expect += h[i];
    }
    float *d, *total, got = 0;
    EXPECT_OK(cudaMalloc(&d, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&total, sizeof(float)));
    EXPECT_OK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemset(total, 0, sizeof(float)));
    reduce_sum<<<12, 256>>>(d, n, total);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&got, total, sizeof(float), cudaMemcpyDeviceToHost));
    CU_ASSERT_DOUBLE_EQUAL(got, expect, expect * 1e-5);
    cudaFree(d);
    cudaFree(total);
}

CU_TestInfo tests[] = {
    {"float4 loads, shuffle and shared-memory reduction vs the CPU", test_block_reduction_against_cpu},
    {"shfl_sync: source lane modulo width", test_shfl_idx_widths},
    {"shfl_up_sync: low lanes keep their value, per segment", test_shfl_up_edges},
    {"shfl_down_sync: high lanes keep their value, per segment", test_shfl_down_edges},
    {"shfl_xor_sync: later segments are out of reach", test_shfl_xor_widths},
    {"shuffles of 12- and 16-byte types", test_shfl_wide_types},
    {"butterfly reduction over two warps", test_butterfly_reduction},
    {"ballot_sync with inactive, exited and missing lanes", test_ballot_inactive_lanes},
    {"activemask in divergent branches", test_activemask_divergent},
    {"any_sync and all_sync", test_any_all},
    {"reduce_*_sync and match_*_sync", test_reduce_and_match},
    {"syncwarp orders shared memory (no race reported)", test_syncwarp_orders_shared_memory},
    {"missing syncwarp in a warp reduction is a race", test_missing_syncwarp_is_a_race},
    {"shuffle from a lane that does not exist: 0 and one warning", test_shfl_from_missing_lane_warns},
    {"reduce7's last warp with a partial mask gives the GPU's sum", test_reduce7_partial_mask_matches_gpu},
    {"shuffle reads the other half's operand at the same call", test_shfl_reads_other_half_at_same_call},
    {"shuffle width must be a power of two", test_shfl_width_must_be_power_of_two},
    {"mask must include the caller; lanes must agree", test_mask_errors},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_warp_suite() { add_suite("warp collectives", tests); }
