/*
 * cuda_emu/ptx.h -- what inline PTX becomes. emu-rewrite translates the instructions of the
 * emulator's subset (README.md, Inline PTX) into C++ in the .cu file itself, so that their
 * loads and stores are checked like any other; these helpers move values between the asm's
 * operands (C++ variables of any type of the right size) and the instruction's own type.
 */
#ifndef CUDA_EMU_PTX_H
#define CUDA_EMU_PTX_H

#include <stdint.h>
#include <string.h>

#include <type_traits>

namespace cuda_emu {
namespace ptx {

/* An operand read as the instruction's type T: its bits where the sizes agree (a float
 * operand of a .b32 instruction), else converted (an int immediate for a .u64). */
template <class T, class S>
inline T in(const S &s)
{
    if constexpr (std::is_same_v<T, S>)
        return s;
    else if constexpr (sizeof(T) == sizeof(S) && !std::is_pointer_v<S>) {
        T t;
        memcpy(&t, &s, sizeof t);
        return t;
    } else if constexpr (std::is_pointer_v<S>)
        return (T)(uintptr_t)s;
    else
        return (T)s;
}

/* The result V of type T stored into the output operand D, the same way. */
template <class T, class D>
inline void out(D &d, T v)
{
    if constexpr (std::is_same_v<T, D>)
        d = v;
    else if constexpr (sizeof(T) == sizeof(D) && !std::is_pointer_v<D>)
        memcpy(&d, &v, sizeof d);
    else if constexpr (std::is_pointer_v<D>)
        d = (D)(uintptr_t)v;
    else
        d = (D)v;
}

/* An address operand (a pointer, or a 64-bit integer holding one) as bytes. */
template <class P>
inline char *addr(const P &p)
{
    if constexpr (std::is_pointer_v<P>)
        return (char *)(uintptr_t)p;
    else
        return (char *)(uintptr_t)(unsigned long long)p;
}

/* lop3.b32: bit i of the result is bit (a_i b_i c_i) of the table LUT. */
inline unsigned lop3(unsigned a, unsigned b, unsigned c, unsigned lut)
{
    unsigned r = 0;
    for (unsigned k = 0; k < 8; ++k)
        if (lut >> k & 1)
            r |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
    return r;
}

} // namespace ptx
} // namespace cuda_emu

#endif /* CUDA_EMU_PTX_H */
