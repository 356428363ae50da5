/*
 * cuda_pipeline_primitives.h -- CUDA's pipeline primitives on the CPU emulator:
 * __pipeline_memcpy_async, __pipeline_commit and __pipeline_wait_prior, the CUDA C++ spelling
 * of cp.async and its commit and wait groups, emulated as cp.async is (cuda_emu/ptx.h: the
 * source is read where the copy is issued, the bytes land in shared memory at the wait that
 * covers their group, and the race checks see a write at both points).
 *
 * __pipeline_memcpy_async is a macro here, so that its loads are the line's that calls it.
 * Not emulated, refused where used: __pipeline_arrive_on (an mbarrier).
 */
#ifndef CUDA_EMU_PIPELINE_PRIMITIVES_H
#define CUDA_EMU_PIPELINE_PRIMITIVES_H
#define _CUDA_PIPELINE_PRIMITIVES_H_ /* NVIDIA's guard */

#include <cuda_runtime.h>

/* SIZE (4, 8 or 16, the alignment of both pointers too) bytes from global memory at SRC to
 * shared memory at DST, the last ZFILL of them zeros instead of read (default 0). */
#define __pipeline_memcpy_async(dst, src, ...) CUDA_EMU_PIPELINE_COPY_(dst, src, __VA_ARGS__, 0, 0)
#define CUDA_EMU_PIPELINE_COPY_(dst, src, size, zfill, ...) \
    CUDA_EMU_CP_ASYNC((dst), (src), (size), (size_t)(size) - (size_t)(zfill))

CUDA_EMU_INLINE void __pipeline_commit() { cuda_emu::async_copy_commit(); }
CUDA_EMU_INLINE void __pipeline_wait_prior(size_t prior) { cuda_emu::async_copy_wait((int)prior); }

struct __mbarrier_t;
CUDA_EMU_REFUSED("__pipeline_arrive_on (an mbarrier)")
void __pipeline_arrive_on(__mbarrier_t *bar);

#endif /* CUDA_EMU_PIPELINE_PRIMITIVES_H */
