/*
 * cuda_emu/schedule.h -- the order the emulator runs a grid in, for the
 * grader's worker (grader/worker/worker_loop_untrusted.cu).
 *
 * Which warp of a block runs first and which block a worker takes next are no
 * part of CUDA's contract; a kernel whose result depends on them is wrong on
 * some GPU. The grader runs each correctness check's call under two orders
 * drawn from the run's seed, the second the reverse of the first, so that such
 * a result fails. Only the emulator has this (#if defined(CUDA_EMU)).
 */
#ifndef CUDA_EMU_SCHEDULE_H
#define CUDA_EMU_SCHEDULE_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

extern "C" {

/* The order of the launches to come: 0, blocks and warps in index order (what
 * every program gets by default); any other WORD, a permutation of every
 * block's warps and of every grid's blocks drawn from it, whose lowest bit
 * reverses both. Returns 0, or -1 (and changes nothing) when called from
 * anywhere but the program itself or the grader's command loop (shim_serve):
 * the code under test does not choose the order it is tested in. */
int cuda_emu_schedule(unsigned long long word);

} // extern "C"

#pragma GCC visibility pop
#endif /* CUDA_EMU_SCHEDULE_H */
