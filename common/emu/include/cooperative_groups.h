/*
 * cooperative_groups.h -- CUDA's cooperative groups on the CPU emulator.
 *
 * The subset kernels use in practice, with CUDA's names: this_thread_block()
 * (sync, thread_rank, size, group_index, thread_index, dim_threads);
 * tiled_partition<N> for N = 1, 2, 4, 8, 16, 32 and tiled_partition(g, n) (sync,
 * rank, size, meta_group_rank/size, shfl, shfl_up/down/xor, ballot, any, all,
 * match_any/all); coalesced_threads(); this_grid() queries; cg::reduce and
 * cg::inclusive_scan/exclusive_scan with plus, less, greater, bit_and, bit_or,
 * bit_xor; memcpy_async/wait. Everything maps onto the emulator's barriers and
 * warp collectives, so their checks (a lane missing from a collective, a
 * barrier not all threads reach) apply to groups too.
 *
 * Not emulated, and refused at build time: grid.sync() (it needs a cooperative
 * launch, which the emulator does not run), tiles wider than a warp,
 * multi-device groups.
 */
#ifndef CUDA_EMU_COOPERATIVE_GROUPS_H
#define CUDA_EMU_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_ /* NVIDIA's guard */

#include <cuda_runtime.h>

#include <assert.h>
#include <stdio.h>

#include <cstring>
#include <type_traits>

namespace cooperative_groups {

namespace details {

/* The running thread's linear index in its block. */
CUDA_EMU_INLINE unsigned block_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
CUDA_EMU_INLINE unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
CUDA_EMU_INLINE unsigned lane() { return block_rank() % 32; }
/* The lanes of the SIZE-thread tile (SIZE a power of 2 up to 32) the running thread is in. */
CUDA_EMU_INLINE unsigned tile_mask(unsigned size)
{
    unsigned ones = size >= 32 ? 0xffffffffu : (1u << size) - 1;
    return ones << (lane() & ~(size - 1));
}
/* Bits of a warp-wide ballot, shifted so bit 0 is the tile's first lane. */
CUDA_EMU_INLINE unsigned tile_bits(unsigned bits, unsigned size)
{
    unsigned shifted = bits >> (lane() & ~(size - 1));
    return size >= 32 ? shifted : shifted & ((1u << size) - 1);
}
/* Dependent false, for static_assert in templates used only when called. */
template <class T> struct unsupported : std::false_type {};

} // namespace details

/* ---- Groups ----------------------------------------------------------------
 * thread_group is what every group converts to (a function taking a
 * thread_group accepts a block, a tile or a coalesced group); it keeps what
 * it was, so its sync() and ranks stay right. */

class thread_group {
  public:
    CUDA_EMU_INLINE void sync() const
    {
        if (kind_ == kind_block || (kind_ == kind_tile && size_ >= details::block_size()))
            __syncthreads();
        else
            __syncwarp(kind_ == kind_tile ? details::tile_mask(size_) : mask_);
    }
    CUDA_EMU_INLINE unsigned thread_rank() const
    {
        if (kind_ == kind_coalesced)
            return (unsigned)__builtin_popcount(mask_ & ((1u << details::lane()) - 1));
        return kind_ == kind_block ? details::block_rank() : details::block_rank() % size_;
    }
    CUDA_EMU_INLINE unsigned size() const
    {
        if (kind_ == kind_coalesced)
            return (unsigned)__builtin_popcount(mask_);
        return kind_ == kind_block ? details::block_size() : size_;
    }
    CUDA_EMU_INLINE unsigned num_threads() const { return size(); }
    CUDA_EMU_INLINE unsigned meta_group_rank() const
    {
        return kind_ == kind_tile ? details::block_rank() / size_ : 0;
    }
    CUDA_EMU_INLINE unsigned meta_group_size() const
    {
        return kind_ == kind_tile ? (details::block_size() + size_ - 1) / size_ : 1;
    }

  protected:
    enum Kind : unsigned { kind_block, kind_tile, kind_coalesced };
    thread_group(Kind kind, unsigned size, unsigned mask) : kind_(kind), size_(size), mask_(mask) {}
    Kind kind_;     /* what the group is */
    unsigned size_; /* threads in a tile */
    unsigned mask_; /* lanes of a coalesced group */

    template <class Parent> friend thread_group tiled_partition(const Parent &, unsigned);
};

class thread_block : public thread_group {
  public:
    thread_block() : thread_group(kind_block, 0, 0) {}
    CUDA_EMU_INLINE void sync() const { __syncthreads(); }
    CUDA_EMU_INLINE static void barrier_wait() { __syncthreads(); }
    CUDA_EMU_INLINE unsigned thread_rank() const { return details::block_rank(); }
    CUDA_EMU_INLINE unsigned size() const { return details::block_size(); }
    CUDA_EMU_INLINE unsigned num_threads() const { return details::block_size(); }
    CUDA_EMU_INLINE dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    CUDA_EMU_INLINE dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    CUDA_EMU_INLINE dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    CUDA_EMU_INLINE dim3 dim_threads() const { return group_dim(); }
};

CUDA_EMU_INLINE thread_block this_thread_block() { return thread_block(); }

/* A tile of SIZE threads of one warp, with the warp collectives. */
template <unsigned Size, class Parent = void>
class thread_block_tile : public thread_group {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "cuda-emu: tiles of 1, 2, 4, 8, 16 or 32 threads are emulated (not wider than a warp)");

  public:
    thread_block_tile() : thread_group(kind_tile, Size, 0) {}
    template <class P>
    thread_block_tile(const thread_block_tile<Size, P> &) : thread_group(kind_tile, Size, 0) {}
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    CUDA_EMU_INLINE void sync() const { __syncwarp(details::tile_mask(Size)); }
    CUDA_EMU_INLINE unsigned thread_rank() const { return details::block_rank() % Size; }
    CUDA_EMU_INLINE unsigned meta_group_rank() const { return details::block_rank() / Size; }
    CUDA_EMU_INLINE unsigned meta_group_size() const
    {
        return (details::block_size() + Size - 1) / Size;
    }
    template <class T> CUDA_EMU_INLINE T shfl(T var, int src) const
    {
        return __shfl_sync(details::tile_mask(Size), var, src, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_down(T var, unsigned delta) const
    {
        return __shfl_down_sync(details::tile_mask(Size), var, delta, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_up(T var, unsigned delta) const
    {
        return __shfl_up_sync(details::tile_mask(Size), var, delta, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_xor(T var, unsigned mask) const
    {
        return __shfl_xor_sync(details::tile_mask(Size), var, (int)mask, Size);
    }
    CUDA_EMU_INLINE unsigned ballot(int pred) const
    {
        return details::tile_bits(__ballot_sync(details::tile_mask(Size), pred), Size);
    }
    CUDA_EMU_INLINE int any(int pred) const { return __any_sync(details::tile_mask(Size), pred); }
    CUDA_EMU_INLINE int all(int pred) const { return __all_sync(details::tile_mask(Size), pred); }
    template <class T> CUDA_EMU_INLINE unsigned match_any(T value) const
    {
        return details::tile_bits(__match_any_sync(details::tile_mask(Size), value), Size);
    }
    template <class T> CUDA_EMU_INLINE unsigned match_all(T value, int &pred) const
    {
        return details::tile_bits(__match_all_sync(details::tile_mask(Size), value, &pred), Size);
    }
};

template <unsigned Size, class Parent>
CUDA_EMU_INLINE thread_block_tile<Size, Parent> tiled_partition(const Parent &)
{
    return thread_block_tile<Size, Parent>();
}

/* tiled_partition(g, n): tiles of N threads, N a power of 2 up to 32, or the whole block. */
template <class Parent>
CUDA_EMU_INLINE thread_group tiled_partition(const Parent &, unsigned n)
{
    if (!(n == details::block_size() || (n >= 1 && n <= 32 && (n & (n - 1)) == 0))) {
        printf("cuda-emu: error: tiled_partition(group, %u): the emulator makes tiles of 1, 2, 4, "
               "8, 16 or 32 threads, or the whole block\n", n);
        __assert_fail("tiled_partition size", __FILE__, __LINE__, __func__);
    }
    return thread_group(thread_group::kind_tile, n, 0);
}

/* The threads of the warp that are running this call together. */
class coalesced_group : public thread_group {
  public:
    CUDA_EMU_INLINE coalesced_group() : thread_group(kind_coalesced, 0, __activemask()) {}
    CUDA_EMU_INLINE void sync() const { __syncwarp(mask_); }
    CUDA_EMU_INLINE unsigned thread_rank() const
    {
        return (unsigned)__builtin_popcount(mask_ & ((1u << details::lane()) - 1));
    }
    CUDA_EMU_INLINE unsigned size() const { return (unsigned)__builtin_popcount(mask_); }
    CUDA_EMU_INLINE unsigned num_threads() const { return size(); }
    CUDA_EMU_INLINE unsigned meta_group_rank() const { return 0; }
    CUDA_EMU_INLINE unsigned meta_group_size() const { return 1; }
    template <class T> CUDA_EMU_INLINE T shfl(T var, unsigned src_rank) const
    {
        return __shfl_sync(mask_, var, lane_of(src_rank % size()));
    }
    template <class T> CUDA_EMU_INLINE T shfl_down(T var, unsigned delta) const
    {
        unsigned r = thread_rank() + delta;
        return __shfl_sync(mask_, var, r < size() ? lane_of(r) : (int)details::lane());
    }
    template <class T> CUDA_EMU_INLINE T shfl_up(T var, unsigned delta) const
    {
        unsigned r = thread_rank();
        return __shfl_sync(mask_, var, r >= delta ? lane_of(r - delta) : (int)details::lane());
    }
    CUDA_EMU_INLINE unsigned ballot(int pred) const
    {
        unsigned bits = __ballot_sync(mask_, pred), out = 0, k = 0;
        for (unsigned l = 0; l < 32; ++l)
            if (mask_ >> l & 1)
                out |= (bits >> l & 1) << k++;
        return out;
    }
    CUDA_EMU_INLINE int any(int pred) const { return __any_sync(mask_, pred); }
    CUDA_EMU_INLINE int all(int pred) const { return __all_sync(mask_, pred); }

  private:
    /* The warp lane of rank R in the group. */
    CUDA_EMU_INLINE int lane_of(unsigned r) const
    {
        unsigned m = mask_;
        for (unsigned i = 0; i < r; ++i)
            m &= m - 1;
        return __builtin_ctz(m);
    }
};

CUDA_EMU_INLINE coalesced_group coalesced_threads() { return coalesced_group(); }

/* The whole grid: queries. Its sync() needs a cooperative launch, which the
 * emulator does not run, so a kernel that calls it does not build. */
class grid_group {
  public:
    CUDA_EMU_INLINE bool is_valid() const { return true; }
    template <class D = void> void sync() const
    {
        static_assert(details::unsupported<D>::value,
                      "cuda-emu: grid.sync() needs a cooperative launch, which the CPU emulator "
                      "does not run");
    }
    CUDA_EMU_INLINE unsigned long long num_blocks() const
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    CUDA_EMU_INLINE unsigned long long block_rank() const
    {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    CUDA_EMU_INLINE unsigned long long num_threads() const { return num_blocks() * details::block_size(); }
    CUDA_EMU_INLINE unsigned long long size() const { return num_threads(); }
    CUDA_EMU_INLINE unsigned long long thread_rank() const
    {
        return block_rank() * details::block_size() + details::block_rank();
    }
    CUDA_EMU_INLINE dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    CUDA_EMU_INLINE dim3 dim_blocks() const { return group_dim(); }
    CUDA_EMU_INLINE dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

CUDA_EMU_INLINE grid_group this_grid() { return grid_group(); }

template <class Group> CUDA_EMU_INLINE void sync(const Group &g) { g.sync(); }

/* ---- memcpy_async: each thread of the group copies its share at once ------ */

template <class Group>
CUDA_EMU_INLINE void memcpy_async(const Group &g, void *dst, const void *src, size_t bytes)
{
    unsigned n = g.size(), r = g.thread_rank();
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    for (size_t i = r; i < bytes; i += n)
        d[i] = s[i];
}
template <class Group, class T>
CUDA_EMU_INLINE void memcpy_async(const Group &g, T *dst, const T *src, size_t bytes)
{
    memcpy_async(g, static_cast<void *>(dst), static_cast<const void *>(src), bytes);
}
template <class Group> CUDA_EMU_INLINE void wait(const Group &g) { g.sync(); }
template <size_t N = 0, class Group> CUDA_EMU_INLINE void wait_prior(const Group &g) { g.sync(); }

} // namespace cooperative_groups

#include "cooperative_groups/reduce.h"

#endif /* CUDA_EMU_COOPERATIVE_GROUPS_H */
