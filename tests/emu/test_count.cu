/*
 * test_count.cu -- the memory-request counters of make explain (count.cpp) on
 * kernels whose cost is known by hand: a warp of 32 consecutive floats touches
 * 4 sectors, a stride of 32 floats 32 sectors, float4 16; a 32x32 shared tile
 * read by column needs 32 wavefronts, a padded 32x33 one 1, a broadcast 1.
 * Each kernel is written on one line and the constant after it names that line,
 * so the counts are looked up where count.cpp attributes them. Branches: an if on
 * the lane's parity diverges in every warp with 16 lanes in; one on the block
 * index never diverges; a loop whose trip count is the lane's index modulo 4
 * runs 4 times per warp (3 conditions true for some lanes, then all false).
 * Ops: the copies, kernels, events and host waits of a range, one line each in
 * issue order, with their streams numbered as first used. The define below comes after the
 * runtime's headers, which emu-nvcc (as nvcc) includes before the file: it changes nothing,
 * and stream 0 stays the legacy stream (test_ptds.cu has the per-thread default stream).
 */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "emu_test.h"

namespace {

__global__ void copy_floats(float *out, const float *in, int stride) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[(size_t)i * stride]; }
constexpr int kCopyLine = __LINE__ - 1;

__global__ void copy_float4(float4 *out, const float4 *in) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i]; }
constexpr int kFloat4Line = __LINE__ - 1;
__global__ void add_pairs(float *out, const float *in) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[2 * i] + in[2 * i + 1]; }
constexpr int kPairsLine = __LINE__ - 1;
/* g++ copies a float4 whose fields are used one by one field by field: four 4-byte accesses. */
__global__ void scale_float4(float4 *out, const float4 *in) { int i = blockIdx.x * blockDim.x + threadIdx.x; float4 v = in[i]; v.x *= 2; v.y *= 3; v.z *= 4; v.w *= 5; out[i] = v; }
constexpr int kScaleLine = __LINE__ - 1;

/* A 32x32 block writes a tile by rows and reads it back by columns; PAD is 0 or 1. */
template <int PAD>
__global__ void tile_columns(float *out, const float *in)
{
    __shared__ float tile[32][32 + PAD];
    const int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 32 + x];
    __syncthreads();
    out[y * 32 + x] = tile[x][y]; /* lane x reads row x: bank (x * (32 + PAD) + y) % 32 */
}
constexpr int kTileStoreLine = __LINE__ - 4;
constexpr int kTileLoadLine = __LINE__ - 3;

/* Every lane reads the same word (a broadcast), then lane l reads word 2l (2-way). */
__global__ void broadcast_and_two_way(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x;
    s[threadIdx.x + 32] = 0.0f;
    __syncthreads();
    out[threadIdx.x] = s[0] + s[2 * threadIdx.x];
}
constexpr int kBroadcastLine = __LINE__ - 2;

/* out[i] = 1 on odd lanes, 2 in odd blocks, plus lane % 4 more. */
__global__ void branchy(int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 0;
    if (threadIdx.x % 2 == 1)
        v = 1;
    if (blockIdx.x % 2 == 1)
        v += 2;
    for (int k = 0; k < (int)threadIdx.x % 4; k++)
        v++;
    out[i] = v;
}
constexpr int kBranchyParity = __LINE__ - 8;
constexpr int kBranchyBlock = __LINE__ - 7;
constexpr int kBranchyLoop = __LINE__ - 6;

/* One branch on a && that g++ may compile into several calls (the second half runs only where
 * the first holds): still one branch, divergent where its lanes split. */
__global__ void short_circuit(int *out, const int *limit)
{
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    int v = 0;
    if (w < 1 && l < limit[w])
        v = 1;
    out[threadIdx.x] = v;
}
constexpr int kShortCircuitLine = __LINE__ - 4;

/* Each thread adds 1 to one of four global counters (its lane % 4), and to a shared one. */
__global__ void atomics_four(unsigned *counters) { __shared__ unsigned s; if (threadIdx.x == 0) s = 0; __syncthreads(); atomicAdd(&s, 1u); atomicAdd(&counters[threadIdx.x % 4], 1u); }
constexpr int kAtomicsLine = __LINE__ - 1;
__global__ void print_and_sleep(int *out) {
    if (threadIdx.x % 32 == 0) printf("warp %u\n", threadIdx.x / 32);
    __nanosleep(100); out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
constexpr int kPrintfLine = __LINE__ - 2, kSleepLine = __LINE__ - 1;

/* One counted line: what count.cpp wrote for a source line, kind and operation, summed
 * over the instructions the compiler made of it. */
struct Counted {
    unsigned bytes = 0;                   /* widest access */
    unsigned long long requests = 0;      /* warp-wide requests */
    unsigned long long units = 0;         /* sectors or wavefronts */
    unsigned long long ideal = 0;         /* the same lanes on consecutive words */
    double per_request() const { return requests ? (double)units / requests : -1; }
};

Counted find(const std::vector<std::string> &rows, int line, const char *space, const char *op)
{
    Counted c;
    char where[64];
    snprintf(where, sizeof where, "test_count.cu:%d\t%s\t%s\t", line, space, op);
    for (const std::string &r : rows) {
        if (r.find(where) == std::string::npos)
            continue;
        unsigned range, bytes;
        unsigned long long req, lanes, units, ideal;
        char loc[512], sp[16], o[16];
        if (sscanf(r.c_str(), "range %u\t%511s\t%15s\t%15s\t%u\t%llu\t%llu\t%llu\t%llu", &range, loc,
                   sp, o, &bytes, &req, &lanes, &units, &ideal) != 9)
            continue;
        c.bytes = bytes > c.bytes ? bytes : c.bytes;
        c.requests += req;
        c.units += units;
        c.ideal += ideal;
    }
    if (c.requests == 0) {
        printf("\n    no %s %s counted at test_count.cu:%d; the file held:\n", space, op, line);
        for (const std::string &r : rows)
            printf("    %s", r.c_str());
    }
    return c;
}

void test_global_sectors_per_request()
{
    const int n = 64; /* two warps */
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, n * 32 * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, n * sizeof(float)));
    std::vector<float> h(n * 32);
    for (int i = 0; i < n * 32; ++i)
        h[i] = (float)i;
    EXPECT_OK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));

    auto rows = counted_rows([&] { copy_floats<<<1, n>>>(out, in, 1); });
    Counted ld = find(rows, kCopyLine, "global", "load"), st = find(rows, kCopyLine, "global", "store");
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 8); /* 4 sectors per request: 128 consecutive bytes */
    CU_ASSERT_EQUAL(ld.ideal, 8);
    CU_ASSERT_EQUAL(st.requests, 2);
    CU_ASSERT_EQUAL(st.units, 8);

    rows = counted_rows([&] { copy_floats<<<1, n>>>(out, in, 32); });
    ld = find(rows, kCopyLine, "global", "load");
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 64); /* 32 per request: every lane a sector of its own */
    CU_ASSERT_EQUAL(ld.ideal, 8);
    /* The costliest request, lane by lane: offsets from the lowest address (rounded down to
     * 128 bytes) and sizes, for make explain's picture. */
    std::string lanes;
    char where[64];
    snprintf(where, sizeof where, "test_count.cu:%d\tglobal\tload\t4\t32\t", kCopyLine);
    for (const std::string &r : rows)
        if (r.compare(0, 8, "request ") == 0 && r.find(where) != std::string::npos)
            lanes = r.substr(r.find(where) + strlen(where));
    CU_ASSERT_EQUAL(lanes.compare(0, 17, "0+4 128+4 256+4 3"), 0);
    CU_ASSERT(lanes.find(" 3968+4\n") != std::string::npos); /* lane 31 */
    std::vector<float> got(n);
    EXPECT_OK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) /* counting changed no result */
        CU_ASSERT_EQUAL(got[i], (float)(i * 32));

    /* Two scalar loads side by side stay two requests of 8 sectors each (a stride of 2
     * floats), not one 8-byte access. */
    rows = counted_rows([&] { add_pairs<<<1, n>>>(out, in); });
    ld = find(rows, kPairsLine, "global", "load");
    CU_ASSERT_EQUAL(ld.bytes, 4);
    CU_ASSERT_EQUAL(ld.requests, 4);
    CU_ASSERT_EQUAL(ld.units, 32);

    /* A partial warp: 48 threads are a request of 32 lanes and one of 16 (2 sectors). */
    rows = counted_rows([&] { copy_floats<<<1, 48>>>(out, in, 1); });
    ld = find(rows, kCopyLine, "global", "load");
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 6);
    cudaFree(in);
    cudaFree(out);
}

void test_float4_is_one_16_byte_request()
{
    const int n = 64;
    float4 *in, *out;
    EXPECT_OK(cudaMalloc(&in, n * sizeof(float4)));
    EXPECT_OK(cudaMalloc(&out, n * sizeof(float4)));
    EXPECT_OK(cudaMemset(in, 0, n * sizeof(float4)));
    auto rows = counted_rows([&] { copy_float4<<<1, n>>>(out, in); });
    Counted ld = find(rows, kFloat4Line, "global", "load"), st = find(rows, kFloat4Line, "global", "store");
    CU_ASSERT_EQUAL(ld.bytes, 16);
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 32); /* 16 sectors per request: 512 consecutive bytes */
    CU_ASSERT_EQUAL(st.bytes, 16);
    CU_ASSERT_EQUAL(st.requests, 2);
    CU_ASSERT_EQUAL(st.units, 32);
    /* Loads in flight: each of the 64 threads loads its 16 bytes, then stores them. */
    char where[64];
    snprintf(where, sizeof where, "test_count.cu:%d\t", kFloat4Line);
    unsigned long long runs = 0, loads = 0, bytes = 0, most = 0;
    for (const std::string &r : rows) {
        unsigned range;
        char loc[512];
        if (r.compare(0, 6, "loads ") == 0 && r.find(where) != std::string::npos)
            CU_ASSERT_EQUAL(sscanf(r.c_str(), "loads %u\t%511s\t%llu\t%llu\t%llu\t%llu", &range, loc,
                                   &runs, &loads, &bytes, &most), 6);
    }
    CU_ASSERT_EQUAL(runs, 64);
    CU_ASSERT_EQUAL(bytes, 64 * 16);
    CU_ASSERT_EQUAL(most, 16);

    rows = counted_rows([&] { scale_float4<<<1, n>>>(out, in); });
    ld = find(rows, kScaleLine, "global", "load");
    st = find(rows, kScaleLine, "global", "store");
    CU_ASSERT_EQUAL(ld.bytes, 16);
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 32);
    CU_ASSERT_EQUAL(st.bytes, 16);
    CU_ASSERT_EQUAL(st.requests, 2);
    CU_ASSERT_EQUAL(st.units, 32);
    cudaFree(in);
    cudaFree(out);
}

void test_shared_wavefronts()
{
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, 1024 * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, 1024 * sizeof(float)));
    EXPECT_OK(cudaMemset(in, 0, 1024 * sizeof(float)));
    auto rows = counted_rows([&] { tile_columns<0><<<1, dim3(32, 32)>>>(out, in); });
    Counted st = find(rows, kTileStoreLine, "shared", "store"), ld = find(rows, kTileLoadLine, "shared", "load");
    CU_ASSERT_EQUAL(st.requests, 32);
    CU_ASSERT_EQUAL(st.units, 32);       /* a row: 1 wavefront each */
    CU_ASSERT_EQUAL(ld.requests, 32);
    CU_ASSERT_EQUAL(ld.units, 32 * 32);  /* a column of a 32x32 tile: 32-way conflict */
    CU_ASSERT_EQUAL(ld.ideal, 32);

    rows = counted_rows([&] { tile_columns<1><<<1, dim3(32, 32)>>>(out, in); });
    ld = find(rows, kTileLoadLine, "shared", "load");
    CU_ASSERT_EQUAL(ld.requests, 32);
    CU_ASSERT_EQUAL(ld.units, 32);       /* padded to 33: 32 different banks */

    float *o;
    EXPECT_OK(cudaMalloc(&o, 32 * sizeof(float)));
    rows = counted_rows([&] { broadcast_and_two_way<<<1, 32>>>(o); });
    ld = find(rows, kBroadcastLine, "shared", "load");
    /* s[0]: one word for all lanes, 1 wavefront; s[2l]: words 0..62 step 2, 2 per bank */
    CU_ASSERT_EQUAL(ld.requests, 2);
    CU_ASSERT_EQUAL(ld.units, 3);
    cudaFree(o);
    cudaFree(in);
    cudaFree(out);
}

/* Only what runs between cudaProfilerStart and Stop is counted: a kernel launched before
 * the range leaves no row, one launched inside it does. */
void test_only_the_range_is_counted()
{
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, 32 * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, 32 * sizeof(float)));
    EXPECT_OK(cudaMemset(in, 0, 32 * sizeof(float)));
    auto rows = counted_rows([&] {});
    CU_ASSERT_EQUAL(rows.size(), 0);
    char path[] = "/tmp/emu-count-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    setenv("CUDA_EMU_COUNT", path, 1);
    copy_floats<<<1, 32>>>(out, in, 1); /* outside any range */
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaProfilerStart());
    EXPECT_OK(cudaProfilerStop());
    unsetenv("CUDA_EMU_COUNT");
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    CU_ASSERT_PTR_NULL(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
    cudaFree(in);
    cudaFree(out);
}

/* What count.cpp wrote for the branch at LINE of this file. */
struct Branch {
    unsigned long long runs = 0, lanes = 0, divergent = 0, entered = 0, lanes_in = 0;
};

Branch find_branch(const std::vector<std::string> &rows, int line)
{
    Branch b;
    char where[64];
    snprintf(where, sizeof where, "test_count.cu:%d\tbranch\t", line);
    for (const std::string &r : rows) {
        if (r.find(where) == std::string::npos)
            continue;
        unsigned range, zero;
        unsigned long long v[5];
        char loc[512];
        if (sscanf(r.c_str(), "range %u\t%511s\tbranch\tcondition\t%u\t%llu\t%llu\t%llu\t%llu\t%llu",
                   &range, loc, &zero, &v[0], &v[1], &v[2], &v[3], &v[4]) != 8)
            continue;
        b.runs += v[0];
        b.lanes += v[1];
        b.divergent += v[2];
        b.entered += v[3];
        b.lanes_in += v[4];
    }
    if (b.runs == 0) {
        printf("\n    no branch counted at test_count.cu:%d; the file held:\n", line);
        for (const std::string &r : rows)
            printf("    %s", r.c_str());
    }
    return b;
}

void test_branches()
{
    const int blocks = 2, threads = 64; /* two warps a block */
    int *out;
    EXPECT_OK(cudaMalloc(&out, blocks * threads * sizeof(int)));
    auto rows = counted_rows([&] { branchy<<<blocks, threads>>>(out); });
    Branch parity = find_branch(rows, kBranchyParity);
    CU_ASSERT_EQUAL(parity.runs, 4);      /* once per warp */
    CU_ASSERT_EQUAL(parity.lanes, 4 * 32);
    CU_ASSERT_EQUAL(parity.divergent, 4); /* odd lanes in, even lanes not */
    CU_ASSERT_EQUAL(parity.lanes_in, 4 * 16);
    Branch block = find_branch(rows, kBranchyBlock);
    CU_ASSERT_EQUAL(block.runs, 4);
    CU_ASSERT_EQUAL(block.divergent, 0);  /* the whole warp goes one way */
    CU_ASSERT_EQUAL(block.entered, 2);    /* the warps of block 1 */
    CU_ASSERT_EQUAL(block.lanes_in, 2 * 32);
    Branch loop = find_branch(rows, kBranchyLoop);
    /* Per warp: k = 0 (24 lanes in), 1 (16), 2 (8), 3 (none): 3 divergent runs, the last not. */
    CU_ASSERT_EQUAL(loop.runs, 4 * 4);
    CU_ASSERT_EQUAL(loop.divergent, 4 * 3);
    CU_ASSERT_EQUAL(loop.entered, 4 * 3);
    CU_ASSERT_EQUAL(loop.lanes_in, 4 * (24 + 16 + 8));
    CU_ASSERT_EQUAL(loop.lanes, 4 * (32 + 24 + 16 + 8));
    std::vector<int> got(blocks * threads);
    EXPECT_OK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < blocks * threads; ++i) /* counting changed no result */
        CU_ASSERT_EQUAL(got[i], (i % 2) + 2 * ((i / threads) % 2) + (i % threads) % 4);
    cudaFree(out);
}

void test_short_circuit_branch()
{
    int *out, *limit;
    const int ten = 10;
    EXPECT_OK(cudaMalloc(&out, 64 * sizeof(int)));
    EXPECT_OK(cudaMalloc(&limit, sizeof(int)));
    EXPECT_OK(cudaMemcpy(limit, &ten, sizeof ten, cudaMemcpyHostToDevice));
    auto rows = counted_rows([&] { short_circuit<<<1, 64>>>(out, limit); });
    Branch b = find_branch(rows, kShortCircuitLine);
    CU_ASSERT_EQUAL(b.runs, 2);      /* once per warp */
    CU_ASSERT_EQUAL(b.lanes, 64);
    CU_ASSERT_EQUAL(b.divergent, 1); /* warp 0: lanes 0-9 in; warp 1: none */
    CU_ASSERT_EQUAL(b.entered, 1);
    CU_ASSERT_EQUAL(b.lanes_in, 10);
    cudaFree(out);
    cudaFree(limit);
}

/* Every launch of the range is a line: its grid and what one SM holds of it. */
void test_launches()
{
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, 5 * 64 * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, 5 * 64 * sizeof(float)));
    EXPECT_OK(cudaMemset(in, 0, 5 * 64 * sizeof(float)));
    float *o;
    EXPECT_OK(cudaMalloc(&o, 32 * sizeof(float)));
    auto rows = counted_rows([&] {
        copy_floats<<<5, 64>>>(out, in, 1);
        broadcast_and_two_way<<<1, 32>>>(o);
    });
    std::vector<std::string> launches;
    for (const std::string &r : rows)
        if (r.compare(0, 7, "launch ") == 0)
            launches.push_back(r.substr(r.find('\t') + 1));
    CU_ASSERT_EQUAL_FATAL(launches.size(), 2);
    /* kernel, blocks, threads, shared bytes, registers, blocks per SM, SMs (64 threads: 32
     * blocks per SM, the device's limit; 64 floats of static shared memory) */
    CU_ASSERT_STRING_EQUAL(launches[0].c_str(), "copy_floats\t5\t64\t0\t32\t32\t4\n");
    CU_ASSERT_STRING_EQUAL(launches[1].c_str(), "broadcast_and_two_way\t1\t32\t256\t32\t32\t4\n");
    cudaFree(o);
    cudaFree(in);
    cudaFree(out);
}

/* The op lines: every stream-ordered operation of the range in issue order, on its stream (0
 * the legacy default stream, the others numbered as the range first uses them) with how that
 * stream orders its work; a copy's direction, bytes and host side (pinned or pageable), a
 * kernel's threads, events numbered as first used, the host's waits; each with its call and
 * its host thread (one here: 1). */
void test_ops_in_issue_order()
{
    float *d, *pinned;
    static float pageable[256];
    cudaStream_t a, b;
    cudaEvent_t e;
    EXPECT_OK(cudaMalloc(&d, 256 * sizeof(float)));
    EXPECT_OK(cudaMallocHost(&pinned, 256 * sizeof(float)));
    EXPECT_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreate(&b));
    EXPECT_OK(cudaEventCreate(&e));
    memset(pinned, 0, 256 * sizeof(float));
    auto rows = counted_rows([&] {
        EXPECT_OK(cudaMemcpyAsync(d, pinned, 128 * sizeof(float), cudaMemcpyHostToDevice, a));
        copy_floats<<<2, 64, 0, a>>>(d + 128, d, 1);
        EXPECT_OK(cudaEventRecord(e, a));
        EXPECT_OK(cudaStreamWaitEvent(b, e, 0));
        EXPECT_OK(cudaMemcpyAsync(pageable, d, 1024, cudaMemcpyDeviceToHost, b));
        EXPECT_OK(cudaMemsetAsync(d, 0, 512, 0));
        EXPECT_OK(cudaMemcpy(d, pinned, 64, cudaMemcpyDefault));
        EXPECT_OK(cudaMemcpyAsync(d + 64, d, 64, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
        EXPECT_OK(cudaStreamSynchronize(b));
        EXPECT_OK(cudaEventSynchronize(e));
    });
    std::vector<std::string> ops;
    for (const std::string &r : rows)
        if (r.compare(0, 3, "op ") == 0)
            ops.push_back(r.substr(r.find('\t') + 1));
    static const char *const expected[] = {
        "1\t1\tnon-blocking\th2d\t512\tpinned\tcudaMemcpyAsync\t1\n",
        "2\t1\tnon-blocking\tkernel\t128\tcopy_floats\tlaunch\t1\n",
        "3\t1\tnon-blocking\trecord\t0\tevent 1\tcudaEventRecord\t1\n",
        "4\t2\tblocking\twait\t0\tevent 1\tcudaStreamWaitEvent\t1\n",
        "5\t2\tblocking\td2h\t1024\tpageable\tcudaMemcpyAsync\t1\n",
        "6\t0\tlegacy\tmemset\t512\t-\tcudaMemsetAsync\t1\n",
        "7\t0\tlegacy\th2d\t64\tpinned\tcudaMemcpy\t1\n",
        "8\t3\tper-thread\td2d\t64\t-\tcudaMemcpyAsync\t1\n",
        "9\t2\tblocking\tsync\t0\t-\tcudaStreamSynchronize\t1\n",
        "10\t-\t-\tsync\t0\tevent 1\tcudaEventSynchronize\t1\n",
        "11\t-\t-\tsync\t0\t-\tcudaDeviceSynchronize\t1\n",
    };
    const size_t n = sizeof expected / sizeof expected[0];
    CU_ASSERT_EQUAL(ops.size(), n);
    for (size_t i = 0; i < n && i < ops.size(); ++i)
        if (ops[i] != expected[i]) {
            printf("\n    op line %zu: expected %s    found    %s", i + 1, expected[i], ops[i].c_str());
            CU_FAIL("an op line differs");
        }
    /* A stream destroyed in the range and another made at once are two streams. */
    rows = counted_rows([&] {
        cudaStream_t s;
        for (int k = 0; k < 2; ++k) {
            EXPECT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            EXPECT_OK(cudaMemsetAsync(d, 0, 4, s));
            EXPECT_OK(cudaStreamDestroy(s));
        }
    });
    std::string streams;
    for (const std::string &r : rows)
        if (r.compare(0, 3, "op ") == 0 && r.find("\tmemset\t") != std::string::npos)
            streams += r.substr(r.find('\t', r.find('\t') + 1) + 1, 1);
    CU_ASSERT_STRING_EQUAL(streams.c_str(), "12");
    cudaEventDestroy(e);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFreeHost(pinned);
    cudaFree(d);
}

/* Whether a counted line's rest (after its kind and range) is `expected`, the file as the line
 * table names it: its path, then the line; said when not. */
bool site_is(const std::string &got, const char *expected)
{
    const size_t n = strlen(expected);
    const bool ok = got.size() >= n && got.compare(got.size() - n, std::string::npos, expected) == 0 &&
                    (got.size() == n || got[got.size() - n - 1] == '/');
    if (!ok)
        printf("\n    expected ...%s    found    %s", expected, got.c_str());
    return ok;
}

/* Global atomics: one line per call site, the threads' operations and the distinct addresses
 * they updated; shared memory's atomics write none. */
void test_global_atomics()
{
    unsigned *counters;
    EXPECT_OK(cudaMalloc(&counters, 4 * sizeof(unsigned)));
    EXPECT_OK(cudaMemset(counters, 0, 4 * sizeof(unsigned)));
    auto rows = counted_rows([&] { atomics_four<<<3, 64>>>(counters); });
    std::vector<std::string> atomics;
    for (const std::string &r : rows)
        if (r.compare(0, 8, "atomics ") == 0)
            atomics.push_back(r.substr(r.find('\t') + 1));
    CU_ASSERT_EQUAL_FATAL(atomics.size(), 1);
    char expected[128];
    snprintf(expected, sizeof expected, "test_count.cu:%d\t192\t4\n", kAtomicsLine);
    CU_ASSERT(site_is(atomics[0], expected));
    cudaFree(counters);
}

/* A kernel's printf and __nanosleep calls: one line per call site, the calls and their bytes
 * printed or ns asked for ("warp N\n": 7 bytes; 2 blocks of 64 threads, a printf a warp). */
void test_printf_and_sleep()
{
    int *out;
    EXPECT_OK(cudaMalloc(&out, 128 * sizeof(int)));
    auto rows = counted_rows([&] { print_and_sleep<<<2, 64>>>(out); });
    std::vector<std::string> printfs, sleeps;
    for (const std::string &r : rows) {
        if (r.compare(0, 7, "printf ") == 0)
            printfs.push_back(r.substr(r.find('\t') + 1));
        if (r.compare(0, 6, "sleep ") == 0)
            sleeps.push_back(r.substr(r.find('\t') + 1));
    }
    CU_ASSERT_EQUAL_FATAL(printfs.size(), 1);
    CU_ASSERT_EQUAL_FATAL(sleeps.size(), 1);
    char expected[128];
    snprintf(expected, sizeof expected, "test_count.cu:%d\t4\t28\n", kPrintfLine);
    CU_ASSERT(site_is(printfs[0], expected));
    snprintf(expected, sizeof expected, "test_count.cu:%d\t128\t12800\n", kSleepLine);
    CU_ASSERT(site_is(sleeps[0], expected));
    cudaFree(out);
}

CU_TestInfo tests[] = {
    {"global: 4 sectors per request coalesced, 32 at a stride of 32 floats", test_global_sectors_per_request},
    {"global: float4 is one 16-byte request of 16 sectors", test_float4_is_one_16_byte_request},
    {"shared: column of 32x32 = 32 wavefronts, 32x33 = 1, broadcast 1", test_shared_wavefronts},
    {"only the profiler range is counted", test_only_the_range_is_counted},
    {"branches: divergent runs, lanes reaching and going in", test_branches},
    {"branches: a && compiled into several calls is one branch", test_short_circuit_branch},
    {"launches: grid, threads, shared memory, registers, blocks per SM", test_launches},
    {"ops: copies, kernels, events and host waits in issue order, by stream", test_ops_in_issue_order},
    {"atomics: global ones per call site, ops and addresses; shared ones none", test_global_atomics},
    {"printf and __nanosleep: per call site, calls and bytes or ns", test_printf_and_sleep},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_count_suite() { add_suite("memory requests counted (make explain)", tests); }
