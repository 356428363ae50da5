/*
 * rounding.cpp -- CUDA's directed-rounding intrinsics (__fadd_rd, __dmul_ru,
 * __int2float_rz ...): the operation done by the CPU in the rounding mode
 * asked for, which the SSE unit applies to add, subtract, multiply, divide,
 * square root, fused multiply-add and conversions exactly as IEEE 754 says,
 * as the GPU does. This file is compiled with -frounding-math, so the
 * compiler keeps each operation between the mode's change and its restoring.
 * The mode is restored before returning: fibers share the MXCSR register.
 */
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "../include/cuda_emu/rounding.h"

namespace cuda_emu {

namespace {

#if defined(__x86_64__)
/* SSE does all float and double arithmetic here: only its control register
 * (MXCSR, rounding in bits 13-14) needs the mode, and setting it directly is
 * far cheaper than fesetround, which also reloads the x87 control word. */
const unsigned kMxcsrModes[4] = {0x0000, 0x6000, 0x4000, 0x2000}; /* rn rz ru rd */

struct InMode {
    unsigned old;
    explicit InMode(int r) : old(__builtin_ia32_stmxcsr())
    {
        __builtin_ia32_ldmxcsr((old & ~0x6000u) | kMxcsrModes[r & 3]);
    }
    ~InMode() { __builtin_ia32_ldmxcsr(old); }
};
#else
const int kModes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

struct InMode {
    int old;
    explicit InMode(int r) : old(fegetround()) { fesetround(kModes[r & 3]); }
    ~InMode() { fesetround(old); }
};
#endif

/* Both units' modes, for a library call that may read either (fma without
 * the instruction reads the x87 control word). */
struct InModeEverywhere {
    int old;
    explicit InModeEverywhere(int r) : old(fegetround())
    {
        static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
        fesetround(modes[r & 3]);
    }
    ~InModeEverywhere() { fesetround(old); }
};

template <class T>
T opaque(T x)
{
    volatile T v = x; /* the operation happens before the mode is restored */
    return v;
}

} // namespace

float round_fadd(float a, float b, int r) { InMode m(r); return opaque(a + b); }
float round_fsub(float a, float b, int r) { InMode m(r); return opaque(a - b); }
float round_fmul(float a, float b, int r) { InMode m(r); return opaque(a * b); }
float round_fdiv(float a, float b, int r) { InMode m(r); return opaque(a / b); }
float round_fsqrt(float a, int r) { InMode m(r); return opaque(std::sqrt(a)); }
float round_ffma(float a, float b, float c, int r) { InModeEverywhere m(r); return opaque(std::fma(a, b, c)); }
double round_dadd(double a, double b, int r) { InMode m(r); return opaque(a + b); }
double round_dsub(double a, double b, int r) { InMode m(r); return opaque(a - b); }
double round_dmul(double a, double b, int r) { InMode m(r); return opaque(a * b); }
double round_ddiv(double a, double b, int r) { InMode m(r); return opaque(a / b); }
double round_dsqrt(double a, int r) { InMode m(r); return opaque(std::sqrt(a)); }
double round_dfma(double a, double b, double c, int r) { InModeEverywhere m(r); return opaque(std::fma(a, b, c)); }
float round_d2f(double a, int r) { InMode m(r); return opaque((float)a); }
float round_ll2f(long long a, int r) { InMode m(r); return opaque((float)a); }
float round_ull2f(unsigned long long a, int r) { InMode m(r); return opaque((float)a); }
double round_ll2d(long long a, int r) { InMode m(r); return opaque((double)a); }
double round_ull2d(unsigned long long a, int r) { InMode m(r); return opaque((double)a); }

} // namespace cuda_emu
