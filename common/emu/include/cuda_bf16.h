/*
 * cuda_bf16.h -- __nv_bfloat16 and __nv_bfloat162 for the CPU emulator: storage,
 * conversions (round to nearest even), arithmetic rounded per operation, comparisons.
 * atomicAdd of __nv_bfloat16 and __nv_bfloat162. Not here: the other bfloat16 atomics and the
 * math functions; using one is a build error.
 */
#ifndef CUDA_EMU_CUDA_BF16_H
#define CUDA_EMU_CUDA_BF16_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __CUDA_BF16_H__ /* NVIDIA's guard */

#include <cmath>

#include "cuda_emu/half_common.h"
#include "cuda_fp16.h" /* as NVIDIA's cuda_bf16.h: __half comes with it */
#include "vector_types.h"

CUDA_EMU_HALF_TYPE(__nv_bfloat16, __nv_bfloat162, cuda_emu::float_to_bf16_bits,
                   cuda_emu::bf16_bits_to_float)
CUDA_EMU_HALF_ATOMICS(__nv_bfloat16, __nv_bfloat162)
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
inline float2 __bfloat1622float2(__nv_bfloat162 b) { return make_float2(float(b.x), float(b.y)); }
inline float __low2float(__nv_bfloat162 b) { return float(b.x); }
inline float __high2float(__nv_bfloat162 b) { return float(b.y); }
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return a - b; }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __nv_bfloat16(fmaf(float(a), float(b), float(c))); }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return a + b; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return a * b; }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) { return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }

#pragma GCC visibility pop
#endif /* CUDA_EMU_CUDA_BF16_H */
