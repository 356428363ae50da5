/*
 * vector_types.h -- CUDA's built-in vector types for the CPU emulator.
 *
 * Kernels load float4 and int4 to move 16 bytes per instruction, and that is
 * only legal when the address is 16-byte aligned; the types therefore carry the
 * same alignment as in NVIDIA's header, so sizeof/alignof agree with a GPU build
 * and a misaligned vector access is a misaligned access here too (UBSan reports
 * it). Usable from C and C++: the project's plain C files include this through
 * cuda_runtime_api.h. tests/emu/test_abi.sh checks every size and alignment
 * against the real CUDA header when one is installed.
 */
#ifndef CUDA_EMU_VECTOR_TYPES_H
#define CUDA_EMU_VECTOR_TYPES_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __VECTOR_TYPES_H__ /* NVIDIA's guard: headers test it to see this one is in */

#define CUDA_EMU_ALIGN(n) __attribute__((aligned(n)))

/* One struct per (element type, width). ALIGN is CUDA's alignment for it. */
#define CUDA_EMU_VEC1(T, name, al) \
    typedef struct CUDA_EMU_ALIGN(al) name { T x; } name;
#define CUDA_EMU_VEC2(T, name, al) \
    typedef struct CUDA_EMU_ALIGN(al) name { T x, y; } name;
#define CUDA_EMU_VEC3(T, name, al) \
    typedef struct CUDA_EMU_ALIGN(al) name { T x, y, z; } name;
#define CUDA_EMU_VEC4(T, name, al) \
    typedef struct CUDA_EMU_ALIGN(al) name { T x, y, z, w; } name;

CUDA_EMU_VEC1(signed char, char1, 1)
CUDA_EMU_VEC2(signed char, char2, 2)
CUDA_EMU_VEC3(signed char, char3, 1)
CUDA_EMU_VEC4(signed char, char4, 4)
CUDA_EMU_VEC1(unsigned char, uchar1, 1)
CUDA_EMU_VEC2(unsigned char, uchar2, 2)
CUDA_EMU_VEC3(unsigned char, uchar3, 1)
CUDA_EMU_VEC4(unsigned char, uchar4, 4)
CUDA_EMU_VEC1(short, short1, 2)
CUDA_EMU_VEC2(short, short2, 4)
CUDA_EMU_VEC3(short, short3, 2)
CUDA_EMU_VEC4(short, short4, 8)
CUDA_EMU_VEC1(unsigned short, ushort1, 2)
CUDA_EMU_VEC2(unsigned short, ushort2, 4)
CUDA_EMU_VEC3(unsigned short, ushort3, 2)
CUDA_EMU_VEC4(unsigned short, ushort4, 8)
CUDA_EMU_VEC1(int, int1, 4)
CUDA_EMU_VEC2(int, int2, 8)
CUDA_EMU_VEC3(int, int3, 4)
CUDA_EMU_VEC4(int, int4, 16)
CUDA_EMU_VEC1(unsigned int, uint1, 4)
CUDA_EMU_VEC2(unsigned int, uint2, 8)
CUDA_EMU_VEC3(unsigned int, uint3, 4)
CUDA_EMU_VEC4(unsigned int, uint4, 16)
CUDA_EMU_VEC1(long, long1, 8)
CUDA_EMU_VEC2(long, long2, 16)
CUDA_EMU_VEC3(long, long3, 8)
CUDA_EMU_VEC4(long, long4, 16)
CUDA_EMU_VEC4(long, long4_16a, 16)
CUDA_EMU_VEC4(long, long4_32a, 32)
CUDA_EMU_VEC1(unsigned long, ulong1, 8)
CUDA_EMU_VEC2(unsigned long, ulong2, 16)
CUDA_EMU_VEC3(unsigned long, ulong3, 8)
CUDA_EMU_VEC4(unsigned long, ulong4, 16)
CUDA_EMU_VEC4(unsigned long, ulong4_16a, 16)
CUDA_EMU_VEC4(unsigned long, ulong4_32a, 32)
CUDA_EMU_VEC1(long long, longlong1, 8)
CUDA_EMU_VEC2(long long, longlong2, 16)
CUDA_EMU_VEC3(long long, longlong3, 8)
CUDA_EMU_VEC4(long long, longlong4, 16)
CUDA_EMU_VEC4(long long, longlong4_16a, 16)
CUDA_EMU_VEC4(long long, longlong4_32a, 32)
CUDA_EMU_VEC1(unsigned long long, ulonglong1, 8)
CUDA_EMU_VEC2(unsigned long long, ulonglong2, 16)
CUDA_EMU_VEC3(unsigned long long, ulonglong3, 8)
CUDA_EMU_VEC4(unsigned long long, ulonglong4, 16)
CUDA_EMU_VEC4(unsigned long long, ulonglong4_16a, 16)
CUDA_EMU_VEC4(unsigned long long, ulonglong4_32a, 32)
CUDA_EMU_VEC1(float, float1, 4)
CUDA_EMU_VEC2(float, float2, 8)
CUDA_EMU_VEC3(float, float3, 4)
CUDA_EMU_VEC4(float, float4, 16)
CUDA_EMU_VEC1(double, double1, 8)
CUDA_EMU_VEC2(double, double2, 16)
CUDA_EMU_VEC3(double, double3, 8)
CUDA_EMU_VEC4(double, double4, 16)
CUDA_EMU_VEC4(double, double4_16a, 16)
CUDA_EMU_VEC4(double, double4_32a, 32)

#undef CUDA_EMU_VEC1
#undef CUDA_EMU_VEC2
#undef CUDA_EMU_VEC3
#undef CUDA_EMU_VEC4

/* Grid and block shapes. Unset dimensions default to 1, as in CUDA. */
typedef struct dim3 {
    unsigned int x, y, z; /* extent along each axis, at least 1 */
#ifdef __cplusplus
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
} dim3;

#pragma GCC visibility pop
#endif /* CUDA_EMU_VECTOR_TYPES_H */
