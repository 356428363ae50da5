/*
 * cooperative_groups/reduce.h -- cg::reduce and the scans, for the CPU emulator.
 *
 * The lanes of each warp in the group exchange their values in one
 * rendezvous (cuda_emu::warp_exchange) and combine them in rank order; a
 * group wider than a warp then combines the warps' results through the
 * block's shared memory, between two syncs of the group. Every thread gets
 * the same result (a GPU's order of combination is unspecified; the result of
 * an associative operator is the same, of float addition close to it).
 */
#ifndef CUDA_EMU_CG_REDUCE_H
#define CUDA_EMU_CG_REDUCE_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { CUDA_EMU_INLINE T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { CUDA_EMU_INLINE T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { CUDA_EMU_INLINE T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { CUDA_EMU_INLINE T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { CUDA_EMU_INLINE T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { CUDA_EMU_INLINE T operator()(T a, T b) const { return a ^ b; } };

namespace details {

template <class V> inline const char scratch_key = 0; /* one shared buffer per value type */

/* The values of the lanes of this warp in SHAPE: ALL[lane] for each lane in
 * SHAPE.mask. */
template <class V>
CUDA_EMU_INLINE void exchange(const Shape &shape, const V &mine, V *all)
{
    static_assert(std::is_trivially_copyable<V>::value,
                  "cuda-emu: cooperative groups' collectives need a trivially copyable type");
    cuda_emu::warp_exchange(shape.mask, &mine, all, sizeof(V));
}

/* Syncs the wide group SHAPE describes. */
CUDA_EMU_INLINE void wide_sync(const Shape &shape)
{
    if (shape.count >= block_size())
        __syncthreads();
    else
        cuda_emu::tile_barrier(shape.first, shape.count);
}

/* The results of the warps of a wide group (ACC of the first lane of each),
 * in order, in the block's scratch: written, synced, read by the caller, who
 * must call wide_sync once more before the scratch is used again. */
template <class V>
CUDA_EMU_INLINE V *publish(const Shape &shape, const V &acc)
{
    V *scratch = static_cast<V *>(cuda_emu::shared_scratch(&scratch_key<V>, 32 * sizeof(V)));
    if (lane() == (unsigned)__builtin_ctz(shape.mask))
        std::memcpy(&scratch[block_rank() / 32], &acc, sizeof(V));
    wide_sync(shape);
    return scratch;
}

} // namespace details

/* The reduction of VAL over the group G with OP. */
template <class Group, class T, class Op>
CUDA_EMU_INLINE typename std::remove_cv<typename std::remove_reference<T>::type>::type
reduce(const Group &g, T &&val, Op op)
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    const details::Shape shape = g.shape();
    V mine = val;
    alignas(V) unsigned char buf[32 * sizeof(V)];
    V *all = reinterpret_cast<V *>(buf);
    details::exchange(shape, mine, all);
    unsigned m = shape.mask;
    V acc = all[__builtin_ctz(m)];
    for (m &= m - 1; m != 0; m &= m - 1)
        acc = op(acc, all[__builtin_ctz(m)]);
    if (!shape.wide)
        return acc;
    V *warps = details::publish(shape, acc);
    unsigned w0 = shape.first / 32, w1 = (shape.first + shape.count + 31) / 32;
    if (w1 * 32 > details::block_size())
        w1 = (details::block_size() + 31) / 32;
    V total = warps[w0];
    for (unsigned w = w0 + 1; w < w1; ++w)
        total = op(total, warps[w]);
    details::wide_sync(shape);
    return total;
}

/* Inclusive and exclusive scans of VAL over G in rank order. */
template <class Group, class T, class Op = plus<typename std::remove_cv<typename std::remove_reference<T>::type>::type>>
CUDA_EMU_INLINE typename std::remove_cv<typename std::remove_reference<T>::type>::type
inclusive_scan(const Group &g, T &&val, Op op = Op())
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    const details::Shape shape = g.shape();
    V mine = val;
    alignas(V) unsigned char buf[32 * sizeof(V)];
    V *all = reinterpret_cast<V *>(buf);
    details::exchange(shape, mine, all);
    const unsigned me = details::lane();
    unsigned m = shape.mask;
    V acc = all[__builtin_ctz(m)], total = acc;
    for (m &= m - 1; m != 0; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        total = op(total, all[l]);
        if (l <= me)
            acc = op(acc, all[l]);
    }
    if (!shape.wide)
        return acc;
    V *warps = details::publish(shape, total);
    unsigned w0 = shape.first / 32, mine_w = details::block_rank() / 32;
    if (mine_w > w0) {
        V before = warps[w0];
        for (unsigned w = w0 + 1; w < mine_w; ++w)
            before = op(before, warps[w]);
        acc = op(before, acc);
    }
    details::wide_sync(shape);
    return acc;
}

template <class Group, class T, class Op = plus<typename std::remove_cv<typename std::remove_reference<T>::type>::type>>
CUDA_EMU_INLINE typename std::remove_cv<typename std::remove_reference<T>::type>::type
exclusive_scan(const Group &g, T &&val, Op op = Op())
{
    using V = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
    const details::Shape shape = g.shape();
    V mine = val;
    alignas(V) unsigned char buf[32 * sizeof(V)];
    V *all = reinterpret_cast<V *>(buf);
    details::exchange(shape, mine, all);
    const unsigned me = details::lane();
    unsigned m = shape.mask;
    V acc = V(), total = all[__builtin_ctz(m)];
    bool any = false;
    for (; m != 0; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        if (l != (unsigned)__builtin_ctz(shape.mask))
            total = op(total, all[l]);
        if (l < me) {
            acc = any ? op(acc, all[l]) : all[l];
            any = true;
        }
    }
    if (!shape.wide)
        return acc;
    V *warps = details::publish(shape, total);
    unsigned w0 = shape.first / 32, mine_w = details::block_rank() / 32;
    if (mine_w > w0) {
        V before = warps[w0];
        for (unsigned w = w0 + 1; w < mine_w; ++w)
            before = op(before, warps[w]);
        acc = any ? op(before, acc) : before;
    }
    details::wide_sync(shape);
    return acc;
}

} // namespace cooperative_groups

#pragma GCC visibility pop
#endif /* CUDA_EMU_CG_REDUCE_H */
