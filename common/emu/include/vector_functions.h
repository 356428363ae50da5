/*
 * vector_functions.h -- make_float4() and friends for the CPU emulator.
 *
 * The constructors CUDA declares for every vector type in vector_types.h,
 * with the same names and argument order. Usable from C and C++.
 */
#ifndef CUDA_EMU_VECTOR_FUNCTIONS_H
#define CUDA_EMU_VECTOR_FUNCTIONS_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __VECTOR_FUNCTIONS_H__ /* NVIDIA's guard: headers test it to see this one is in */

#include "vector_types.h"

#define CUDA_EMU_MAKE1(T, name) \
    static inline name make_##name(T x) { name v; v.x = x; return v; }
#define CUDA_EMU_MAKE2(T, name) \
    static inline name make_##name(T x, T y) { name v; v.x = x; v.y = y; return v; }
#define CUDA_EMU_MAKE3(T, name)                          \
    static inline name make_##name(T x, T y, T z)        \
    { name v; v.x = x; v.y = y; v.z = z; return v; }
#define CUDA_EMU_MAKE4(T, name)                          \
    static inline name make_##name(T x, T y, T z, T w)   \
    { name v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define CUDA_EMU_MAKE_ALL(T, base)                                     \
    CUDA_EMU_MAKE1(T, base##1) CUDA_EMU_MAKE2(T, base##2)              \
    CUDA_EMU_MAKE3(T, base##3) CUDA_EMU_MAKE4(T, base##4)

CUDA_EMU_MAKE_ALL(signed char, char)
CUDA_EMU_MAKE_ALL(unsigned char, uchar)
CUDA_EMU_MAKE_ALL(short, short)
CUDA_EMU_MAKE_ALL(unsigned short, ushort)
CUDA_EMU_MAKE_ALL(int, int)
CUDA_EMU_MAKE_ALL(unsigned int, uint)
CUDA_EMU_MAKE_ALL(long, long)
CUDA_EMU_MAKE_ALL(unsigned long, ulong)
CUDA_EMU_MAKE_ALL(long long, longlong)
CUDA_EMU_MAKE_ALL(unsigned long long, ulonglong)
CUDA_EMU_MAKE_ALL(float, float)
CUDA_EMU_MAKE_ALL(double, double)

#undef CUDA_EMU_MAKE1
#undef CUDA_EMU_MAKE2
#undef CUDA_EMU_MAKE3
#undef CUDA_EMU_MAKE4
#undef CUDA_EMU_MAKE_ALL

#pragma GCC visibility pop
#endif /* CUDA_EMU_VECTOR_FUNCTIONS_H */
