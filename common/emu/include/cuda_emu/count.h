/*
 * cuda_emu/count.h -- the grader's range of counting, for its worker
 * (grader/worker/worker_loop_untrusted.cu): what the WHERE line and the ESTIMATE
 * are made of.
 *
 * A program counts between cudaProfilerStart() and cudaProfilerStop() (see
 * the emulator's README, Counting memory requests). The grader's worker counts
 * calls of code it does not trust, which may call those two as well: a range
 * of its own around its kernel for a profiler is harmless; a cudaProfilerStop
 * before slow work and a cudaProfilerStart after it would leave that work out
 * of the count. While the grader's range is open, both change nothing. Only
 * the emulator has this (#if defined(CUDA_EMU)).
 */
#ifndef CUDA_EMU_COUNT_H
#define CUDA_EMU_COUNT_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

extern "C" {

/* ON != 0 opens the grader's range (the counts of what ran before are
 * dropped), 0 closes it and writes its counts where CUDA_EMU_COUNT or
 * CUDA_EMU_COUNT_FD says. Returns 0, or -1 (and changes nothing) when called
 * from anywhere but the program itself or the grader's command loop
 * (shim_serve): the code under test does not choose what is counted of it. */
int cuda_emu_count(int on);

} // extern "C"

#pragma GCC visibility pop
#endif /* CUDA_EMU_COUNT_H */
