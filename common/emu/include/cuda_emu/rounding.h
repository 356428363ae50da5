/*
 * cuda_emu/rounding.h -- CUDA's arithmetic and conversion intrinsics with a
 * rounding mode in their name (_rn to nearest even, _rz toward zero, _ru up,
 * _rd down), correctly rounded as on a GPU. The operations are in the
 * runtime (src/rounding.cpp), which switches the CPU's rounding mode around
 * each; float-to-integer conversions saturate as the GPU's do (NaN gives 0).
 */
#ifndef CUDA_EMU_ROUNDING_H
#define CUDA_EMU_ROUNDING_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include <cmath>
#include <limits>

namespace cuda_emu {

enum Rounding { round_rn = 0, round_rz = 1, round_ru = 2, round_rd = 3 };

float round_fadd(float a, float b, int r);
float round_fsub(float a, float b, int r);
float round_fmul(float a, float b, int r);
float round_fdiv(float a, float b, int r);
float round_fsqrt(float a, int r);
float round_ffma(float a, float b, float c, int r);
double round_dadd(double a, double b, int r);
double round_dsub(double a, double b, int r);
double round_dmul(double a, double b, int r);
double round_ddiv(double a, double b, int r);
double round_dsqrt(double a, int r);
double round_dfma(double a, double b, double c, int r);
float round_d2f(double a, int r);
float round_ll2f(long long a, int r);
float round_ull2f(unsigned long long a, int r);
double round_ll2d(long long a, int r);
double round_ull2d(unsigned long long a, int r);

/* X rounded to an integer in mode R, converted to I with the GPU's
 * saturation: NaN gives 0, values beyond I's range its limits. */
template <class I>
inline I round_to_int(double x, int r)
{
    if (x != x)
        return 0;
    double v = r == round_rn ? std::nearbyint(x) : r == round_rz ? std::trunc(x)
             : r == round_ru ? std::ceil(x) : std::floor(x);
    if (v <= (double)std::numeric_limits<I>::min())
        return std::numeric_limits<I>::min();
    if (v >= (double)std::numeric_limits<I>::max())
        return std::numeric_limits<I>::max();
    return (I)v;
}

} // namespace cuda_emu

#pragma GCC visibility pop
#endif /* CUDA_EMU_ROUNDING_H */
