/*
 * test_rewrite.cpp -- emu-rewrite's source transformation, on strings: what
 * it must change (launches, __shared__, __launch_bounds__, #pragma unroll,
 * quoted includes), what it must leave alone (comments, strings, raw strings,
 * digit separators), that line numbers never move, and its error messages.
 * test_launch.cu checks that rewritten launches also compile and run. Also what
 * emu-rewrite --figures reads of nvcc's build of a file (figures.h): ptxas's log, the PTX, the
 * cubin's constant bank, and the names g++ gives nvcc's kernels.
 */
#include <CUnit/Basic.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "figures.h"
#include "rewrite.h"

namespace {

/* Rewrites SRC (as file "k.cu", no prelude); "" and *ERROR on failure. */
std::string rw(const std::string &src, std::string *error = nullptr)
{
    std::string out, err;
    auto no_includes = [](const std::string &) { return std::string(); };
    bool ok = emu_rewrite::rewrite_source(src, "k.cu", false, no_includes, &out, &err);
    if (error)
        *error = err;
    if (!ok)
        return "";
    return out.substr(out.find('\n') + 1); /* drop the #line directive */
}

bool has(const std::string &text, const std::string &part)
{
    if (text.find(part) != std::string::npos)
        return true;
    printf("\n    expected to find: %s\n    in: %s\n", part.c_str(), text.c_str());
    return false;
}

size_t lines(const std::string &text) { return (size_t)std::count(text.begin(), text.end(), '\n'); }

void test_launch_forms()
{
    std::string out = rw("void f() { k<<<g, b>>>(x, y); }\n");
    CU_ASSERT(has(out, "::cuda_emu::launch(CUDA_EMU_KERNEL_PTR(k), \"k\", "
                       "::cuda_emu::config(g, b), [&](auto... cuda_emu_a) { k(cuda_emu_a...); }, x, y);"));
    out = rw("void f() { ns::k<float, 4><<<dim3((n + 255) / 256), 256, smem, s>>>(p, f(a, b)); }\n");
    CU_ASSERT(has(out, "CUDA_EMU_KERNEL_PTR(ns::k<float, 4>), \"ns::k<float, 4>\", "
                       "::cuda_emu::config(dim3((n + 255) / 256), 256, smem, s)"));
    CU_ASSERT(has(out, "{ ns::k<float, 4>(cuda_emu_a...); }, p, f(a, b))"));
    out = rw("void f() { k<A<B<int>>><<<1, 1>>>(); }\n"); /* >>> closing three templates */
    CU_ASSERT(has(out, "CUDA_EMU_KERNEL_PTR(k<A<B<int>>>), \"k<A<B<int>>>\", ::cuda_emu::config(1, 1), "
                       "[&](auto... cuda_emu_a) { k<A<B<int>>>(cuda_emu_a...); })"));
    out = rw("void f() { kernels[i]<<<n >> 5, 32>>>(p); }\n");
    CU_ASSERT(has(out, "CUDA_EMU_KERNEL_PTR(kernels[i]), \"kernels[i]\", ::cuda_emu::config(n >> 5, 32)"));
    out = rw("#define LAUNCH(k, p) k<<<1, 32>>>(p)\n");
    CU_ASSERT(has(out, "#define LAUNCH(k, p) ::cuda_emu::launch(CUDA_EMU_KERNEL_PTR(k), \"k\""));
}

void test_launch_keeps_lines()
{
    const std::string src = "void f() {\n"
                            "  k<<<grid, // blocks\n"
                            "      block>>>(a, /* first */\n"
                            "               b);\n"
                            "  after();\n"
                            "}\n";
    std::string out = rw(src);
    CU_ASSERT_EQUAL(lines(out), lines(src));
    CU_ASSERT(has(out, "// blocks\n"));
    CU_ASSERT(has(out, "\n  after();\n"));
}

void test_comments_and_strings_untouched()
{
    const std::string src = "const char *s = \"k<<<1, 1>>>(x)\";\n"
                            "const char *r = R\"x(a<<<b>>>() __shared__ int t;)x\";\n"
                            "char c = '<';\n"
                            "int big = 1'000'000; void f() { k<<<1, 1>>>(); }\n"
                            "// k<<<1, 1>>>(x); __shared__ float t[4];\n"
                            "/* __launch_bounds__(32) k<<<1,1>>>() */\n";
    std::string out = rw(src);
    CU_ASSERT(has(out, "\"k<<<1, 1>>>(x)\""));
    CU_ASSERT(has(out, "R\"x(a<<<b>>>() __shared__ int t;)x\""));
    CU_ASSERT(has(out, "// k<<<1, 1>>>(x); __shared__ float t[4];"));
    CU_ASSERT(has(out, "/* __launch_bounds__(32) k<<<1,1>>>() */"));
    /* the digit separators did not open a character literal: the launch after them is rewritten */
    CU_ASSERT(has(out, "int big = 1'000'000; void f() { ::cuda_emu::launch("));
}

void test_shared_in_functions()
{
    std::string out = rw("__global__ void k() {\n  __shared__ float tile[32][33];\n}\n");
    CU_ASSERT(has(out, "struct cuda_emu_shared_2_0 {   float tile[32][33]; }; auto &tile = "
                       "::cuda_emu::shared_var<decltype(cuda_emu_shared_2_0::tile)>("
                       "&::cuda_emu::shared_key<cuda_emu_shared_2_0>, 0, \"tile\");"));
    out = rw("void k() { volatile __shared__ int a[4], b[8]; }\n");
    CU_ASSERT(has(out, "{ volatile   int a[4], b[8]; };"));
    CU_ASSERT(has(out, "auto &a = ::cuda_emu::shared_var<decltype(cuda_emu_shared_1_0::a)>"));
    CU_ASSERT(has(out, "auto &b = ::cuda_emu::shared_var<decltype(cuda_emu_shared_1_0::b)>"
                       "(&::cuda_emu::shared_key<cuda_emu_shared_1_0>, 1, \"b\");"));
    out = rw("void k() { extern __shared__ __align__(16) unsigned char smem[]; }\n");
    CU_ASSERT(has(out, "struct cuda_emu_shared_1_0 {     __align__(16) unsigned char smem[1]; }; "
                       "auto *smem = ::cuda_emu::dynamic_shared<std::remove_extent_t<"
                       "decltype(cuda_emu_shared_1_0::smem)>>();"));
    out = rw("template <class T> void k() { __shared__ typename T::value_type buf[T::N]; }\n");
    CU_ASSERT(has(out, "auto &buf = ::cuda_emu::shared_var<decltype(cuda_emu_shared_1_0::buf)>"));
    /* a declaration over two lines keeps its line count */
    const std::string two = "void k() {\n  __shared__ float\n    t[4];\n  use(t);\n}\n";
    CU_ASSERT_EQUAL(lines(rw(two)), lines(two));
}

void test_shared_at_file_scope()
{
    std::string out = rw("namespace a { extern \"C\" { extern __shared__ float smem[]; } }\n");
    CU_ASSERT(has(out, "static thread_local std::remove_extent_t<decltype(cuda_emu_shared_1_0::smem)> *smem;"));
    CU_ASSERT(has(out, "::cuda_emu::register_dynamic_shared_alias("));
    out = rw("int x;\n__shared__ float t[32];\n");
    CU_ASSERT(has(out, "static thread_local decltype(cuda_emu_shared_2_0::t) t;"));
    CU_ASSERT(has(out, "::cuda_emu::register_file_shared([]() -> void * { return &t; }, sizeof(t), \"t\""));
}

void test_launch_bounds_and_pragmas()
{
    std::string out = rw("__global__ void __launch_bounds__(256, 2) k(int *p) { p[0] = 1; }\n");
    CU_ASSERT(has(out, "k(int *p) { ::cuda_emu::kernel_launch_bounds(256, 2); p[0] = 1; }"));
    out = rw("__global__ void __launch_bounds__(256) k(int *p);\n");
    CU_ASSERT(out.find("kernel_launch_bounds") == std::string::npos);
    const std::string src = "void f() {\n#pragma unroll 4\n  for (;;) {}\n#pragma once\n}\n";
    out = rw(src);
    CU_ASSERT(out.find("#pragma GCC unroll 4") != std::string::npos);
    CU_ASSERT(has(out, "#pragma once"));
    CU_ASSERT_EQUAL(lines(out), lines(src));
}

/* __noinline__ becomes the attribute where the file writes it (in a #define too), never a
 * macro that libstdc++'s own __attribute__((__noinline__)) would expand; a string keeps it. */
void test_noinline_spelled_out()
{
    const std::string src = "#define NI __noinline__\n__noinline__ __device__ int f();\n"
                            "const char *s = \"__noinline__\";\n";
    std::string out = rw(src);
    CU_ASSERT(has(out, "#define NI __attribute__((noinline))"));
    CU_ASSERT(has(out, "__attribute__((noinline)) __device__ int f();"));
    CU_ASSERT(has(out, "const char *s = \"__noinline__\";"));
    CU_ASSERT_EQUAL(lines(out), lines(src));
}

void test_includes_and_line_directive()
{
    std::string out, err;
    auto map = [](const std::string &name) {
        return name == "lab.cuh" ? std::string("/abs/copy/lab.cuh") : std::string();
    };
    CU_ASSERT(emu_rewrite::rewrite_source("#include \"lab.cuh\"\n#include \"other.h\"\n#include <cstdio>\n",
                                          "labs/x/a \"q\".cu", true, map, &out, &err));
    CU_ASSERT(has(out, "#include <cuda_emu/prelude.h>\n#line 1 \"labs/x/a \\\"q\\\".cu\"\n"));
    CU_ASSERT(has(out, "#include \"/abs/copy/lab.cuh\"\n#include \"other.h\"\n#include <cstdio>\n"));
}

void test_errors()
{
    std::string err;
    CU_ASSERT_EQUAL(rw("void f() {\n  k<<<1, 1(x);\n}\n", &err), "");
    CU_ASSERT(has(err, "k.cu:2: error: cannot find the >>> that ends this launch configuration"));
    CU_ASSERT_EQUAL(rw("void f() { k<<<1, 1>>>; }\n", &err), "");
    CU_ASSERT(has(err, "k.cu:1: error: expected the kernel's argument list after >>>"));
    CU_ASSERT_EQUAL(rw("void f() { 3 <<<1, 1>>>(); }\n", &err), "");
    CU_ASSERT(has(err, "error: cannot find the kernel before <<<"));
}

void test_shifts_in_device_code()
{
    std::string out = rw("__device__ int f(int a, int b) { return a << b; }\n"
                         "int g(int a, int b) { return a << b; }\n");
    CU_ASSERT(has(out, "return a << ::cuda_emu::shift_tag << b; }\nint g(int a, int b) { return a << b; }"));
    out = rw("__global__ void k(unsigned *p, int s) { p[0] >>= s; p[1] = (p[2] >> s) & 1; "
             "x <<= s; }\n");
    CU_ASSERT(has(out, "p[0] >>= ::cuda_emu::shift_tag >>= s;"));
    CU_ASSERT(has(out, "(p[2] >> ::cuda_emu::shift_tag >> s)"));
    CU_ASSERT(has(out, "x <<= ::cuda_emu::shift_tag <<= s;"));
    /* >> that may close template argument lists, and operator<< itself, stay. */
    out = rw("__device__ void f() { A<B<int>> x; y = a < b >> 1; }\n"
             "struct S { __device__ S &operator<<(int); };\n");
    CU_ASSERT(has(out, "A<B<int>> x; y = a < b >> 1;"));
    CU_ASSERT(has(out, "operator<<(int)"));
    /* lambdas marked __device__, and a launch's >>> */
    out = rw("void h() { auto f = [] __device__ (int v) { return v << 2; }; k<<<1, 1>>>(); }\n");
    CU_ASSERT(has(out, "return v << ::cuda_emu::shift_tag << 2;"));
}

void test_inline_ptx()
{
    std::string out = rw("__device__ unsigned lane() { unsigned r;\n"
                         "  asm volatile(\"mov.u32 %0, %%laneid;\"\n : \"=r\"(r)); return r; }\n");
    CU_ASSERT(has(out, "do { auto &&cuda_emu_p0 = (r); ::cuda_emu::ptx::out<unsigned>(cuda_emu_p0, "
                       "((unsigned)::cuda_emu::ptx_laneid())); } while (0)\n;"));
    /* a vector load with its cache qualifier, its address with an offset */
    out = rw("__device__ void f(float4 &v, const float *p) {\n"
             "  asm volatile(\"ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2+8];\"\n"
             "               : \"=f\"(v.x), \"=f\"(v.y) : \"l\"(p)); }\n");
    CU_ASSERT(has(out, "auto &&cuda_emu_p0 = (v.x); auto &&cuda_emu_p1 = (v.y); auto cuda_emu_p2 = (p); "
                       "{ const float *cuda_emu_a = reinterpret_cast<const float *>"
                       "(::cuda_emu::ptx::addr(cuda_emu_p2) + (8)); "
                       "::cuda_emu::ptx::out<float>(cuda_emu_p0, cuda_emu_a[0]); "
                       "::cuda_emu::ptx::out<float>(cuda_emu_p1, cuda_emu_a[1]); } } while (0)\n"));
    /* two instructions, one of them a shuffle; a clobber list */
    out = rw("__device__ void f(unsigned &d, unsigned a) {\n"
             "  asm(\"shfl.sync.bfly.b32 %0, %1, 4, 0x1f, 0xffffffff;\\n\\tprmt.b32 %0, %0, %1, 0x3210;\" "
             ": \"+r\"(d) : \"r\"(a) : \"memory\"); }\n");
    CU_ASSERT(has(out, "__shfl_xor_sync(((unsigned)(0xffffffff)), ::cuda_emu::ptx::in<unsigned>(cuda_emu_p1), "
                       "((unsigned)(4)), 32 - (int)((((unsigned)(0x1f)) >> 8) & 31))"));
    CU_ASSERT(has(out, "__byte_perm("));
    /* an instruction outside the subset: refused where compiled, naming it */
    out = rw("__device__ void f() { asm(\"bfe.u32 %0, %1, 0, 8;\" : \"=r\"(x) : \"r\"(y)); }\n");
    CU_ASSERT(has(out, "cannot be checked on the CPU emulator: inline PTX instruction 'bfe.u32'"));
    /* cp.async and its groups; shared addresses through the block's window */
    out = rw("__device__ void f(unsigned s, const float *g, int n) {\n"
             "  asm volatile(\"cp.async.ca.shared.global [%0+4], [%1], 4, %2;\" :: \"r\"(s), \"l\"(g), \"r\"(n));\n"
             "  asm volatile(\"cp.async.commit_group;\\n\\tcp.async.wait_group %0;\" :: \"n\"(1));\n"
             "  asm volatile(\"cp.async.wait_all;\"); }\n");
    CU_ASSERT(has(out, "CUDA_EMU_CP_ASYNC(((char *)::cuda_emu::shared_at((unsigned long long)(uintptr_t)"
                       "(::cuda_emu::ptx::addr(cuda_emu_p0) + (4)), ((unsigned)(4)), \"cp.async\")), "
                       "(::cuda_emu::ptx::addr(cuda_emu_p1) + (0)), ((unsigned)(4)), "
                       "::cuda_emu::ptx::in<unsigned>(cuda_emu_p2)); "));
    CU_ASSERT(has(out, "::cuda_emu::async_copy_commit(); ::cuda_emu::async_copy_wait("
                       "::cuda_emu::ptx::in<int>(cuda_emu_p0)); "));
    CU_ASSERT(has(out, "::cuda_emu::async_copy_wait(-1); "));
    out = rw("__device__ void f(float *p) { asm(\"ld.shared.f32 %0, [%1];\" : \"=f\"(p[0]) : \"r\"(0)); }\n");
    CU_ASSERT(has(out, "::cuda_emu::shared_at((unsigned long long)(uintptr_t)(::cuda_emu::ptx::addr(cuda_emu_p1) + (0)), "
                       "1 * sizeof(float), \"ld.shared\")"));
    out = rw("__device__ void f(unsigned s, const float *g) {\n"
             "  asm volatile(\"cp.async.bulk.shared::cluster.global [%0], [%1], 16;\" :: \"r\"(s), \"l\"(g)); }\n");
    CU_ASSERT(has(out, "inline PTX instruction 'cp.async.bulk.shared::cluster.global'"));
    out = rw("__device__ void f(float *p) { asm(\"ld.local.f32 %0, [%1];\" : \"=f\"(p[0]) : \"l\"(p)); }\n");
    CU_ASSERT(has(out, "inline PTX instruction 'ld.local.f32'"));
}

void test_kernels_registered()
{
    std::string out = rw("__global__ void k(int *p) { *p = 1; }\n"
                         "template <class T> __global__ void t(T *p) { }\n"
                         "namespace n { __global__ void __launch_bounds__(64) m(float x) { } }\n"
                         "struct S { __global__ static void s() { } };\n"
                         "__device__ void d() { }\n");
    CU_ASSERT(has(out, "*p = 1; } CUDA_EMU_REGISTER_KERNEL(k)\n"));
    CU_ASSERT(has(out, "__global__ void t(T *p) { }\n"));
    CU_ASSERT(has(out, "m(float x) { ::cuda_emu::kernel_launch_bounds(64); } CUDA_EMU_REGISTER_KERNEL(m) "
                       "CUDA_EMU_KERNEL_BOUNDS(m, 64) }"));
    CU_ASSERT(has(out, "static void s() { } };"));
    CU_ASSERT(has(out, "__device__ void d() { }\n"));
    /* The bounds are registered before the first launch: the most threads a block may have
     * (cudaFuncGetAttributes, the occupancy API) and a minimum of blocks per SM, which sets the
     * registers occupancy counts. */
    out = rw("__global__ void __launch_bounds__(1024, 1) b(int *p) { }\n");
    CU_ASSERT(has(out, "} CUDA_EMU_REGISTER_KERNEL(b) CUDA_EMU_KERNEL_BOUNDS(b, 1024, 1)\n"));
}

/* The rewritten source with each branch's name ("k.cu@OFFSET") taken out, and those names. */
std::string without_sites(const std::string &text, std::vector<std::string> *sites = nullptr)
{
    std::string out;
    size_t at = 0, hit;
    while ((hit = text.find(", \"k.cu@", at)) != std::string::npos) {
        const size_t close = text.find('"', hit + 3);
        out += text.substr(at, hit - at);
        if (sites)
            sites->push_back(text.substr(hit + 3, close - hit - 3));
        at = close + 1;
    }
    return out + text.substr(at);
}

void test_branches_in_device_code()
{
    const char *hook = "::cuda_emu::branch(static_cast<bool>(";
    std::vector<std::string> sites;
    std::string out = without_sites(rw("__device__ int f(int *p, int n) {\n"
                         "  for (int i = 0; i < n; i++) if (p[i] > 0) return i; else if (n) n--;\n"
                         "  while (n > 3) n /= 2; do { n++; } while (n < 8);\n"
                         "  return n; }\n"
                         "int g(int n) { if (n) return 1; return 0; }\n"), &sites);
    /* Each branch is named by its place in the file: five branches, five names. */
    CU_ASSERT_EQUAL(sites.size(), 5);
    CU_ASSERT_EQUAL(std::set<std::string>(sites.begin(), sites.end()).size(), 5);
    CU_ASSERT(has(out, "for (int i = 0; ::cuda_emu::branch(static_cast<bool>(i < n)); i++) "
                       "if (::cuda_emu::branch(static_cast<bool>(p[i] > 0))) return i; "
                       "else if (::cuda_emu::branch(static_cast<bool>(n))) n--;"));
    CU_ASSERT(has(out, "while (::cuda_emu::branch(static_cast<bool>(n > 3))) n /= 2;"));
    CU_ASSERT(has(out, "while (::cuda_emu::branch(static_cast<bool>(n < 8)));"));
    CU_ASSERT(has(out, "int g(int n) { if (n) return 1;")); /* host code stays */
    /* Left alone: if constexpr, range for, for (;;), declarations, constexpr functions. */
    out = rw("__global__ void k(int *p) {\n"
             "  if constexpr (sizeof(int) == 4) p[0] = 1;\n"
             "  for (int v : {1, 2}) p[v] = v;\n"
             "  for (;;) break;\n"
             "  if (int *q = p) *q = 2;\n"
             "  if (auto &&r = p[1]) r = 3;\n"
             "  while (const int z = p[2]) p[2] = z - 1;\n"
             "#pragma unroll\n"
             "  for (int u = 0; u < 4; u++) p[u] = u;\n"
             "#pragma unroll 2\n"
             "  for (int u = 0; u < 4; u++) p[u] = u;\n"
             "}\n"
             "__host__ __device__ constexpr int c(int n) { if (n > 0) return n; return 0; }\n");
    CU_ASSERT(out.find(hook) == std::string::npos);
    /* An init-statement keeps its place; a functional cast is an expression. */
    out = without_sites(rw("__device__ void d(int *p) { if (int a = p[0]; a > 1) p[1] = a; "
                           "if (int(p[2]) > 0) p[2] = 0; }\n"));
    CU_ASSERT(has(out, "if (int a = p[0]; ::cuda_emu::branch(static_cast<bool>(a > 1)))"));
    CU_ASSERT(has(out, "if (::cuda_emu::branch(static_cast<bool>(int(p[2]) > 0)))"));
    /* A condition over several lines keeps them. */
    const std::string multi = "__device__ void e(int a,\n int b) { if (a <\n b) a = b; }\n";
    out = without_sites(rw(multi));
    CU_ASSERT(has(out, "if (::cuda_emu::branch(static_cast<bool>(a <\n b)))"));
    CU_ASSERT_EQUAL(lines(out), lines(multi));
}

/* A UTF-8 byte-order mark at the top of a file (nvcc skips it) is dropped, with lines kept;
 * CRLF line ends stay as they are (g++ reads them as nvcc does), a directive's continuation
 * too. */
void test_byte_order_mark_and_crlf()
{
    std::string out = rw("\xEF\xBB\xBF__global__ void k(int *p) { *p = 1; }\r\n");
    CU_ASSERT(out.compare(0, 3, "\xEF\xBB\xBF") != 0);
    CU_ASSERT(has(out, "__global__ void k(int *p) { *p = 1; } CUDA_EMU_REGISTER_KERNEL(k)\r\n"));
    out = rw("#define ONE \\\r\n  1\r\nvoid f() { k<<<ONE, 32>>>(p); }\r\n");
    CU_ASSERT(has(out, "#define ONE \\\r\n  1\r\n"));
    CU_ASSERT(has(out, "::cuda_emu::config(ONE, 32)"));
}

/* ptxas's lines, in any order and with items missing; the PTX's linkage and bounds. */
void test_figures_read()
{
    const std::string log =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z1aPf\n"
        "    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 512 bytes cumulative stack size\n"
        "ptxas info    : Function properties for _Z6helperv\n"
        "    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Compiling entry function '_Z1bv' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z1bv\n"
        "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 8 registers, 360 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'not a name' for 'sm_90'\n"
        "ptxas info    : Used 99 registers\n";
    const std::string ptx = ".visible .entry _Z1aPf(\n\t.param .u64 p\n)\n.maxntid 128, 2, 1\n{\n}\n"
                            ".entry _Z1bv()\n{\n.maxntid 9\n}\n";
    const std::vector<emu_rewrite::KernelFigures> k = emu_rewrite::parse_figures(log, ptx);
    CU_ASSERT_EQUAL_FATAL(k.size(), 2u);
    CU_ASSERT_EQUAL(k[0].name, "_Z1aPf");
    CU_ASSERT(k[0].visible);
    CU_ASSERT_EQUAL(k[0].registers, 40);
    CU_ASSERT_EQUAL(k[0].barriers, 1);
    CU_ASSERT_EQUAL(k[0].shared, 1024);
    CU_ASSERT_EQUAL(k[0].stack, 512); /* with its calls */
    CU_ASSERT_EQUAL(k[0].max_threads, 256);
    CU_ASSERT_EQUAL(k[1].name, "_Z1bv");
    CU_ASSERT(!k[1].visible);
    CU_ASSERT_EQUAL(k[1].registers, 8);
    CU_ASSERT_EQUAL(k[1].shared, 0);
    CU_ASSERT_EQUAL(k[1].stack, 8); /* its own frame */
    CU_ASSERT_EQUAL(k[1].max_threads, 0); /* a directive in the body is none of the entry's */
    CU_ASSERT_EQUAL(emu_rewrite::cubin_constant_bytes("not an ELF file"), 0);
    /* the table: weak references to the names, nothing of a name that is no identifier */
    const std::string table = emu_rewrite::figures_table(k, 296);
    CU_ASSERT(has(table, "weakref(\"_Z1aPf\")"));
    CU_ASSERT(has(table, "weakref(\"_ZL1bv\")"));
    CU_ASSERT(has(table, ", 40, 1, 1024, 512, 296, 256},"));
    CU_ASSERT(table.find("not a name") == std::string::npos);
    CU_ASSERT(has(table, "#line 1 \"emu-nvcc: nvcc's figures\""));
    CU_ASSERT_EQUAL(emu_rewrite::figures_table({}, 0), "");
}

/* The names g++ gives nvcc's kernels: the same for external linkage; for internal linkage an L
 * before the function's name (not a global template's instance) and g++'s anonymous namespace,
 * as g++ 12 spells them (nm) for what nvcc 13 calls them (ptxas). */
void test_figures_gxx_names()
{
    using emu_rewrite::gxx_symbols;
    using V = std::vector<std::string>;
    CU_ASSERT(gxx_symbols("_Z2ovPf", true) == V{"_Z2ovPf"});
    CU_ASSERT(gxx_symbols("kernel_c", false) == V{"kernel_c"}); /* extern "C" */
    CU_ASSERT(gxx_symbols("_Z2stPd", false) == V{"_ZL2stPd"});
    CU_ASSERT(gxx_symbols("_Z2gtILi3EEvPf", false) == V{"_Z2gtILi3EEvPf"});
    CU_ASSERT(gxx_symbols("_ZN2ns3st2EPf", false) == V{"_ZN2nsL3st2EPf"});
    CU_ASSERT(gxx_symbols("_ZN2ns3sttILi8EEEvPf", false) == V{"_ZN2nsL3sttILi8EEEvPf"});
    const V anon = gxx_symbols("_ZN34_GLOBAL__N__e08bbaea_4_m_cu__Z2gov1aEPf", false);
    CU_ASSERT(anon.size() == 2 && anon[0] == "_ZN12_GLOBAL__N_11aEPf" &&
              anon[1] == "_ZN12_GLOBAL__N_1L1aEPf");
    /* a namespace whose name ends in a digit before it: v2, then 34 characters */
    CU_ASSERT(gxx_symbols("_ZN2v234_GLOBAL__N__e08bbaea_4_m_cu__Z2gov1cEPf", false)[0] ==
              "_ZN2v212_GLOBAL__N_11cEPf");
    CU_ASSERT(gxx_symbols("_ZN34_GLOBAL__N__e08bbaea_4_m_cu__Z2gov5inner1bEi", false)[0] ==
              "_ZN12_GLOBAL__N_15inner1bEi");
    CU_ASSERT(gxx_symbols("_ZN99", false).empty());
}

CU_TestInfo tests[] = {
    {"a byte-order mark and CRLF line ends", test_byte_order_mark_and_crlf},
    {"launch forms: qualified, templated, indexed, in a macro", test_launch_forms},
    {"a launch over several lines keeps line numbers", test_launch_keeps_lines},
    {"comments, strings, raw strings, digit separators", test_comments_and_strings_untouched},
    {"__shared__ in functions: static, several, extern, dependent", test_shared_in_functions},
    {"__shared__ at file scope: extern is an alias, static a per-block copy", test_shared_at_file_scope},
    {"__launch_bounds__ check and #pragma unroll", test_launch_bounds_and_pragmas},
    {"__noinline__ spelled out, no macro", test_noinline_spelled_out},
    {"quoted includes, the prelude and #line", test_includes_and_line_directive},
    {"errors name the file and line", test_errors},
    {"shifts in device code get the GPU's meaning", test_shifts_in_device_code},
    {"inline PTX: special registers read, the rest refused", test_inline_ptx},
    {"kernels are registered for launches by address", test_kernels_registered},
    {"branch conditions in device code are counted, declarations left alone", test_branches_in_device_code},
    {"nvcc's figures: ptxas's log and the PTX read, the table written", test_figures_read},
    {"nvcc's figures: the names g++ gives nvcc's kernels", test_figures_gxx_names},
    CU_TEST_INFO_NULL,
};

} // namespace

int main()
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("emu-rewrite", nullptr, nullptr);
    for (CU_TestInfo *t = tests; t->pName != nullptr; ++t)
        CU_add_test(s, t->pName, t->pTestFunc);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}
