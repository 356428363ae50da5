/*
 * test_sync.cu -- synchronisation between threads and blocks: atomics under
 * contention (many threads of many blocks on one address), a lock, the
 * last-block pattern with __threadfence(), blocks that wait for later blocks,
 * and waits that can never end.
 */
#include <cuda_runtime.h>

#include <vector>

#include "emu_test.h"

namespace {

struct Counters {
    int add_i;                  /* atomicAdd, +1 per thread */
    unsigned add_u;             /* atomicAdd, +2 per thread */
    unsigned long long add_ull; /* atomicAdd, +2^33 per thread */
    float add_f;                /* atomicAdd, +1.0f per thread (exact below 2^24) */
    double add_d;               /* atomicAdd, +0.5 per thread */
    int sub_i;                  /* atomicSub, -1 per thread */
    int max_i;                  /* atomicMax of the global thread index */
    unsigned min_u;             /* atomicMin of 1000000 - index */
    unsigned inc;               /* atomicInc with wrap-around at 99 */
    unsigned dec;               /* atomicDec with wrap-around at 9 */
    int cas;                    /* incremented by a compare-and-swap loop */
    unsigned bits_or;           /* atomicOr of 1 << (index % 32) */
    unsigned bits_and;          /* atomicAnd clearing bit index % 16 */
    unsigned bits_xor;          /* atomicXor of 1 << (index % 8): every bit flips 2048 times */
    int exch_seen;              /* how many threads saw a previous atomicExch value */
    int exch;                   /* atomicExch target */
};

__global__ void contend(Counters *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&c->add_i, 1);
    atomicAdd(&c->add_u, 2u);
    atomicAdd(&c->add_ull, 1ull << 33);
    atomicAdd(&c->add_f, 1.0f);
    atomicAdd(&c->add_d, 0.5);
    atomicSub(&c->sub_i, 1);
    atomicMax(&c->max_i, i);
    atomicMin(&c->min_u, 1000000u - i);
    atomicInc(&c->inc, 99u);
    atomicDec(&c->dec, 9u);
    int old = atomicAdd(&c->cas, 0), seen;
    while ((seen = atomicCAS(&c->cas, old, old + 1)) != old)
        old = seen;
    atomicOr(&c->bits_or, 1u << (i % 32));
    atomicAnd(&c->bits_and, ~(1u << (i % 16)));
    atomicXor(&c->bits_xor, 1u << (i % 8));
    if (atomicExch(&c->exch, i) != -1)
        atomicAdd(&c->exch_seen, 1);
}

void test_atomics_under_contention()
{
    const int blocks = 64, threads = 256, n = blocks * threads;
    Counters h{}, *d;
    h.min_u = 0xffffffffu;
    h.bits_and = 0xffffffffu;
    h.exch = -1;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    EXPECT_OK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
    StderrCapture cap;
    contend<<<blocks, threads>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(err, "");
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h.add_i, n);
    CU_ASSERT_EQUAL(h.add_u, 2u * n);
    CU_ASSERT_EQUAL(h.add_ull, (unsigned long long)n << 33);
    CU_ASSERT_EQUAL(h.add_f, (float)n);
    CU_ASSERT_EQUAL(h.add_d, n * 0.5);
    CU_ASSERT_EQUAL(h.sub_i, -n);
    CU_ASSERT_EQUAL(h.max_i, n - 1);
    CU_ASSERT_EQUAL(h.min_u, 1000000u - (n - 1));
    CU_ASSERT_EQUAL(h.inc, (unsigned)(n % 100));
    /* atomicDec from 0 wraps to 9, then counts down: n steps on a cycle of 10 */
    CU_ASSERT_EQUAL(h.dec, (unsigned)((10 - n % 10) % 10));
    CU_ASSERT_EQUAL(h.cas, n);
    CU_ASSERT_EQUAL(h.bits_or, 0xffffffffu);
    CU_ASSERT_EQUAL(h.bits_and, 0xffff0000u);
    CU_ASSERT_EQUAL(h.bits_xor, 0u);
    CU_ASSERT_EQUAL(h.exch_seen, n - 1);
    cudaFree(d);
}

/* A spin lock around a plain read-modify-write: correct, and the lock's
 * atomics order the critical sections, so no race is reported. */
__global__ void locked_increment(int *lock, int *value)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *value = *value + 1;
    __threadfence();
    atomicExch(lock, 0);
}

void test_spin_lock()
{
    int *d, h[2] = {0, 0};
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    EXPECT_OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    StderrCapture cap;
    locked_increment<<<50, 32>>>(d, d + 1);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(err, "");
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CU_ASSERT_EQUAL(h[1], 50);
    cudaFree(d);
}

/* The last-block pattern (CUDA sample threadFenceReduction): every block
 * publishes a partial sum, fences, takes a ticket; the last one adds up. */
__global__ void last_block_sum(const int *in, int *partials, unsigned *ticket, int *total)
{
    __shared__ int sum;
    __shared__ bool last;
    if (threadIdx.x == 0)
        sum = 0;
    __syncthreads();
    atomicAdd(&sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        last = atomicInc(ticket, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            t += ((volatile int *)partials)[b];
        *total = t;
    }
}

void test_last_block_pattern()
{
    const int blocks = 20, threads = 64, n = blocks * threads;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = i % 7;
    int *din, *partials, *total, h = 0;
    unsigned *ticket;
    EXPECT_OK(cudaMalloc(&din, n * sizeof(int)));
    EXPECT_OK(cudaMalloc(&partials, blocks * sizeof(int)));
    EXPECT_OK(cudaMalloc(&ticket, sizeof(unsigned)));
    EXPECT_OK(cudaMalloc(&total, sizeof(int)));
    EXPECT_OK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemset(ticket, 0, sizeof(unsigned)));
    StderrCapture cap;
    last_block_sum<<<blocks, threads>>>(din, partials, ticket, total);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(err, "");
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&h, total, sizeof h, cudaMemcpyDeviceToHost));
    int expect = 0;
    for (int v : in)
        expect += v;
    CU_ASSERT_EQUAL(h, expect);
    cudaFree(din);
    cudaFree(partials);
    cudaFree(ticket);
    cudaFree(total);
}

/* Block 0 waits for a flag that block 1 sets: on a GPU both are resident;
 * the emulator must start block 1 while block 0 polls. */
__global__ void wait_for_later_block(volatile int *flag, int *out, bool sleep)
{
    if (blockIdx.x == 0) {
        while (*flag == 0)
            if (sleep)
                __nanosleep(100);
        out[0] = 1;
    } else if (threadIdx.x == 0) {
        out[1] = 2;
        __threadfence();
        *flag = 1;
    }
}

void test_block_waits_for_later_block()
{
    for (int sleep = 0; sleep < 2; ++sleep) {
        int *d, h[3];
        EXPECT_OK(cudaMalloc(&d, sizeof h));
        EXPECT_OK(cudaMemset(d, 0, sizeof h));
        StderrCapture cap;
        wait_for_later_block<<<2, 32>>>(d, d + 1, sleep != 0);
        std::string err = cap.stop();
        CU_ASSERT_EQUAL(err, "");
        EXPECT_OK(cudaGetLastError());
        EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        CU_ASSERT_EQUAL(h[0], 1);
        CU_ASSERT_EQUAL(h[1], 1);
        CU_ASSERT_EQUAL(h[2], 2);
        cudaFree(d);
    }
}

__global__ void wait_forever(volatile int *flag)
{
    while (*flag == 0) {
    }
}

/* A grid-wide barrier through a counter: it needs every block resident. */
__global__ void grid_barrier(unsigned *arrived)
{
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1u);
        while (atomicAdd(arrived, 0u) < gridDim.x) {
        }
    }
    __syncthreads();
}

void test_endless_waits_are_reported()
{
    int *flag;
    EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
    EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
    StderrCapture cap;
    wait_forever<<<1, 1>>>(flag);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
    CU_ASSERT(contains(err, "cuda-emu: error: a thread waits forever for memory to change in "
                            "kernel wait_forever, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "it keeps reading 4 bytes at byte offset 0 of a 4-byte cudaMalloc "
                            "allocation"));
    EXPECT_OK(cudaDeviceReset());

    /* 8 blocks of 1024 threads are resident (4 SMs x 2): a grid barrier over
     * 8 completes, over 9 it cannot. */
    unsigned *arrived;
    EXPECT_OK(cudaMalloc(&arrived, sizeof(unsigned)));
    EXPECT_OK(cudaMemset(arrived, 0, sizeof(unsigned)));
    grid_barrier<<<8, 1024>>>(arrived);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaMemset(arrived, 0, sizeof(unsigned)));
    StderrCapture cap2;
    grid_barrier<<<9, 1024>>>(arrived);
    err = cap2.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
    CU_ASSERT(contains(err, "kernel grid_barrier, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "the emulated device keeps at most 8 blocks of this size resident "
                            "(4 SMs), so the grid's other 1 blocks cannot start"));
    EXPECT_OK(cudaDeviceReset());
}

/* Polls a flag the host sets after the launch (mapped or managed memory), then
 * answers through device memory. */
__global__ void wait_for_host(volatile int *flag, int *out)
{
    while (*flag == 0) {
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = *flag + blockIdx.x;
}

/* On a GPU the host runs while a kernel runs: the launch returns, the host
 * writes the flag, the kernel sees it. */
void test_kernel_waits_for_host_write()
{
    int *out;
    EXPECT_OK(cudaMalloc(&out, 2 * sizeof(int)));
    /* mapped pinned memory */
    int *h = nullptr, *dflag = nullptr;
    EXPECT_OK(cudaHostAlloc(&h, sizeof(int), cudaHostAllocMapped));
    *h = 0;
    EXPECT_OK(cudaHostGetDevicePointer(&dflag, h, 0));
    StderrCapture cap;
    wait_for_host<<<2, 64>>>(dflag, out);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess); /* the launch went well; the kernel runs */
    CU_ASSERT_EQUAL(cudaStreamQuery(0), cudaErrorNotReady);
    *(volatile int *)h = 40;
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaSuccess);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(err, "");
    int got[2] = {0, 0};
    CU_ASSERT_EQUAL(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    CU_ASSERT_EQUAL(got[0], 40);
    CU_ASSERT_EQUAL(got[1], 41);
    CU_ASSERT_EQUAL(cudaFreeHost(h), cudaSuccess);
    if (cudaGetLastError() != cudaSuccess) { /* leave no sticky error to what follows */
        EXPECT_OK(cudaDeviceReset());
        EXPECT_OK(cudaMalloc(&out, 2 * sizeof(int)));
    }

    /* managed memory; the host's next call (a copy) waits for the kernel */
    int *m = nullptr;
    EXPECT_OK(cudaMallocManaged(&m, sizeof(int)));
    *m = 0;
    StderrCapture cap2;
    wait_for_host<<<1, 32>>>(m, out);
    *(volatile int *)m = 7;
    CU_ASSERT_EQUAL(cudaMemcpy(got, out, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    err = cap2.stop();
    CU_ASSERT_EQUAL(err, "");
    CU_ASSERT_EQUAL(got[0], 7);
    cudaFree(m);
    cudaFree(out);
    if (cudaGetLastError() != cudaSuccess) /* leave no sticky error to the next test */
        EXPECT_OK(cudaDeviceReset());
}

/* The same kernel when the host never writes the flag: the host's
 * cudaDeviceSynchronize waits for a kernel that waits for the host. */
void test_kernel_waiting_for_host_that_waits_is_a_hang()
{
    int *out, *m = nullptr;
    EXPECT_OK(cudaMalloc(&out, sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&m, sizeof(int)));
    *m = 0;
    StderrCapture cap;
    wait_for_host<<<1, 32>>>(m, out);
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess); /* the kernel runs; the host goes on */
    cudaError_t sync = cudaDeviceSynchronize();
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(sync, cudaErrorLaunchTimeout);
    CU_ASSERT(contains(err, "cuda-emu: error: a thread waits forever for memory to change in "
                            "kernel wait_for_host, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(contains(err, "cudaMallocManaged allocation"));
    CU_ASSERT(contains(err, "the host went on after the launch and now waits for the kernel"));
    EXPECT_OK(cudaDeviceReset());

    /* device memory nothing writes, with host-writable memory about: still
     * reported during the launch, as before */
    int *flag;
    EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
    EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
    StderrCapture cap2;
    wait_forever<<<1, 1>>>(flag);
    err = cap2.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
    CU_ASSERT(contains(err, "cuda-emu: error: a thread waits forever for memory to change in "
                            "kernel wait_forever, block (0,0,0), thread (0,0,0)"));
    CU_ASSERT(err.find("the host went on") == std::string::npos);
    EXPECT_OK(cudaDeviceReset());
}

/* Two threads of one block exchange data through global memory with no
 * barrier: a race, reported with both threads and lines. */
__global__ void unordered_exchange(int *p)
{
    if (threadIdx.x == 0)
        p[0] = 1;
    if (threadIdx.x == 1)
        p[1] = p[0];
}

void test_race_in_global_memory()
{
    int *d;
    EXPECT_OK(cudaMalloc(&d, 2 * sizeof(int)));
    EXPECT_OK(cudaMemset(d, 0, 2 * sizeof(int)));
    StderrCapture cap;
    unordered_exchange<<<1, 2>>>(d);
    std::string err = cap.stop();
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CU_ASSERT(contains(err, "cuda-emu: error: data race on device memory in kernel "
                            "unordered_exchange, block (0,0,0), thread (1,0,0)"));
    CU_ASSERT(contains(err, "thread (0,0,0) of the same block wrote it at tests/emu/test_sync.cu:"));
    EXPECT_OK(cudaDeviceReset());
}

/* Freed device memory's race records are kept for the next allocation, not cleared: what
 * an earlier launch wrote there must neither stand as a write of the running launch (a false
 * race) nor hide one. */
__global__ void write_all(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = i;
}
__global__ void read_shifted(const int *p, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = p[(i + 257) % n];
}

void test_reused_records_of_freed_memory()
{
    const int first = 4096;
    for (int n : {4096, 8192, 1024}) { /* the same size again, a larger one, a smaller one */
        int *a, *b, *out;
        EXPECT_OK(cudaMalloc(&a, first * sizeof(int)));
        write_all<<<first / 256, 256>>>(a, first);
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT_OK(cudaFree(a));
        /* b, and the reader's output: whatever records they take */
        EXPECT_OK(cudaMalloc(&b, n * sizeof(int)));
        EXPECT_OK(cudaMalloc(&out, n * sizeof(int)));
        EXPECT_OK(cudaMemset(b, 0, n * sizeof(int)));
        StderrCapture cap;
        read_shifted<<<n / 256, 256>>>(b, out, n);
        std::string err = cap.stop();
        CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaSuccess);
        CU_ASSERT(err.find("data race") == std::string::npos);
        /* a race in the reused memory is still one */
        StderrCapture cap2;
        unordered_exchange<<<1, 2>>>(b);
        err = cap2.stop();
        CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
        CU_ASSERT(contains(err, "cuda-emu: error: data race on device memory in kernel unordered_exchange"));
        EXPECT_OK(cudaDeviceReset());
    }
}

CU_TestInfo tests[] = {
    {"atomics of every type under contention", test_atomics_under_contention},
    {"a spin lock across blocks", test_spin_lock},
    {"the last-block pattern with __threadfence", test_last_block_pattern},
    {"a block waits for a later block (polling, nanosleep)", test_block_waits_for_later_block},
    {"waits that never end are reported, not hung", test_endless_waits_are_reported},
    {"a kernel polls a flag the host sets after the launch", test_kernel_waits_for_host_write},
    {"a kernel waiting for a host that waits for it is a hang", test_kernel_waiting_for_host_that_waits_is_a_hang},
    {"unordered exchange through global memory is a race", test_race_in_global_memory},
    {"freed memory's race records, reused, neither invent nor hide a race", test_reused_records_of_freed_memory},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_sync_suite() { add_suite("atomics and synchronisation", tests); }
