/*
 * cuda_emu/device.h -- the device functions a kernel calls: barriers, warp
 * collectives, atomics, fences, memory hints and math intrinsics.
 *
 * Everything that synchronises threads (barriers, warp collectives, atomics,
 * fences, __nanosleep) is a call into the emulator runtime, because that is
 * where a fiber can wait for its block or warp; the runtime reads its own
 * return address to name the source line, so the thin templates here are
 * always inlined into the kernel. Pure arithmetic is inline C++ with CUDA's
 * semantics (IEEE single precision, round to nearest even).
 */
#ifndef CUDA_EMU_DEVICE_H
#define CUDA_EMU_DEVICE_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../device_launch_parameters.h"
#include "../vector_functions.h"
#include "defines.h"
#include "rounding.h"

#define CUDA_EMU_INLINE inline __attribute__((always_inline))

namespace cuda_emu {

/* The warp collectives, as the runtime's warp_op() tells them apart. */
enum WarpOpKind : int {
    op_shfl_idx,   /* __shfl_sync */
    op_shfl_up,    /* __shfl_up_sync */
    op_shfl_down,  /* __shfl_down_sync */
    op_shfl_xor,   /* __shfl_xor_sync */
    op_ballot,     /* __ballot_sync */
    op_any,        /* __any_sync */
    op_all,        /* __all_sync */
    op_syncwarp,   /* __syncwarp */
    op_activemask, /* __activemask */
    op_reduce_add, /* __reduce_add_sync (32-bit wrap-around sum) */
    op_reduce_min_u, op_reduce_max_u, op_reduce_min_i, op_reduce_max_i,
    op_reduce_and, op_reduce_or, op_reduce_xor,
    op_match_any,  /* __match_any_sync */
    op_match_all,  /* __match_all_sync */
    op_exchange,   /* every lane gets every lane's value (cooperative groups' collectives) */
    op_count       /* number of kinds */
};

/* Rendezvous of the lanes in MASK at one warp collective; returns this lane's
 * result. VALUE is the lane's operand (for shuffles, the bits of one 8-byte
 * chunk), B the lane or delta operand and C the PTX clamp/segment operand.
 * WIDTH is only used to check it and to word error messages. */
uint64_t warp_op(int kind, unsigned mask, uint64_t value, int b, int c, int width);

/* One rendezvous of the lanes in MASK in which each gets every lane's SIZE
 * bytes at MINE: ALL[lane * SIZE ...] for each lane in MASK (the others are
 * left alone). Cooperative groups' reduce and scans are one of these. */
void warp_exchange(unsigned mask, const void *mine, void *all, unsigned size);

/* One shuffle of an arbitrary trivially copyable T, in 8-byte chunks, as CUDA
 * moves an 8-byte type in two 4-byte shuffles. */
template <class T>
CUDA_EMU_INLINE T shfl(int kind, unsigned mask, T var, int b, int c, int width)
{
    static_assert(std::is_trivially_copyable<T>::value, "__shfl_*_sync needs a trivially copyable type");
    constexpr size_t chunks = (sizeof(T) + 7) / 8;
    uint64_t bits[chunks] = {};
    std::memcpy(bits, &var, sizeof(T));
    for (size_t i = 0; i < chunks; ++i)
        bits[i] = warp_op(kind, mask, bits[i], b, c, width);
    T out;
    std::memcpy(&out, bits, sizeof(T));
    return out;
}

/* ---- Branches in device code ----------------------------------------------
 * emu-rewrite turns the condition of every if, while and for loop in a
 * __device__ or __global__ function into branch(static_cast<bool>(CONDITION),
 * "FILE@OFFSET"). It returns the condition; while make explain counts
 * (CUDA_EMU_COUNT, between cudaProfilerStart and Stop), count_branch records,
 * per warp, which lanes reached the branch and which went in (count.cpp). The
 * string literal (one object wherever g++ copies the call) names the branch. branches_counted() is
 * declared const and noexcept, so the compiler may read it once per function call: outside
 * counting a branch costs one test of a register, and a loop's condition no call (without
 * noexcept, g++ keeps a call that may throw where it is: a call to the library at every turn of
 * every loop, which took as long as a chain of fused multiply-adds' own steps). Counting is
 * switched only between launches. */
bool branches_counted() noexcept __attribute__((const));
static_assert(noexcept(branches_counted()), "a call that may throw stays in every loop");
void count_branch(bool taken, const char *site) __attribute__((noinline));
CUDA_EMU_INLINE bool branch(bool taken, const char *site)
{
    if (__builtin_expect(branches_counted(), 0))
        count_branch(taken, site);
    return taken;
}

/* ---- Shifts in device code ------------------------------------------------
 * emu-rewrite turns a << b in a __device__ or __global__ function into
 * a << shift_tag << b (and likewise >>, <<=, >>=), which keeps the operator's
 * precedence and associativity. For integers the overloads below give the
 * GPU's result, which C++ leaves undefined: PTX shl and shr clamp the count
 * to the width, so a count of the width or more (or a negative one, read as
 * unsigned) gives 0, or the sign for >> of a negative signed value; a left
 * shift of a negative value is the bit pattern's. For other operand types
 * the expression means what it always does. */
struct ShiftTag {};
inline constexpr ShiftTag shift_tag{};

template <class T>
inline constexpr bool shift_integral =
    std::is_integral_v<std::remove_cv_t<std::remove_reference_t<T>>> ||
    std::is_enum_v<std::remove_cv_t<std::remove_reference_t<T>>>;

template <class B>
constexpr unsigned long long shift_count(B b)
{
    auto n = +b;
    return (unsigned long long)(std::make_unsigned_t<decltype(n)>)n;
}
template <class A, class B>
constexpr auto gpu_shl(A a, B b)
{
    auto x = +a;
    using X = decltype(x);
    using U = std::make_unsigned_t<X>;
    unsigned long long n = shift_count(b);
    return n >= sizeof(X) * 8 ? X(0) : X(U(U(x) << n));
}
template <class A, class B>
constexpr auto gpu_shr(A a, B b)
{
    auto x = +a;
    using X = decltype(x);
    unsigned long long n = shift_count(b);
    if (n < sizeof(X) * 8)
        return X(x >> n);
    if constexpr (std::is_signed_v<X>)
        return x < X(0) ? X(-1) : X(0);
    else
        return X(0);
}

template <class A> struct ShlValue { A a; };  /* integer a, before << */
template <class A> struct ShrValue { A a; };  /* integer a, before >> */
template <class A> struct ShlRef { A &&a; };  /* anything else, before << */
template <class A> struct ShrRef { A &&a; };  /* anything else, before >> */
template <class B> struct ShlCount { B &&b; }; /* the count of a <<= */
template <class B> struct ShrCount { B &&b; }; /* the count of a >>= */

template <class A, std::enable_if_t<shift_integral<A>, int> = 0>
constexpr ShlValue<A> operator<<(A a, ShiftTag) { return {a}; }
template <class A, std::enable_if_t<!shift_integral<A>, int> = 0>
constexpr ShlRef<A> operator<<(A &&a, ShiftTag) { return {static_cast<A &&>(a)}; }
template <class A, std::enable_if_t<shift_integral<A>, int> = 0>
constexpr ShrValue<A> operator>>(A a, ShiftTag) { return {a}; }
template <class A, std::enable_if_t<!shift_integral<A>, int> = 0>
constexpr ShrRef<A> operator>>(A &&a, ShiftTag) { return {static_cast<A &&>(a)}; }

template <class A, class B, std::enable_if_t<shift_integral<B>, int> = 0>
constexpr auto operator<<(ShlValue<A> l, B b) { return gpu_shl(l.a, b); }
template <class A, class B, std::enable_if_t<!shift_integral<B>, int> = 0>
constexpr decltype(auto) operator<<(ShlValue<A> l, B &&b) { return l.a << static_cast<B &&>(b); }
template <class A, class B, std::enable_if_t<shift_integral<B>, int> = 0>
constexpr auto operator>>(ShrValue<A> l, B b) { return gpu_shr(l.a, b); }
template <class A, class B, std::enable_if_t<!shift_integral<B>, int> = 0>
constexpr decltype(auto) operator>>(ShrValue<A> l, B &&b) { return l.a >> static_cast<B &&>(b); }
template <class A, class B>
constexpr decltype(auto) operator<<(ShlRef<A> l, B &&b)
{
    return static_cast<A &&>(l.a) << static_cast<B &&>(b);
}
template <class A, class B>
constexpr decltype(auto) operator>>(ShrRef<A> l, B &&b)
{
    return static_cast<A &&>(l.a) >> static_cast<B &&>(b);
}

template <class B>
constexpr ShlCount<B> operator<<=(const ShiftTag &, B &&b) { return {static_cast<B &&>(b)}; }
template <class B>
constexpr ShrCount<B> operator>>=(const ShiftTag &, B &&b) { return {static_cast<B &&>(b)}; }
template <class A, class B>
constexpr A &operator<<=(A &a, ShlCount<B> c)
{
    if constexpr (shift_integral<A> && shift_integral<B>)
        a = static_cast<A>(gpu_shl(a, c.b));
    else
        a <<= static_cast<B &&>(c.b);
    return a;
}
template <class A, class B>
constexpr A &operator>>=(A &a, ShrCount<B> c)
{
    if constexpr (shift_integral<A> && shift_integral<B>)
        a = static_cast<A>(gpu_shr(a, c.b));
    else
        a >>= static_cast<B &&>(c.b);
    return a;
}

/* Cooperative groups' synchronisation (cooperative_groups.h): the sync() of a
 * tile of COUNT threads from linear index FIRST (wider than a warp), and
 * grid.sync(), which needs a cooperative launch. */
void tile_barrier(unsigned first, unsigned count);
void grid_barrier();
bool launch_is_cooperative();
/* SIZE bytes of the running block's shared memory for the library's own use
 * (one buffer per KEY, not counted against the kernel's shared memory). */
void *shared_scratch(const void *key, size_t size);

/* Nominal SM clock of the emulated device: clock64() counts nanoseconds at 1 GHz. */
long long clock_ticks();

/* The PTX special registers a kernel may read with inline asm (emu-rewrite
 * turns asm("mov.u32 %0, %%laneid;" : "=r"(x)) into x = ptx_laneid()). */
unsigned ptx_smid();
unsigned ptx_nsmid(); /* the emulated device's SMs */
CUDA_EMU_INLINE unsigned ptx_laneid()
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}
CUDA_EMU_INLINE unsigned ptx_warpid()
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
}
CUDA_EMU_INLINE unsigned ptx_nwarpid() { return 64; } /* warps an SM holds (2048 threads) */
CUDA_EMU_INLINE unsigned ptx_lanemask_eq() { return 1u << ptx_laneid(); }
CUDA_EMU_INLINE unsigned ptx_lanemask_lt() { return (1u << ptx_laneid()) - 1; }
CUDA_EMU_INLINE unsigned ptx_lanemask_le() { return ptx_lanemask_lt() | ptx_lanemask_eq(); }
CUDA_EMU_INLINE unsigned ptx_lanemask_gt() { return ~ptx_lanemask_le(); }
CUDA_EMU_INLINE unsigned ptx_lanemask_ge() { return ~ptx_lanemask_lt(); }
CUDA_EMU_INLINE unsigned ptx_clock() { return (unsigned)clock_ticks(); }
CUDA_EMU_INLINE unsigned long long ptx_clock64() { return (unsigned long long)clock_ticks(); }
CUDA_EMU_INLINE unsigned long long ptx_globaltimer() { return (unsigned long long)clock_ticks(); }

} // namespace cuda_emu

/* ---- Barriers and fences ------------------------------------------------ */

void __syncthreads();
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __nanosleep(unsigned int ns);
/* A .cu file's printf (the prelude's macro): the host's, counted in a counted range. */
extern "C" int cuda_emu_printf(const char *format, ...) __attribute__((__format__(__printf__, 1, 2)));
/* __trap() (and PTX's `trap`): the kernel stops with cudaErrorLaunchFailure, as on a GPU; the
 * report names the line, block and thread */
void __trap();

/* Programmatic dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization): the
 * dependent grid's cudaGridDependencySynchronize() waits for the grid before it on its stream
 * to finish (or trigger), and cudaTriggerProgrammaticLaunchCompletion() lets the dependent
 * start early. The emulator starts a launch only once the one before it on its stream has
 * ended, the strictest order the attribute allows: the wait has nothing left to wait for, and
 * the trigger nothing to release. */
/* A shared-memory address as PTX's shared state space sees it (for cp.async, ld.shared ...),
 * and back: the emulator gives each of the block's shared allocations a place in a window of
 * its own (cuda_emu/ptx.h), where a GPU's shared addresses are offsets in the SM's. */
namespace cuda_emu {
unsigned long long shared_window(const void *p);
void *shared_at(unsigned long long window, size_t bytes, const char *what);
} // namespace cuda_emu
CUDA_EMU_INLINE size_t __cvta_generic_to_shared(const void *p)
{
    return (size_t)cuda_emu::shared_window(p);
}
CUDA_EMU_INLINE void *__cvta_shared_to_generic(size_t a)
{
    return cuda_emu::shared_at(a, 0, "__cvta_shared_to_generic");
}
CUDA_EMU_INLINE void cudaGridDependencySynchronize() {}
CUDA_EMU_INLINE void cudaTriggerProgrammaticLaunchCompletion() {}

CUDA_EMU_INLINE long long clock64() { return cuda_emu::clock_ticks(); }
CUDA_EMU_INLINE unsigned long long __globaltimer() { return (unsigned long long)cuda_emu::clock_ticks(); }

/* ---- Warp collectives --------------------------------------------------- */

CUDA_EMU_INLINE void __syncwarp(unsigned mask = 0xffffffffu)
{
    cuda_emu::warp_op(cuda_emu::op_syncwarp, mask, 0, 0, 0, 32);
}
CUDA_EMU_INLINE unsigned __activemask()
{
    return (unsigned)cuda_emu::warp_op(cuda_emu::op_activemask, 0xffffffffu, 0, 0, 0, 32);
}
CUDA_EMU_INLINE unsigned __ballot_sync(unsigned mask, int pred)
{
    return (unsigned)cuda_emu::warp_op(cuda_emu::op_ballot, mask, pred != 0, 0, 0, 32);
}
CUDA_EMU_INLINE int __any_sync(unsigned mask, int pred)
{
    return (int)cuda_emu::warp_op(cuda_emu::op_any, mask, pred != 0, 0, 0, 32);
}
CUDA_EMU_INLINE int __all_sync(unsigned mask, int pred)
{
    return (int)cuda_emu::warp_op(cuda_emu::op_all, mask, pred != 0, 0, 0, 32);
}

/* The C operand below is the one CUDA's own header passes to PTX shfl.sync:
 * bits 12:8 select the segment, bits 4:0 clamp; see warp_op() for its use.
 * It is computed unsigned so a bad width (above 32) reaches warp_op()'s
 * check instead of tripping UBSan on a negative shift. */
#define CUDA_EMU_SHFL_C(width, clamp) ((int)((unsigned)(warpSize - (width)) << 8) | (clamp))
template <class T>
CUDA_EMU_INLINE T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize)
{
    return cuda_emu::shfl(cuda_emu::op_shfl_idx, mask, var, srcLane,
                          CUDA_EMU_SHFL_C(width, 0x1f), width);
}
template <class T>
CUDA_EMU_INLINE T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize)
{
    return cuda_emu::shfl(cuda_emu::op_shfl_up, mask, var, (int)delta, CUDA_EMU_SHFL_C(width, 0), width);
}
template <class T>
CUDA_EMU_INLINE T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize)
{
    return cuda_emu::shfl(cuda_emu::op_shfl_down, mask, var, (int)delta,
                          CUDA_EMU_SHFL_C(width, 0x1f), width);
}
template <class T>
CUDA_EMU_INLINE T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize)
{
    return cuda_emu::shfl(cuda_emu::op_shfl_xor, mask, var, laneMask,
                          CUDA_EMU_SHFL_C(width, 0x1f), width);
}

#define CUDA_EMU_REDUCE(name, kind, T)                                                  \
    CUDA_EMU_INLINE T name(unsigned mask, T value)                                      \
    {                                                                                   \
        return (T)cuda_emu::warp_op(cuda_emu::kind, mask, (uint32_t)value, 0, 0, 32);    \
    }
CUDA_EMU_REDUCE(__reduce_add_sync, op_reduce_add, unsigned)
CUDA_EMU_REDUCE(__reduce_add_sync, op_reduce_add, int)
CUDA_EMU_REDUCE(__reduce_min_sync, op_reduce_min_u, unsigned)
CUDA_EMU_REDUCE(__reduce_min_sync, op_reduce_min_i, int)
CUDA_EMU_REDUCE(__reduce_max_sync, op_reduce_max_u, unsigned)
CUDA_EMU_REDUCE(__reduce_max_sync, op_reduce_max_i, int)
CUDA_EMU_REDUCE(__reduce_and_sync, op_reduce_and, unsigned)
CUDA_EMU_REDUCE(__reduce_or_sync, op_reduce_or, unsigned)
CUDA_EMU_REDUCE(__reduce_xor_sync, op_reduce_xor, unsigned)
#undef CUDA_EMU_REDUCE

template <class T>
CUDA_EMU_INLINE unsigned __match_any_sync(unsigned mask, T value)
{
    uint64_t bits = 0;
    static_assert(sizeof(T) <= 8, "__match_any_sync takes 4- or 8-byte values");
    std::memcpy(&bits, &value, sizeof(T));
    return (unsigned)cuda_emu::warp_op(cuda_emu::op_match_any, mask, bits, 0, 0, 32);
}
template <class T>
CUDA_EMU_INLINE unsigned __match_all_sync(unsigned mask, T value, int *pred)
{
    uint64_t bits = 0;
    static_assert(sizeof(T) <= 8, "__match_all_sync takes 4- or 8-byte values");
    std::memcpy(&bits, &value, sizeof(T));
    unsigned r = (unsigned)cuda_emu::warp_op(cuda_emu::op_match_all, mask, bits, 0, 0, 32);
    *pred = r != 0;
    return r;
}

/* ---- Atomics ------------------------------------------------------------
 * Implemented in the runtime: it tells the race checker that the access is
 * atomic, counts it as synchronisation and notices a thread that polls one
 * address with atomics. Fibers never switch inside one, so they are atomic. */

int atomicAdd(int *address, int val);
unsigned int atomicAdd(unsigned int *address, unsigned int val);
unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
float atomicAdd(float *address, float val);
double atomicAdd(double *address, double val);
int atomicSub(int *address, int val);
unsigned int atomicSub(unsigned int *address, unsigned int val);
int atomicExch(int *address, int val);
unsigned int atomicExch(unsigned int *address, unsigned int val);
unsigned long long atomicExch(unsigned long long *address, unsigned long long val);
float atomicExch(float *address, float val);
int atomicMin(int *address, int val);
unsigned int atomicMin(unsigned int *address, unsigned int val);
long long atomicMin(long long *address, long long val);
unsigned long long atomicMin(unsigned long long *address, unsigned long long val);
int atomicMax(int *address, int val);
unsigned int atomicMax(unsigned int *address, unsigned int val);
long long atomicMax(long long *address, long long val);
unsigned long long atomicMax(unsigned long long *address, unsigned long long val);
unsigned int atomicInc(unsigned int *address, unsigned int val);
unsigned int atomicDec(unsigned int *address, unsigned int val);
int atomicCAS(int *address, int compare, int val);
unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare,
                             unsigned long long val);
unsigned short atomicCAS(unsigned short *address, unsigned short compare, unsigned short val);
int atomicAnd(int *address, int val);
unsigned int atomicAnd(unsigned int *address, unsigned int val);
unsigned long long atomicAnd(unsigned long long *address, unsigned long long val);
int atomicOr(int *address, int val);
unsigned int atomicOr(unsigned int *address, unsigned int val);
unsigned long long atomicOr(unsigned long long *address, unsigned long long val);
int atomicXor(int *address, int val);
unsigned int atomicXor(unsigned int *address, unsigned int val);
unsigned long long atomicXor(unsigned long long *address, unsigned long long val);

/* The _block and _system scopes are the same operation on one device. */
#define CUDA_EMU_SCOPED_ATOMIC(name)                                                    \
    template <class T, class... V>                                                      \
    CUDA_EMU_INLINE auto name##_block(T *address, V... v) -> decltype(name(address, v...)) \
    {                                                                                   \
        return name(address, v...);                                                     \
    }                                                                                   \
    template <class T, class... V>                                                      \
    CUDA_EMU_INLINE auto name##_system(T *address, V... v) -> decltype(name(address, v...)) \
    {                                                                                   \
        return name(address, v...);                                                     \
    }
CUDA_EMU_SCOPED_ATOMIC(atomicAdd)
CUDA_EMU_SCOPED_ATOMIC(atomicSub)
CUDA_EMU_SCOPED_ATOMIC(atomicExch)
CUDA_EMU_SCOPED_ATOMIC(atomicMin)
CUDA_EMU_SCOPED_ATOMIC(atomicMax)
CUDA_EMU_SCOPED_ATOMIC(atomicInc)
CUDA_EMU_SCOPED_ATOMIC(atomicDec)
CUDA_EMU_SCOPED_ATOMIC(atomicCAS)
CUDA_EMU_SCOPED_ATOMIC(atomicAnd)
CUDA_EMU_SCOPED_ATOMIC(atomicOr)
CUDA_EMU_SCOPED_ATOMIC(atomicXor)
#undef CUDA_EMU_SCOPED_ATOMIC

/* ---- Load and store hints: caching has no meaning on the CPU ------------ */

template <class T> CUDA_EMU_INLINE T __ldg(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE T __ldca(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE T __ldcg(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE T __ldcs(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE T __ldlu(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE T __ldcv(const T *p) { return *p; }
template <class T> CUDA_EMU_INLINE void __stwb(T *p, T v) { *p = v; }
template <class T> CUDA_EMU_INLINE void __stcg(T *p, T v) { *p = v; }
template <class T> CUDA_EMU_INLINE void __stcs(T *p, T v) { *p = v; }
template <class T> CUDA_EMU_INLINE void __stwt(T *p, T v) { *p = v; }

/* ---- Integer intrinsics -------------------------------------------------- */

CUDA_EMU_INLINE int __popc(unsigned int x) { return __builtin_popcount(x); }
CUDA_EMU_INLINE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CUDA_EMU_INLINE int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
CUDA_EMU_INLINE int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
CUDA_EMU_INLINE int __ffs(int x) { return __builtin_ffs(x); }
CUDA_EMU_INLINE int __ffsll(long long x) { return __builtin_ffsll(x); }
CUDA_EMU_INLINE unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
CUDA_EMU_INLINE unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
CUDA_EMU_INLINE int __mul24(int x, int y)
{
    return (int)((long long)((int)((unsigned)x << 8) >> 8) * (long long)((int)((unsigned)y << 8) >> 8));
}
CUDA_EMU_INLINE unsigned int __umul24(unsigned int x, unsigned int y)
{
    return (x & 0xffffffu) * (y & 0xffffffu);
}
CUDA_EMU_INLINE int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
CUDA_EMU_INLINE unsigned int __umulhi(unsigned int x, unsigned int y)
{
    return (unsigned)(((unsigned long long)x * y) >> 32);
}
CUDA_EMU_INLINE long long __mul64hi(long long x, long long y)
{
    return (long long)(((__int128)x * y) >> 64);
}
CUDA_EMU_INLINE unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
CUDA_EMU_INLINE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (unsigned)((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
CUDA_EMU_INLINE unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift & 31)) >> 32);
}
CUDA_EMU_INLINE unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift & 31));
}
/* ... and clamped: a shift of 32 or more is 32 */
CUDA_EMU_INLINE unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift > 32 ? 32 : shift)) >> 32);
}
CUDA_EMU_INLINE unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift > 32 ? 32 : shift));
}
/* Four 8-bit (two 16-bit) products summed into c: signed or unsigned per argument */
CUDA_EMU_INLINE int __dp4a(int a, int b, int c)
{
    for (int i = 0; i < 4; ++i)
        c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
    return c;
}
CUDA_EMU_INLINE unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c)
{
    for (int i = 0; i < 4; ++i)
        c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return c;
}
CUDA_EMU_INLINE int __dp2a_lo(int a, int b, int c)
{
    return c + (int)(short)a * (int)(signed char)b + (int)(short)(a >> 16) * (int)(signed char)(b >> 8);
}
CUDA_EMU_INLINE int __dp2a_hi(int a, int b, int c)
{
    return c + (int)(short)a * (int)(signed char)(b >> 16) + (int)(short)(a >> 16) * (int)(signed char)(b >> 24);
}
CUDA_EMU_INLINE unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned)(x > y ? x - y : y - x); }
CUDA_EMU_INLINE unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }

/* ---- Reinterpretation ---------------------------------------------------- */

CUDA_EMU_INLINE int __float_as_int(float x) { int r; std::memcpy(&r, &x, 4); return r; }
CUDA_EMU_INLINE unsigned int __float_as_uint(float x) { unsigned r; std::memcpy(&r, &x, 4); return r; }
CUDA_EMU_INLINE float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
CUDA_EMU_INLINE float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, 4); return r; }
CUDA_EMU_INLINE long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
CUDA_EMU_INLINE double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }
CUDA_EMU_INLINE double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}
CUDA_EMU_INLINE int __double2hiint(double x) { return (int)((unsigned long long)__double_as_longlong(x) >> 32); }
CUDA_EMU_INLINE int __double2loint(double x) { return (int)(unsigned)__double_as_longlong(x); }

/* ---- Float intrinsics: correctly rounded where CUDA's are; the fast
 * approximations (__expf, __fdividef ...) use the accurate function, which is
 * within the approximation's documented error. -------------------------------- */

/* Round to nearest even: the CPU's own operations (no contraction into FMAs:
 * emu-nvcc compiles with -ffp-contract=off). The other modes: rounding.h. */
CUDA_EMU_INLINE float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
CUDA_EMU_INLINE float __fadd_rn(float a, float b) { return a + b; }
CUDA_EMU_INLINE float __fsub_rn(float a, float b) { return a - b; }
CUDA_EMU_INLINE float __fmul_rn(float a, float b) { return a * b; }
CUDA_EMU_INLINE float __fdiv_rn(float a, float b) { return a / b; }
CUDA_EMU_INLINE float __frcp_rn(float a) { return 1.0f / a; }
CUDA_EMU_INLINE float __fsqrt_rn(float a) { return sqrtf(a); }
CUDA_EMU_INLINE double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
CUDA_EMU_INLINE double __dadd_rn(double a, double b) { return a + b; }
CUDA_EMU_INLINE double __dsub_rn(double a, double b) { return a - b; }
CUDA_EMU_INLINE double __dmul_rn(double a, double b) { return a * b; }
CUDA_EMU_INLINE double __ddiv_rn(double a, double b) { return a / b; }
CUDA_EMU_INLINE double __drcp_rn(double a) { return 1.0 / a; }
CUDA_EMU_INLINE double __dsqrt_rn(double a) { return sqrt(a); }
#define CUDA_EMU_ROUNDED(mode)                                                                     \
    CUDA_EMU_INLINE float __fadd_##mode(float a, float b) { return cuda_emu::round_fadd(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __fsub_##mode(float a, float b) { return cuda_emu::round_fsub(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __fmul_##mode(float a, float b) { return cuda_emu::round_fmul(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __fdiv_##mode(float a, float b) { return cuda_emu::round_fdiv(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __frcp_##mode(float a) { return cuda_emu::round_fdiv(1.0f, a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __fsqrt_##mode(float a) { return cuda_emu::round_fsqrt(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __fmaf_##mode(float a, float b, float c) { return cuda_emu::round_ffma(a, b, c, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __dadd_##mode(double a, double b) { return cuda_emu::round_dadd(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __dsub_##mode(double a, double b) { return cuda_emu::round_dsub(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __dmul_##mode(double a, double b) { return cuda_emu::round_dmul(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __ddiv_##mode(double a, double b) { return cuda_emu::round_ddiv(a, b, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __drcp_##mode(double a) { return cuda_emu::round_ddiv(1.0, a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __dsqrt_##mode(double a) { return cuda_emu::round_dsqrt(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __fma_##mode(double a, double b, double c) { return cuda_emu::round_dfma(a, b, c, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __double2float_##mode(double a) { return cuda_emu::round_d2f(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __int2float_##mode(int a) { return cuda_emu::round_ll2f(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __uint2float_##mode(unsigned int a) { return cuda_emu::round_ll2f(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __ll2float_##mode(long long a) { return cuda_emu::round_ll2f(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE float __ull2float_##mode(unsigned long long a) { return cuda_emu::round_ull2f(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __ll2double_##mode(long long a) { return cuda_emu::round_ll2d(a, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE double __ull2double_##mode(unsigned long long a) { return cuda_emu::round_ull2d(a, cuda_emu::round_##mode); }
CUDA_EMU_ROUNDED(rz)
CUDA_EMU_ROUNDED(ru)
CUDA_EMU_ROUNDED(rd)
#undef CUDA_EMU_ROUNDED
CUDA_EMU_INLINE float __double2float_rn(double x) { return (float)x; }
CUDA_EMU_INLINE float __int2float_rn(int x) { return (float)x; }
CUDA_EMU_INLINE float __uint2float_rn(unsigned int x) { return (float)x; }
CUDA_EMU_INLINE float __ll2float_rn(long long x) { return (float)x; }
CUDA_EMU_INLINE float __ull2float_rn(unsigned long long x) { return (float)x; }
CUDA_EMU_INLINE double __ll2double_rn(long long x) { return (double)x; }
CUDA_EMU_INLINE double __ull2double_rn(unsigned long long x) { return (double)x; }
CUDA_EMU_INLINE double __int2double_rn(int x) { return (double)x; }
CUDA_EMU_INLINE double __uint2double_rn(unsigned int x) { return (double)x; }
/* Float to integer: rounded in the mode named, saturating as the GPU does. */
#define CUDA_EMU_TO_INT(mode)                                                                      \
    CUDA_EMU_INLINE int __float2int_##mode(float x) { return cuda_emu::round_to_int<int>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE unsigned int __float2uint_##mode(float x) { return cuda_emu::round_to_int<unsigned>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE long long __float2ll_##mode(float x) { return cuda_emu::round_to_int<long long>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE unsigned long long __float2ull_##mode(float x) { return cuda_emu::round_to_int<unsigned long long>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE int __double2int_##mode(double x) { return cuda_emu::round_to_int<int>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE unsigned int __double2uint_##mode(double x) { return cuda_emu::round_to_int<unsigned>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE long long __double2ll_##mode(double x) { return cuda_emu::round_to_int<long long>(x, cuda_emu::round_##mode); } \
    CUDA_EMU_INLINE unsigned long long __double2ull_##mode(double x) { return cuda_emu::round_to_int<unsigned long long>(x, cuda_emu::round_##mode); }
CUDA_EMU_TO_INT(rn)
CUDA_EMU_TO_INT(rz)
CUDA_EMU_TO_INT(ru)
CUDA_EMU_TO_INT(rd)
#undef CUDA_EMU_TO_INT
/* The fast approximations (__expf, __fdividef ...) use the accurate function,
 * which is within the approximation's documented error. */
CUDA_EMU_INLINE float __fdividef(float a, float b) { return a / b; }
CUDA_EMU_INLINE float fdividef(float a, float b) { return a / b; }
CUDA_EMU_INLINE float __expf(float x) { return expf(x); }
CUDA_EMU_INLINE float __exp10f(float x) { return powf(10.0f, x); }
CUDA_EMU_INLINE float __logf(float x) { return logf(x); }
CUDA_EMU_INLINE float __log2f(float x) { return log2f(x); }
CUDA_EMU_INLINE float __log10f(float x) { return log10f(x); }
CUDA_EMU_INLINE float __powf(float x, float y) { return powf(x, y); }
CUDA_EMU_INLINE float __sinf(float x) { return sinf(x); }
CUDA_EMU_INLINE float __cosf(float x) { return cosf(x); }
CUDA_EMU_INLINE float __tanf(float x) { return tanf(x); }
CUDA_EMU_INLINE void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
CUDA_EMU_INLINE float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
/* (C23 put rsqrt into <math.h>, and sinpi and cospi: a C library that has them, glibc from 2.42 and
 * 2.41, declares them, and they are its; here only where it does not.) */
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 42)
#define CUDA_EMU_LIBC_RSQRT 1
#endif
#if __GLIBC_PREREQ(2, 41)
#define CUDA_EMU_LIBC_SINPI 1
#endif
#endif
#ifndef CUDA_EMU_LIBC_RSQRT
CUDA_EMU_INLINE float rsqrtf(float x) { return 1.0f / sqrtf(x); }
CUDA_EMU_INLINE double rsqrt(double x) { return 1.0 / sqrt(x); }
#endif
CUDA_EMU_INLINE float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
/* __builtin_assume(e): a hint to nvcc's optimizer, never evaluated (side effects included); here
 * e is only type-checked. __prof_trigger(n): a profiler counter, nothing to count here. */
#ifndef __builtin_assume
#define __builtin_assume(e) ((void)sizeof((e) ? 1 : 0))
#endif
CUDA_EMU_INLINE void __prof_trigger(int) {}
/* CUDA's own math functions that the C library lacks: each computed in double where the float
 * result then rounds once (within CUDA's documented error for the float ones); the pi-scaled
 * ones reduce their argument exactly first (fmod by 2), so that a large argument keeps its
 * accuracy, as CUDA's do. */
#ifndef CUDA_EMU_LIBC_SINPI
CUDA_EMU_INLINE double sinpi(double x) { double r = fmod(x, 2.0); return r == trunc(r) ? copysign(0.0, x) : sin(M_PI * r); }
CUDA_EMU_INLINE double cospi(double x) { double r = fabs(fmod(x, 2.0)); return r == 0.5 || r == 1.5 ? 0.0 : cos(M_PI * r); }
CUDA_EMU_INLINE float sinpif(float x) { return (float)sinpi((double)x); }
CUDA_EMU_INLINE float cospif(float x) { return (float)cospi((double)x); }
#endif
CUDA_EMU_INLINE void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
CUDA_EMU_INLINE void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
CUDA_EMU_INLINE double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
CUDA_EMU_INLINE float rhypotf(float x, float y) { return (float)(1.0 / hypot((double)x, (double)y)); }
CUDA_EMU_INLINE double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
CUDA_EMU_INLINE double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
CUDA_EMU_INLINE double norm4d(double a, double b, double c, double d) { return sqrt(a * a + b * b + c * c + d * d); }
CUDA_EMU_INLINE double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
CUDA_EMU_INLINE float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
CUDA_EMU_INLINE float rnorm3df(float a, float b, float c) { return (float)rnorm3d(a, b, c); }
CUDA_EMU_INLINE float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
CUDA_EMU_INLINE float rnorm4df(float a, float b, float c, float d) { return (float)rnorm4d(a, b, c, d); }
CUDA_EMU_INLINE double rcbrt(double x) { return 1.0 / cbrt(x); }
CUDA_EMU_INLINE float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }
CUDA_EMU_INLINE double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
CUDA_EMU_INLINE float normcdff(float x) { return (float)normcdf(x); }
/* The inverse error function: Giles's single-precision approximation as a start, then two
 * Newton steps on erf in double (erfinv(+-1) = +-inf, outside [-1, 1] NaN). */
CUDA_EMU_INLINE double erfinv(double y)
{
    if (!(y >= -1.0 && y <= 1.0))
        return NAN;
    if (y == 1.0 || y == -1.0)
        return copysign(INFINITY, y);
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        x = 2.81022636e-08;
        x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w; x = -4.39150654e-06 + x * w;
        x = 0.00021858087 + x * w; x = -0.00125372503 + x * w; x = -0.00417768164 + x * w;
        x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    } else {
        w = sqrt(w) - 3.0;
        x = -0.000200214257;
        x = 0.000100950558 + x * w; x = 0.00134934322 + x * w; x = -0.00367342844 + x * w;
        x = 0.00573950773 + x * w; x = -0.0076224613 + x * w; x = 0.00943887047 + x * w;
        x = 1.00167406 + x * w; x = 2.83297682 + x * w;
    }
    x *= y;
    for (int i = 0; i < 2; ++i) /* Newton on erf(x) - y: erf'(x) = 2/sqrt(pi) exp(-x^2) */
        x -= (erf(x) - y) / (M_2_SQRTPI * exp(-x * x));
    return x;
}
CUDA_EMU_INLINE double erfcinv(double y) { return erfinv(1.0 - y); }
CUDA_EMU_INLINE double normcdfinv(double y) { return -M_SQRT2 * erfcinv(2.0 * y); }
CUDA_EMU_INLINE float erfinvf(float y) { return (float)erfinv(y); }
CUDA_EMU_INLINE float erfcinvf(float y) { return (float)erfcinv(y); }
CUDA_EMU_INLINE float normcdfinvf(float y) { return (float)normcdfinv(y); }

/* ---- min and max: the overload set of CUDA's math_functions.hpp --------- */

#define CUDA_EMU_MINMAX(R, A, B)                                                \
    CUDA_EMU_INLINE R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }       \
    CUDA_EMU_INLINE R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUDA_EMU_MINMAX(int, int, int)
CUDA_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUDA_EMU_MINMAX(unsigned int, int, unsigned int)
CUDA_EMU_MINMAX(unsigned int, unsigned int, int)
CUDA_EMU_MINMAX(long, long, long)
CUDA_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
CUDA_EMU_MINMAX(unsigned long, long, unsigned long)
CUDA_EMU_MINMAX(unsigned long, unsigned long, long)
CUDA_EMU_MINMAX(long long, long long, long long)
CUDA_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUDA_EMU_MINMAX(unsigned long long, long long, unsigned long long)
CUDA_EMU_MINMAX(unsigned long long, unsigned long long, long long)
#undef CUDA_EMU_MINMAX
CUDA_EMU_INLINE float min(float a, float b) { return fminf(a, b); }
CUDA_EMU_INLINE float max(float a, float b) { return fmaxf(a, b); }
CUDA_EMU_INLINE double min(double a, double b) { return fmin(a, b); }
CUDA_EMU_INLINE double max(double a, double b) { return fmax(a, b); }
CUDA_EMU_INLINE double min(float a, double b) { return fmin(a, b); }
CUDA_EMU_INLINE double min(double a, float b) { return fmin(a, b); }
CUDA_EMU_INLINE double max(float a, double b) { return fmax(a, b); }
CUDA_EMU_INLINE double max(double a, float b) { return fmax(a, b); }
CUDA_EMU_INLINE unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
CUDA_EMU_INLINE unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
CUDA_EMU_INLINE long long llmin(long long a, long long b) { return a < b ? a : b; }
CUDA_EMU_INLINE long long llmax(long long a, long long b) { return a > b ? a : b; }
CUDA_EMU_INLINE unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
CUDA_EMU_INLINE unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

#pragma GCC visibility pop
#endif /* CUDA_EMU_DEVICE_H */
