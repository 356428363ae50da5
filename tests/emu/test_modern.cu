/*
 * test_modern.cu -- the CUDA of current performance code: cudaLaunchKernelEx with its
 * attributes (clusters, programmatic dependent launch, events), CUDA graphs (stream capture
 * across streams joined by events, the node API of kernels, copies, memsets and host
 * functions, a launch's branches in the op lines), the per-thread default stream counted as
 * one stream per host thread, and inline PTX of the emulator's subset.
 */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "emu_test.h"

namespace {

__global__ void __cluster_dims__(2, 1, 1) fill_after(float *x, int n, float v)
{
    cudaGridDependencySynchronize();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v;
    cudaTriggerProgrammaticLaunchCompletion();
}

__global__ void add_into(float *x, const float *y, int n)
{
    cudaGridDependencySynchronize(); /* y comes from the launch before: it has ended here */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += y[i];
}

__global__ void scale(float *x, int n, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= f;
}

std::vector<float> host_copy(const float *d, int n)
{
    std::vector<float> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return h;
}

/* cudaLaunchKernelEx: the template form (arguments converted to the parameters' types, a
 * double given for a float) and the C form, a cluster shape, programmatic serialization and
 * its event; a cluster that does not divide the grid is CUDA's error. */
void test_launch_ex()
{
    const int n = 1000;
    float *x, *y;
    cudaStream_t s;
    cudaEvent_t done;
    EXPECT_OK(cudaMalloc(&x, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&y, n * sizeof(float)));
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaLaunchAttribute at[2] = {};
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(8);
    c.blockDim = dim3(128);
    c.stream = s;
    c.attrs = at;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 2;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    c.numAttrs = 1;
    EXPECT_OK(cudaLaunchKernelEx(&c, fill_after, x, n, 1.0f));
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    at[1].id = cudaLaunchAttributeProgrammaticEvent;
    at[1].val.programmaticEvent.event = done;
    at[1].val.programmaticEvent.triggerAtBlockStart = 0;
    c.numAttrs = 2;
    EXPECT_OK(cudaLaunchKernelEx(&c, fill_after, y, n, 2.0)); /* 2.0 becomes a float */
    EXPECT_OK(cudaEventQuery(done));
    int count = n;
    void *args[] = {&x, &y, &count};
    EXPECT_OK(cudaLaunchKernelExC(&c, (const void *)add_into, args));
    EXPECT_OK(cudaStreamSynchronize(s));
    std::vector<float> h = host_copy(x, n);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += h[i] != 3.0f;
    CU_ASSERT_EQUAL(wrong, 0);
    c.gridDim = dim3(7);
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 2;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    c.numAttrs = 1;
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaLaunchKernelEx(&c, fill_after, y, n, 2.0f), cudaErrorInvalidClusterSize);
    CU_ASSERT(contains(cap.stop(), "does not divide the grid"));
    CU_ASSERT_EQUAL(cudaGetLastError(), cudaErrorInvalidClusterSize);
    cudaEventDestroy(done);
    cudaStreamDestroy(s);
    cudaFree(x);
    cudaFree(y);
}

void CUDART_CB count_call(void *p) { ++*static_cast<int *>(p); }

/* Stream capture across two streams joined by events: nothing runs while capturing; each
 * launch of the graph runs every node in an order that keeps the dependencies. */
void test_stream_capture()
{
    const int n = 4096;
    float *x, *y, *h;
    int calls = 0;
    EXPECT_OK(cudaMalloc(&x, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&y, n * sizeof(float)));
    EXPECT_OK(cudaMallocHost(&h, n * sizeof(float)));
    for (int i = 0; i < n; ++i)
        h[i] = (float)i;
    cudaStream_t s, t;
    cudaEvent_t fork, join;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    EXPECT_OK(cudaEventCreate(&fork));
    EXPECT_OK(cudaEventCreate(&join));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    EXPECT_OK(cudaStreamIsCapturing(s, &status));
    CU_ASSERT_EQUAL(status, cudaStreamCaptureStatusActive);
    EXPECT_OK(cudaMemcpyAsync(x, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
    EXPECT_OK(cudaEventRecord(fork, s));
    EXPECT_OK(cudaStreamWaitEvent(t, fork, 0));
    EXPECT_OK(cudaStreamIsCapturing(t, &status));
    CU_ASSERT_EQUAL(status, cudaStreamCaptureStatusActive);
    EXPECT_OK(cudaMemsetAsync(y, 0, n * sizeof(float), t));
    scale<<<n / 256, 256, 0, t>>>(y, n, 2.0f);
    EXPECT_OK(cudaEventRecord(join, t));
    scale<<<n / 256, 256, 0, s>>>(x, n, 3.0f);
    EXPECT_OK(cudaStreamWaitEvent(s, join, 0));
    add_into<<<n / 256, 256, 0, s>>>(x, y, n);
    EXPECT_OK(cudaLaunchHostFunc(s, count_call, &calls));
    EXPECT_OK(cudaMemcpyAsync(h, x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CU_ASSERT_EQUAL(h[5], 5.0f); /* captured, not run */
    CU_ASSERT_EQUAL(calls, 0);
    cudaGraph_t g;
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    EXPECT_OK(cudaStreamIsCapturing(t, &status));
    CU_ASSERT_EQUAL(status, cudaStreamCaptureStatusNone);
    size_t nodes = 0;
    EXPECT_OK(cudaGraphGetNodes(g, nullptr, &nodes));
    CU_ASSERT_EQUAL(nodes, 7);
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, g, 0));
    EXPECT_OK(cudaGraphDestroy(g)); /* the instance keeps what it runs */
    EXPECT_OK(cudaGraphLaunch(exec, s));
    EXPECT_OK(cudaGraphLaunch(exec, s)); /* h -> x, x3: 3i, then 9i */
    EXPECT_OK(cudaStreamSynchronize(s));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += h[i] != 9.0f * (float)i;
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(calls, 2);
    EXPECT_OK(cudaGraphExecDestroy(exec));

    /* A fork never joined back is CUDA's error at the end of the capture. */
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaEventRecord(fork, s));
    EXPECT_OK(cudaStreamWaitEvent(t, fork, 0));
    scale<<<1, 32, 0, t>>>(y, 32, 1.0f);
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
    CU_ASSERT(contains(cap.stop(), "never waited for"));
    CU_ASSERT_PTR_NULL(g);
    cudaGetLastError();
    /* Waiting for a capturing stream's work cannot be done: it exists only in the graph. */
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    StderrCapture cap2;
    CU_ASSERT_EQUAL(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    cap2.stop();
    CU_ASSERT_EQUAL(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaEventDestroy(fork);
    cudaEventDestroy(join);
    cudaStreamDestroy(s);
    cudaStreamDestroy(t);
    cudaFreeHost(h);
    cudaFree(x);
    cudaFree(y);
}

/* The node API: a kernel node whose arguments are read when it is added, a copy, a memset of
 * 4-byte elements, a host node and explicit dependencies. */
void test_graph_nodes()
{
    const int n = 2048;
    float *x, *y;
    int calls = 0;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i)
        h[i] = (float)i;
    EXPECT_OK(cudaMalloc(&x, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&y, n * sizeof(float)));
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t copy_in, set, add, copy_out, host;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy_in, g, nullptr, 0, x, h.data(), n * sizeof(float),
                                       cudaMemcpyHostToDevice));
    cudaMemsetParams m = {};
    m.dst = y;
    m.value = 0x3f800000u; /* 1.0f */
    m.elementSize = 4;
    m.width = n;
    m.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &m));
    int count = n;
    float *xp = x, *yp = y;
    void *args[] = {&xp, &yp, &count};
    cudaKernelNodeParams k = {};
    k.func = (void *)add_into;
    k.gridDim = dim3(n / 256);
    k.blockDim = dim3(256);
    k.kernelParams = args;
    cudaGraphNode_t both[2] = {copy_in, set};
    EXPECT_OK(cudaGraphAddKernelNode(&add, g, both, 2, &k));
    count = 0; /* the node keeps the values it was given */
    xp = nullptr;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy_out, g, nullptr, 0, h.data(), x, n * sizeof(float),
                                       cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaGraphAddDependencies(g, &add, &copy_out, nullptr, 1));
    cudaHostNodeParams hp = {count_call, &calls};
    EXPECT_OK(cudaGraphAddHostNode(&host, g, &copy_out, 1, &hp));
    cudaGraphNodeType type;
    EXPECT_OK(cudaGraphNodeGetType(add, &type));
    CU_ASSERT_EQUAL(type, cudaGraphNodeTypeKernel);
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiateWithFlags(&exec, g, 0));
    EXPECT_OK(cudaGraphLaunch(exec, 0));
    EXPECT_OK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += h[i] != (float)i + 1.0f;
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(calls, 1);
    /* A cycle cannot be instantiated. */
    EXPECT_OK(cudaGraphAddDependencies(g, &host, &copy_in, nullptr, 1));
    cudaGraphExec_t bad;
    StderrCapture cap;
    CU_ASSERT_EQUAL(cudaGraphInstantiate(&bad, g, 0), cudaErrorInvalidValue);
    CU_ASSERT(contains(cap.stop(), "cycle"));
    cudaGetLastError();
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(g));
    cudaFree(x);
    cudaFree(y);
}

/* A graph's branches, as the op lines write them down: a captured fork and join launched runs
 * the branch that forked off on a stream of its own, after an event recorded on the launch
 * stream, and joins it back with an event the launch stream waits for (make explain's timeline
 * runs the branches side by side, as a GPU does). */
void test_graph_ops()
{
    const int n = 256;
    float *x, *y;
    std::vector<float> ones(n, 1.0f);
    EXPECT_OK(cudaMalloc(&x, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&y, n * sizeof(float)));
    EXPECT_OK(cudaMemcpy(x, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(y, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s, t;
    cudaEvent_t fork, join;
    EXPECT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    EXPECT_OK(cudaEventCreate(&fork));
    EXPECT_OK(cudaEventCreate(&join));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<1, n, 0, s>>>(x, n, 2.0f);
    EXPECT_OK(cudaEventRecord(fork, s));
    EXPECT_OK(cudaStreamWaitEvent(t, fork, 0));
    scale<<<1, n, 0, t>>>(y, n, 7.0f); /* the branch forked off: after the first kernel */
    scale<<<1, n, 0, s>>>(x, n, 3.0f); /* beside it */
    EXPECT_OK(cudaEventRecord(join, t));
    EXPECT_OK(cudaStreamWaitEvent(s, join, 0));
    scale<<<1, n, 0, s>>>(x, n, 5.0f); /* after both */
    cudaGraph_t g;
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, g, 0));
    std::vector<std::string> rows = counted_rows([&] { EXPECT_OK(cudaGraphLaunch(exec, s)); });
    std::string got;
    for (const std::string &r : rows)
        if (r.compare(0, 3, "op ") == 0) {
            /* op RANGE \t seq \t stream \t stream kind \t kind \t amount \t detail \t call \t thread */
            std::vector<std::string> f;
            for (size_t a = 0, b; a <= r.size(); a = b + 1) {
                b = r.find_first_of("\t\n", a);
                if (b == std::string::npos)
                    b = r.size();
                f.push_back(r.substr(a, b - a));
            }
            if (f.size() >= 8)
                got += f[2] + " " + f[4] + " " + f[7] + "; ";
        }
    /* stream 1 is the launch stream, 2 the one of the branch that forked off; the forked kernel
     * (the second) and the one beside it (the third) are on different streams */
    CU_ASSERT_STRING_EQUAL(got.c_str(),
        "1 record cudaGraphLaunch; 2 wait cudaGraphLaunch; 1 kernel launch; 1 record cudaGraphLaunch; "
        "1 kernel launch; 1 record cudaGraphLaunch; 2 wait cudaGraphLaunch; 2 kernel launch; "
        "2 wait cudaGraphLaunch; 2 kernel launch; 2 record cudaGraphLaunch; 1 wait cudaGraphLaunch; "
        "- sync cudaDeviceSynchronize; ");
    std::vector<float> hx = host_copy(x, n), hy = host_copy(y, n);
    CU_ASSERT_EQUAL(hx[n - 1], 30.0f);
    CU_ASSERT_EQUAL(hy[n - 1], 7.0f);
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(g));
    cudaEventDestroy(fork);
    cudaEventDestroy(join);
    cudaStreamDestroy(s);
    cudaStreamDestroy(t);
    cudaFree(x);
    cudaFree(y);
}

/* cudaStreamPerThread is a stream of each host thread: the timeline's op lines number two
 * threads' per-thread streams apart, and the threads too (the last column). */
void test_per_thread_streams()
{
    float *d;
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(float)));
    char path[] = "/tmp/emu-count-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    setenv("CUDA_EMU_COUNT", path, 1);
    cudaProfilerStart();
    EXPECT_OK(cudaMemsetAsync(d, 0, 1024, cudaStreamPerThread));
    std::thread other([&] { cudaMemsetAsync(d + 256, 0, 1024, cudaStreamPerThread); });
    other.join();
    EXPECT_OK(cudaMemsetAsync(d + 512, 0, 1024, cudaStreamPerThread));
    cudaDeviceSynchronize();
    cudaProfilerStop();
    unsetenv("CUDA_EMU_COUNT");
    std::vector<std::string> ops;
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (std::string(line).compare(0, 3, "op ") == 0)
            ops.push_back(std::string(line).substr(std::string(line).find('\t') + 1));
    if (f)
        fclose(f);
    unlink(path);
    static const char *const expected[] = {
        "1\t1\tper-thread\tmemset\t1024\t-\tcudaMemsetAsync\t1\n",
        "2\t2\tper-thread\tmemset\t1024\t-\tcudaMemsetAsync\t2\n",
        "3\t1\tper-thread\tmemset\t1024\t-\tcudaMemsetAsync\t1\n",
    };
    CU_ASSERT_EQUAL_FATAL(ops.size(), 4); /* and the host's wait */
    for (size_t i = 0; i < 3; ++i)
        if (ops[i] != expected[i]) {
            printf("\n    op line %zu: expected %s    found    %s", i + 1, expected[i], ops[i].c_str());
            CU_FAIL("an op line differs");
        }
    cudaFree(d);
}

/* Inline PTX of the emulator's subset, run: a vector load with a cache qualifier and a vector
 * store, fma.rn, a special register, prmt, lop3, shfl.sync, mov packing and unpacking, cvt. */
__global__ void ptx_subset(float4 *out, const float *in, unsigned *u, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(in + 4 * i));
    float f;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(f) : "f"(v.x), "f"(2.0f), "f"(v.y));
    v.w = f;
    asm volatile("st.global.cs.v4.f32 [%0+0], {%1, %2, %3, %4};"
                 ::"l"(out + i), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
    unsigned lane, w, x = 0x11223344u, y = 0x55667788u, p, l, s, lo, hi;
    unsigned long long packed;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("prmt.b32 %0, %1, %2, 0x5140;" : "=r"(p) : "r"(x), "r"(y));
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l) : "r"(x), "r"(y), "r"(p));
    asm volatile("shfl.sync.down.b32 %0, %1, %2, %3, %4;"
                 : "=r"(s) : "r"(lane), "r"(1), "r"(0x1f), "r"(0xffffffffu));
    asm("mov.b64 %0, {%1, %2};" : "=l"(packed) : "r"(x), "r"(y));
    asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(packed));
    int r;
    float g;
    double d = 2.5;
    asm("cvt.rni.s32.f64 %0, %1;" : "=r"(r) : "d"(d));
    asm("cvt.rn.f32.f64 %0, %1;" : "=f"(g) : "d"(d));
    asm("mov.b32 %0, %1;" : "=r"(w) : "f"(g));
    u[6 * i + 0] = p;
    u[6 * i + 1] = l;
    u[6 * i + 2] = s;
    u[6 * i + 3] = lo == x && hi == y && packed == 0x5566778811223344ull;
    u[6 * i + 4] = (unsigned)r;
    u[6 * i + 5] = w;
}

void test_inline_ptx()
{
    const int n = 64;
    float *in, *out;
    unsigned *u;
    EXPECT_OK(cudaMallocManaged(&in, n * 16));
    EXPECT_OK(cudaMallocManaged(&out, n * 16));
    EXPECT_OK(cudaMallocManaged(&u, n * 24));
    for (int i = 0; i < 4 * n; i++)
        in[i] = (float)i;
    ptx_subset<<<2, 32>>>((float4 *)out, in, u, n);
    EXPECT_OK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        const unsigned lane = i % 32, perm = 0x77338844u; /* bytes 4,1,5,0 of y:x */
        wrong += out[4 * i] != 4 * i || out[4 * i + 1] != 4 * i + 1 || out[4 * i + 2] != 4 * i + 2 ||
                 out[4 * i + 3] != 4 * i * 2.0f + 4 * i + 1;
        wrong += u[6 * i] != perm;
        wrong += u[6 * i + 1] != (0x11223344u ^ 0x55667788u ^ perm); /* 0x96: a ^ b ^ c */
        wrong += u[6 * i + 2] != (lane < 31 ? lane + 1 : lane);
        wrong += u[6 * i + 3] != 1 || u[6 * i + 4] != 2 /* 2.5 to nearest even */;
        wrong += u[6 * i + 5] != 0x40200000u; /* 2.5f */
    }
    CU_ASSERT_EQUAL(wrong, 0);
    cudaFree(in);
    cudaFree(out);
    cudaFree(u);
}

CU_TestInfo tests[] = {
    {"inline PTX: the subset (ld/st with qualifiers, fma, prmt, lop3, shfl, mov, cvt)", test_inline_ptx},
    {"cudaLaunchKernelEx: clusters, programmatic launch, events, the C form", test_launch_ex},
    {"CUDA graphs: stream capture across streams joined by events", test_stream_capture},
    {"CUDA graphs: kernel, copy, memset and host nodes, dependencies", test_graph_nodes},
    {"CUDA graphs: a launch's branches on streams of their own in the op lines", test_graph_ops},
    {"cudaStreamPerThread: one stream per host thread in the op lines", test_per_thread_streams},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_modern_suite() { add_suite("modern CUDA", tests); }
