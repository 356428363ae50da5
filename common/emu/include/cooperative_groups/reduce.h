/*
 * cooperative_groups/reduce.h -- cg::reduce and the scans, for the CPU emulator.
 *
 * Every thread of the group gathers the group's values with shuffles and
 * combines them in rank order, so all threads get the same result (a GPU's
 * order of combination is unspecified; the result of an associative operator
 * is the same, of float addition close to it).
 */
#ifndef CUDA_EMU_CG_REDUCE_H
#define CUDA_EMU_CG_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { CUDA_EMU_INLINE T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { CUDA_EMU_INLINE T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { CUDA_EMU_INLINE T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { CUDA_EMU_INLINE T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { CUDA_EMU_INLINE T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { CUDA_EMU_INLINE T operator()(T a, T b) const { return a ^ b; } };

/* The reduction of VAL over the tile or coalesced group G with OP. */
template <class Group, class T, class Op>
CUDA_EMU_INLINE typename std::remove_reference<T>::type reduce(const Group &g, T &&val, Op op)
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    V mine = val, acc = g.shfl(mine, 0);
    for (unsigned r = 1; r < g.size(); ++r)
        acc = op(acc, g.shfl(mine, r));
    return acc;
}

/* Inclusive and exclusive scans of VAL over G in rank order. */
template <class Group, class T, class Op = plus<typename std::remove_cv<typename std::remove_reference<T>::type>::type>>
CUDA_EMU_INLINE typename std::remove_reference<T>::type inclusive_scan(const Group &g, T &&val, Op op = Op())
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    V mine = val, acc = g.shfl(mine, 0);
    unsigned me = g.thread_rank();
    for (unsigned r = 1; r < g.size(); ++r) {
        V v = g.shfl(mine, r);
        if (r <= me)
            acc = op(acc, v);
    }
    return acc;
}
template <class Group, class T, class Op = plus<typename std::remove_cv<typename std::remove_reference<T>::type>::type>>
CUDA_EMU_INLINE typename std::remove_reference<T>::type exclusive_scan(const Group &g, T &&val, Op op = Op())
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    V mine = val, acc = V();
    unsigned me = g.thread_rank();
    for (unsigned r = 0; r < g.size(); ++r) {
        V v = g.shfl(mine, r);
        if (r < me)
            acc = r == 0 ? v : op(acc, v);
    }
    return acc;
}

} // namespace cooperative_groups

#endif /* CUDA_EMU_CG_REDUCE_H */
