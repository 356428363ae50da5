/*
 * cuda_emu/half_common.h -- 16-bit floating point for cuda_fp16.h and cuda_bf16.h.
 *
 * A 16-bit value is stored as CUDA stores it (IEEE binary16, or bfloat16 = the
 * top half of a float); arithmetic converts to float, computes, and rounds back
 * to nearest even, which is what the GPU's half instructions return for one
 * operation (fma included: float's 24 bits hold a 11-bit product exactly).
 */
#ifndef CUDA_EMU_HALF_COMMON_H
#define CUDA_EMU_HALF_COMMON_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include <cstdint>
#include <cstring>

#include "defines.h"

namespace cuda_emu {

inline uint32_t float_bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float bits_float(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

/* binary16 <-> float, round to nearest even. */
inline unsigned short float_to_half_bits(float f)
{
    uint32_t x = float_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or NaN */
        return (unsigned short)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) /* rounds to infinity */
        return (unsigned short)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* subnormal half (or zero) */
        float v = bits_float(ax) * 16777216.0f; /* scaled by 2^24: the half's units */
        uint32_t units = (uint32_t)v;
        float rest = v - (float)units;
        if (rest > 0.5f || (rest == 0.5f && (units & 1u)))
            ++units;
        return (unsigned short)(sign | units);
    }
    uint32_t mant = ax & 0x7fffffu, exp = (ax >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13), low = mant & 0x1fffu;
    if (low > 0x1000u || (low == 0x1000u && (h & 1u)))
        ++h;
    return (unsigned short)(sign | h);
}
inline float half_bits_to_float(unsigned short h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f)
        return bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        float v = (float)mant / 16777216.0f;
        return sign ? -v : v;
    }
    return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

/* bfloat16 <-> float, round to nearest even. */
inline unsigned short float_to_bf16_bits(float f)
{
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((x >> 16) | 0x40u);
    return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
inline float bf16_bits_to_float(unsigned short b) { return bits_float((uint32_t)b << 16); }

} // namespace cuda_emu

/* One 16-bit type, T, and its pair T2, with CUDA's operators; TO and FROM
 * convert the bits. */
#define CUDA_EMU_HALF_TYPE(T, T2, TO, FROM)                                              \
    struct T {                                                                           \
        unsigned short __x; /* the bits */                                               \
        T() = default;                                                                   \
        T(float f) : __x(TO(f)) {}                                                       \
        T(double f) : __x(TO((float)f)) {}                                               \
        T(int i) : __x(TO((float)i)) {}                                                  \
        T(unsigned i) : __x(TO((float)i)) {}                                             \
        T(long long i) : __x(TO((float)i)) {}                                            \
        T(unsigned long long i) : __x(TO((float)i)) {}                                   \
        operator float() const { return FROM(__x); }                                     \
        T &operator+=(T o) { return *this = T(float(*this) + float(o)); }                \
        T &operator-=(T o) { return *this = T(float(*this) - float(o)); }                \
        T &operator*=(T o) { return *this = T(float(*this) * float(o)); }                \
        T &operator/=(T o) { return *this = T(float(*this) / float(o)); }                \
    };                                                                                   \
    inline T operator+(T a, T b) { return T(float(a) + float(b)); }                      \
    inline T operator-(T a, T b) { return T(float(a) - float(b)); }                      \
    inline T operator*(T a, T b) { return T(float(a) * float(b)); }                      \
    inline T operator/(T a, T b) { return T(float(a) / float(b)); }                      \
    inline T operator-(T a) { T r = a; r.__x ^= 0x8000u; return r; }                     \
    inline bool operator==(T a, T b) { return float(a) == float(b); }                    \
    inline bool operator!=(T a, T b) { return float(a) != float(b); }                    \
    inline bool operator<(T a, T b) { return float(a) < float(b); }                      \
    inline bool operator>(T a, T b) { return float(a) > float(b); }                      \
    inline bool operator<=(T a, T b) { return float(a) <= float(b); }                    \
    inline bool operator>=(T a, T b) { return float(a) >= float(b); }                    \
    struct T2 {                                                                          \
        T x, y; /* low and high halves */                                                \
        T2() = default;                                                                  \
        T2(T a, T b) : x(a), y(b) {}                                                     \
    };                                                                                   \
    inline T2 operator+(T2 a, T2 b) { return T2(a.x + b.x, a.y + b.y); }                 \
    inline T2 operator-(T2 a, T2 b) { return T2(a.x - b.x, a.y - b.y); }                 \
    inline T2 operator*(T2 a, T2 b) { return T2(a.x * b.x, a.y * b.y); }                 \
    inline T2 operator/(T2 a, T2 b) { return T2(a.x / b.x, a.y / b.y); }

/* atomicAdd of a 16-bit value (T) and of a pair (T2), as a compare-and-swap loop on its 16 or
 * 32 bits (U): the runtime's atomicCAS, which tells the race checker the access is atomic (the
 * first read too: a compare-and-swap that changes nothing). A pair is added as one 32-bit
 * operation, which a GPU's per-half atomicity allows. */
unsigned short atomicCAS(unsigned short *address, unsigned short compare, unsigned short val);
unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
namespace cuda_emu {
template <class U, class V> inline V atomic_add_bits(V *address, V val)
{
    static_assert(sizeof(U) == sizeof(V), "the value is added as one word of its size");
    U *p = reinterpret_cast<U *>(address);
    U old = ::atomicCAS(p, U(0), U(0)), seen, bits;
    V now;
    do {
        seen = old;
        std::memcpy(&now, &seen, sizeof now);
        now = now + val;
        std::memcpy(&bits, &now, sizeof bits);
        old = ::atomicCAS(p, seen, bits);
    } while (old != seen);
    std::memcpy(&now, &old, sizeof now);
    return now;
}
} // namespace cuda_emu
#define CUDA_EMU_HALF_ATOMICS(T, T2)                                                     \
    inline T atomicAdd(T *address, T val)                                                \
    {                                                                                    \
        return cuda_emu::atomic_add_bits<unsigned short>(address, val);                  \
    }                                                                                    \
    inline T2 atomicAdd(T2 *address, T2 val)                                             \
    {                                                                                    \
        return cuda_emu::atomic_add_bits<unsigned int>(address, val);                    \
    }

#pragma GCC visibility pop
#endif /* CUDA_EMU_HALF_COMMON_H */
