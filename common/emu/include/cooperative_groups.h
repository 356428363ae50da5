/*
 * cooperative_groups.h -- CUDA's cooperative groups on the CPU emulator.
 *
 * The subset kernels use in practice, with CUDA's names: this_thread_block()
 * (sync, thread_rank, size, group_index, thread_index, dim_threads, also with
 * a block_tile_memory); tiled_partition<N> for N a power of 2 up to 1024 and
 * tiled_partition(g, n) (sync, ranks, sizes, meta_group_rank/size; tiles of
 * up to 32 threads also shfl, shfl_up/down/xor, ballot, any, all,
 * match_any/all); coalesced_threads(), labeled_partition, binary_partition;
 * this_grid() (queries, and sync() in a cooperative launch); cg::reduce and
 * cg::inclusive_scan/exclusive_scan with plus, less, greater, bit_and,
 * bit_or, bit_xor on tiles, coalesced groups and blocks; memcpy_async/wait.
 * Everything maps onto the emulator's barriers and warp collectives, so their
 * checks (a lane missing from a collective, a barrier not all threads reach)
 * apply to groups too. A tile wider than a warp syncs with a barrier of its
 * own threads.
 *
 * Not emulated: multi-device groups, cluster groups, the warp collectives
 * (shfl, ballot ...) on tiles wider than a warp (CUDA has none either); those
 * fail to build with a message naming them.
 */
#ifndef CUDA_EMU_COOPERATIVE_GROUPS_H
#define CUDA_EMU_COOPERATIVE_GROUPS_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
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
/* The sync() of the tile of SIZE threads (a power of 2) the running thread is in. */
CUDA_EMU_INLINE void tile_sync(unsigned size)
{
    if (size >= block_size())
        __syncthreads();
    else if (size > 32)
        cuda_emu::tile_barrier(block_rank() & ~(size - 1), size);
    else
        __syncwarp(tile_mask(size));
}
/* Dependent false, for static_assert in templates used only when called. */
template <class T> struct unsupported : std::false_type {};

/* Where a group is, for the collectives in reduce.h: the lanes of this
 * thread's warp in it, and for a group wider than a warp its first thread
 * and size in the block. */
struct Shape {
    unsigned mask;  /* lanes of this warp in the group */
    bool wide;      /* more than one warp */
    unsigned first; /* wide: first thread (linear index in the block) */
    unsigned count; /* wide: threads */
};

} // namespace details

/* ---- Groups ----------------------------------------------------------------
 * thread_group is what every group converts to (a function taking a
 * thread_group accepts a block, a tile or a coalesced group); it keeps what
 * it was, so its sync() and ranks stay right. */

class thread_group {
  public:
    CUDA_EMU_INLINE void sync() const
    {
        if (kind_ == kind_block)
            __syncthreads();
        else if (kind_ == kind_tile)
            details::tile_sync(size_);
        else
            __syncwarp(mask_);
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
    CUDA_EMU_INLINE details::Shape shape() const
    {
        if (kind_ == kind_coalesced)
            return {mask_, false, 0, 0};
        unsigned n = kind_ == kind_block ? details::block_size() : size_;
        if (n <= 32 && kind_ == kind_tile)
            return {details::tile_mask(n), false, 0, 0};
        if (n >= details::block_size())
            return {0xffffffffu, details::block_size() > 32, 0, details::block_size()};
        return {0xffffffffu, true, details::block_rank() & ~(n - 1), n};
    }

  protected:
    enum Kind : unsigned { kind_block, kind_tile, kind_coalesced };
    thread_group(Kind kind, unsigned size, unsigned mask) : kind_(kind), size_(size), mask_(mask) {}
    Kind kind_;     /* what the group is */
    unsigned size_; /* threads in a tile */
    unsigned mask_; /* lanes of a coalesced group */

    template <class Parent> friend thread_group tiled_partition(const Parent &, unsigned);
};

/* Shared memory CUDA wants for tiles wider than a warp on older GPUs; the
 * emulator needs none, so it is a token. */
template <unsigned MaxBlockSize = 1024, unsigned TileCommunicationSize = 8, unsigned MaxWarps = 32>
struct block_tile_memory {
    unsigned char reserved[16];
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
    CUDA_EMU_INLINE details::Shape shape() const
    {
        return {0xffffffffu, details::block_size() > 32, 0, details::block_size()};
    }
};

CUDA_EMU_INLINE thread_block this_thread_block() { return thread_block(); }
template <unsigned N, unsigned C, unsigned W>
CUDA_EMU_INLINE thread_block this_thread_block(block_tile_memory<N, C, W> &)
{
    return thread_block();
}

template <unsigned Size, class Parent = void> class thread_block_tile;

namespace details {
/* The size of the tile a tile was partitioned from (its meta group), or 0
 * for a block. */
template <class Parent> struct parent_size { static constexpr unsigned value = 0; };
template <unsigned P, class X> struct parent_size<thread_block_tile<P, X>> {
    static constexpr unsigned value = P;
};
} // namespace details

/* A tile of SIZE threads: within a warp (with the warp collectives) or, from
 * 64 threads up, whole warps that sync with a barrier of their own. */
template <unsigned Size, class Parent>
class thread_block_tile : public thread_group {
    static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                  "cuda-emu: a tile's size is a power of 2 from 1 to 1024");
    static constexpr unsigned kMeta = details::parent_size<Parent>::value;

  public:
    thread_block_tile() : thread_group(kind_tile, Size, 0) {}
    template <class P>
    thread_block_tile(const thread_block_tile<Size, P> &) : thread_group(kind_tile, Size, 0) {}
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    CUDA_EMU_INLINE void sync() const { details::tile_sync(Size); }
    CUDA_EMU_INLINE unsigned thread_rank() const { return details::block_rank() % Size; }
    CUDA_EMU_INLINE unsigned meta_group_rank() const
    {
        return kMeta ? details::block_rank() % kMeta / Size : details::block_rank() / Size;
    }
    CUDA_EMU_INLINE unsigned meta_group_size() const
    {
        return kMeta ? kMeta / Size : (details::block_size() + Size - 1) / Size;
    }
    CUDA_EMU_INLINE details::Shape shape() const
    {
        if (Size <= 32)
            return {details::tile_mask(Size), false, 0, 0};
        return {0xffffffffu, true, details::block_rank() & ~(Size - 1), Size};
    }
    template <class T> CUDA_EMU_INLINE T shfl(T var, int src) const
    {
        static_assert(Size <= 32, "cuda-emu: shfl on a tile wider than a warp (CUDA has none)");
        return __shfl_sync(details::tile_mask(Size), var, src, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_down(T var, unsigned delta) const
    {
        static_assert(Size <= 32, "cuda-emu: shfl_down on a tile wider than a warp (CUDA has none)");
        return __shfl_down_sync(details::tile_mask(Size), var, delta, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_up(T var, unsigned delta) const
    {
        static_assert(Size <= 32, "cuda-emu: shfl_up on a tile wider than a warp (CUDA has none)");
        return __shfl_up_sync(details::tile_mask(Size), var, delta, Size);
    }
    template <class T> CUDA_EMU_INLINE T shfl_xor(T var, unsigned mask) const
    {
        static_assert(Size <= 32, "cuda-emu: shfl_xor on a tile wider than a warp (CUDA has none)");
        return __shfl_xor_sync(details::tile_mask(Size), var, (int)mask, Size);
    }
    template <unsigned S = Size> CUDA_EMU_INLINE unsigned ballot(int pred) const
    {
        static_assert(S <= 32, "cuda-emu: ballot on a tile wider than a warp (CUDA has none)");
        return details::tile_bits(__ballot_sync(details::tile_mask(Size), pred), Size);
    }
    template <unsigned S = Size> CUDA_EMU_INLINE int any(int pred) const
    {
        static_assert(S <= 32, "cuda-emu: any on a tile wider than a warp (CUDA has none)");
        return __any_sync(details::tile_mask(Size), pred);
    }
    template <unsigned S = Size> CUDA_EMU_INLINE int all(int pred) const
    {
        static_assert(S <= 32, "cuda-emu: all on a tile wider than a warp (CUDA has none)");
        return __all_sync(details::tile_mask(Size), pred);
    }
    template <class T> CUDA_EMU_INLINE unsigned match_any(T value) const
    {
        static_assert(Size <= 32, "cuda-emu: match_any on a tile wider than a warp (CUDA has none)");
        return details::tile_bits(__match_any_sync(details::tile_mask(Size), value), Size);
    }
    template <class T> CUDA_EMU_INLINE unsigned match_all(T value, int &pred) const
    {
        static_assert(Size <= 32, "cuda-emu: match_all on a tile wider than a warp (CUDA has none)");
        return details::tile_bits(__match_all_sync(details::tile_mask(Size), value, &pred), Size);
    }
};

template <unsigned Size, class Parent>
CUDA_EMU_INLINE thread_block_tile<Size, Parent> tiled_partition(const Parent &)
{
    return thread_block_tile<Size, Parent>();
}

/* tiled_partition(g, n): tiles of N threads, N a power of 2 up to 1024, or the whole block. */
template <class Parent>
CUDA_EMU_INLINE thread_group tiled_partition(const Parent &, unsigned n)
{
    if (!(n == details::block_size() || (n >= 1 && n <= 1024 && (n & (n - 1)) == 0))) {
        printf("cuda-emu: error: tiled_partition(group, %u): the size must be a power of 2 up to "
               "1024, or the whole block\n", n);
        __assert_fail("tiled_partition size", __FILE__, __LINE__, __func__);
    }
    return thread_group(thread_group::kind_tile, n, 0);
}

/* The threads of the warp that are running this call together, or a part of
 * a tile (labeled_partition, binary_partition). */
class coalesced_group : public thread_group {
  public:
    CUDA_EMU_INLINE coalesced_group() : thread_group(kind_coalesced, 0, __activemask()) {}
    CUDA_EMU_INLINE explicit coalesced_group(unsigned lanes) : thread_group(kind_coalesced, 0, lanes) {}
    CUDA_EMU_INLINE void sync() const { __syncwarp(mask_); }
    CUDA_EMU_INLINE unsigned thread_rank() const
    {
        return (unsigned)__builtin_popcount(mask_ & ((1u << details::lane()) - 1));
    }
    CUDA_EMU_INLINE unsigned size() const { return (unsigned)__builtin_popcount(mask_); }
    CUDA_EMU_INLINE unsigned num_threads() const { return size(); }
    CUDA_EMU_INLINE unsigned meta_group_rank() const { return 0; }
    CUDA_EMU_INLINE unsigned meta_group_size() const { return 1; }
    CUDA_EMU_INLINE details::Shape shape() const { return {mask_, false, 0, 0}; }
    CUDA_EMU_INLINE unsigned lanes() const { return mask_; }
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
    template <class T> CUDA_EMU_INLINE unsigned match_any(T value) const
    {
        return compress(__match_any_sync(mask_, value));
    }
    template <class T> CUDA_EMU_INLINE unsigned match_all(T value, int &pred) const
    {
        return compress(__match_all_sync(mask_, value, &pred));
    }

  private:
    /* The warp lane of rank R in the group. */
    CUDA_EMU_INLINE int lane_of(unsigned r) const
    {
        unsigned m = mask_;
        for (unsigned i = 0; i < r; ++i)
            m &= m - 1;
        return __builtin_ctz(m);
    }
    /* Warp lanes BITS as ranks of the group. */
    CUDA_EMU_INLINE unsigned compress(unsigned bits) const
    {
        unsigned out = 0, k = 0;
        for (unsigned l = 0; l < 32; ++l)
            if (mask_ >> l & 1)
                out |= (bits >> l & 1) << k++;
        return out;
    }
};

CUDA_EMU_INLINE coalesced_group coalesced_threads() { return coalesced_group(); }

/* The threads of G with the same LABEL as this one (G a tile of up to 32
 * threads, or a coalesced group), as a coalesced group. */
CUDA_EMU_INLINE coalesced_group labeled_partition(const coalesced_group &g, int label)
{
    return coalesced_group(__match_any_sync(g.lanes(), label));
}
template <unsigned Size, class Parent>
CUDA_EMU_INLINE coalesced_group labeled_partition(const thread_block_tile<Size, Parent> &, int label)
{
    static_assert(Size <= 32, "cuda-emu: labeled_partition of a tile wider than a warp (CUDA has none)");
    return coalesced_group(__match_any_sync(details::tile_mask(Size), label));
}
CUDA_EMU_INLINE coalesced_group binary_partition(const coalesced_group &g, bool pred)
{
    return labeled_partition(g, pred ? 1 : 0);
}
template <unsigned Size, class Parent>
CUDA_EMU_INLINE coalesced_group binary_partition(const thread_block_tile<Size, Parent> &g, bool pred)
{
    return labeled_partition(g, pred ? 1 : 0);
}

/* The whole grid. Its sync() needs a cooperative launch
 * (cudaLaunchCooperativeKernel); elsewhere it is reported as an error. */
class grid_group {
  public:
    CUDA_EMU_INLINE bool is_valid() const { return cuda_emu::launch_is_cooperative(); }
    CUDA_EMU_INLINE void sync() const { cuda_emu::grid_barrier(); }
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

/* Thread block clusters: a launch with a cluster shape runs its blocks as ordinary blocks,
 * and the cluster group (distributed shared memory, the cluster barrier) is refused by name
 * where it is used (README.md, Launches): a valid feature the emulator cannot run. */
#define CUDA_EMU_CLUSTER CUDA_EMU_REFUSED("thread block clusters (cooperative_groups::cluster_group)")
class cluster_group {
  public:
    CUDA_EMU_CLUSTER void sync() const;
    CUDA_EMU_CLUSTER void barrier_wait() const;
    CUDA_EMU_CLUSTER unsigned block_rank() const;
    CUDA_EMU_CLUSTER unsigned num_blocks() const;
    CUDA_EMU_CLUSTER unsigned thread_rank() const;
    CUDA_EMU_CLUSTER unsigned num_threads() const;
    CUDA_EMU_CLUSTER dim3 block_index() const;
    CUDA_EMU_CLUSTER dim3 dim_blocks() const;
    CUDA_EMU_CLUSTER bool is_valid() const;
    template <class T> CUDA_EMU_CLUSTER T *map_shared_rank(T *addr, unsigned rank) const;
};
CUDA_EMU_CLUSTER cluster_group this_cluster();
#undef CUDA_EMU_CLUSTER

template <class Group> CUDA_EMU_INLINE void sync(const Group &g) { g.sync(); }

/* ---- memcpy_async: each thread of the group copies its share at once ------ */

/* In 4-byte words where both ends and the size allow (as the GPU's cp.async copies 4, 8 or 16
 * bytes at a time), else byte by byte: each access is checked either way, a word's 4 bytes at
 * once. */
template <class Group>
CUDA_EMU_INLINE void memcpy_async(const Group &g, void *dst, const void *src, size_t bytes)
{
    unsigned n = g.size(), r = g.thread_rank();
    if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) & 3) == 0) {
        unsigned *d = static_cast<unsigned *>(dst);
        const unsigned *s = static_cast<const unsigned *>(src);
        for (size_t i = r; i < bytes / 4; i += n)
            d[i] = s[i];
        return;
    }
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

#pragma GCC visibility pop
#endif /* CUDA_EMU_COOPERATIVE_GROUPS_H */
