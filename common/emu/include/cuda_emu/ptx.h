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

/* 16 bytes, copied as one access */
struct alignas(16) Chunk16 {
    unsigned w[4];
};

} // namespace ptx

/* Asynchronous copies (cp.async, __pipeline_memcpy_async): CUDA_EMU_CP_ASYNC below reads the
 * source where the copy is issued, as the thread's own loads; the runtime keeps the bytes
 * and writes them into shared memory when a wait covers their group, with the race checks
 * of a write both where the copy starts and where it lands, and reports a read or write of
 * the destination by the issuing thread before then (README.md, Inline PTX). */
#pragma GCC visibility push(default)
void async_copy_source(const void *src, unsigned bytes, unsigned src_bytes);
void async_copy_issue(void *dst, const void *data, unsigned bytes);
void async_copy_commit();
void async_copy_wait(int keep); /* keep < 0: wait_all (commits the open group first) */
#pragma GCC visibility pop

} // namespace cuda_emu

/* BYTES (4, 8 or 16) from global memory at SRC to shared memory at DST (a pointer); only
 * SRC_BYTES of them are read, the rest are zeros (cp.async's src-size). A macro, so that
 * the loads are the line's that issues the copy. */
#define CUDA_EMU_CP_ASYNC(dst, src, bytes, src_bytes)                                          \
    do {                                                                                      \
        union {                                                                               \
            ::cuda_emu::ptx::Chunk16 v16;                                                     \
            unsigned long long v8;                                                            \
            unsigned v4;                                                                      \
            unsigned char b[16];                                                              \
        } cuda_emu_cp{};                                                                      \
        const unsigned cuda_emu_cp_n = (unsigned)(bytes), cuda_emu_cp_k = (unsigned)(src_bytes); \
        const char *cuda_emu_cp_s = ::cuda_emu::ptx::addr(src);                               \
        ::cuda_emu::async_copy_source(cuda_emu_cp_s, cuda_emu_cp_n, cuda_emu_cp_k);           \
        if (cuda_emu_cp_k == 16)                                                              \
            cuda_emu_cp.v16 = *reinterpret_cast<const ::cuda_emu::ptx::Chunk16 *>(cuda_emu_cp_s); \
        else if (cuda_emu_cp_k == 8 && cuda_emu_cp_n == 8)                                    \
            cuda_emu_cp.v8 = *reinterpret_cast<const unsigned long long *>(cuda_emu_cp_s);    \
        else if (cuda_emu_cp_k == 4 && cuda_emu_cp_n == 4)                                    \
            cuda_emu_cp.v4 = *reinterpret_cast<const unsigned *>(cuda_emu_cp_s);              \
        else                                                                                  \
            for (unsigned cuda_emu_cp_i = 0; cuda_emu_cp_i < cuda_emu_cp_k; ++cuda_emu_cp_i)  \
                cuda_emu_cp.b[cuda_emu_cp_i] = (unsigned char)cuda_emu_cp_s[cuda_emu_cp_i];   \
        ::cuda_emu::async_copy_issue((void *)(dst), cuda_emu_cp.b, cuda_emu_cp_n);            \
    } while (0)

#endif /* CUDA_EMU_PTX_H */
