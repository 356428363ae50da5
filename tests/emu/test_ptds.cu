/*
 * test_ptds.cu -- the per-thread default stream: this file is compiled with
 * --default-stream per-thread (emu_tests.mk), so stream 0 and the calls without a stream
 * are the calling host thread's default stream, counted as such in the op lines that make
 * explain's timeline reads, while cudaStreamLegacy stays the legacy stream; and a .cu file
 * that only #defines CUDA_API_PER_THREAD_DEFAULT_STREAM itself is compiled as nvcc compiles
 * it, with the runtime's headers already included, so the define changes nothing (checked
 * in test_count.cu's ops, whose stream 0 is the legacy stream).
 */
#include <cuda_runtime.h>

#include <string>
#include <thread>
#include <vector>

#include "emu_test.h"

namespace {

__global__ void bump(float *x) { x[threadIdx.x] += 1.0f; }

/* The op lines' stream number and kind columns, in issue order. */
std::vector<std::string> streams_of(const std::vector<std::string> &rows)
{
    std::vector<std::string> out;
    for (const std::string &r : rows)
        if (r.compare(0, 3, "op ") == 0) {
            /* op RANGE \t seq \t stream \t kind \t what \t amount \t detail \t call */
            size_t a = r.find('\t'), b = r.find('\t', a + 1), c = r.find('\t', b + 1),
                   d = r.find('\t', c + 1), e = r.find('\t', d + 1);
            out.push_back(r.substr(b + 1, c - b - 1) + " " + r.substr(c + 1, d - c - 1) + " " +
                          r.substr(d + 1, e - d - 1));
        }
    return out;
}

void test_stream_zero_per_thread()
{
    float *d[2], *h;
    EXPECT_OK(cudaMallocHost(&h, 4096));
    for (float *&p : d)
        EXPECT_OK(cudaMalloc(&p, 4096));
    std::vector<std::string> rows = counted_rows([&] {
        for (int i = 0; i < 2; ++i) {
            /* one host thread after the other, so that the numbering is fixed */
            std::thread t([&, i] {
                cudaMemcpyAsync(d[i], h, 4096, cudaMemcpyHostToDevice, 0);
                bump<<<1, 32>>>(d[i]);
                cudaMemcpy(h, d[i], 128, cudaMemcpyDeviceToHost);
                cudaStreamSynchronize(0);
            });
            t.join();
        }
        cudaMemsetAsync(d[0], 0, 64, cudaStreamLegacy);
    });
    static const char *const expected[] = {
        "1 per-thread h2d", "1 per-thread kernel", "1 per-thread d2h", "1 per-thread sync",
        "2 per-thread h2d", "2 per-thread kernel", "2 per-thread d2h", "2 per-thread sync",
        "0 legacy memset", "- - sync"};
    std::vector<std::string> got = streams_of(rows);
    const size_t n = sizeof expected / sizeof expected[0];
    CU_ASSERT_EQUAL(got.size(), n);
    for (size_t i = 0; i < n && i < got.size(); ++i)
        if (got[i] != expected[i]) {
            printf("\n    op %zu: expected '%s', found '%s'", i + 1, expected[i], got[i].c_str());
            CU_FAIL("an op's stream differs");
        }
    for (float *p : d)
        cudaFree(p);
    cudaFreeHost(h);
}

CU_TestInfo tests[] = {
    {"stream 0 and the synchronous calls are each host thread's stream", test_stream_zero_per_thread},
    CU_TEST_INFO_NULL,
};

} // namespace

void add_ptds_suite() { add_suite("--default-stream per-thread", tests); }
