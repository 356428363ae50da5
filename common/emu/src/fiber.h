/*
 * fiber.h -- stacks and context switches for the emulator's CUDA threads.
 *
 * Every CUDA thread of a block runs on its own stack and gives the CPU back
 * at barriers, warp collectives and spin-waits. The switch saves only the
 * callee-saved registers and the floating-point control words (a few
 * nanoseconds), where swapcontext would also make a sigprocmask system call
 * per switch. Stacks come from mmap with a PROT_NONE guard page below them,
 * so an overflow faults instead of corrupting a neighbour, and are pooled
 * because a launch creates and retires thousands of threads.
 */
#ifndef CUDA_EMU_FIBER_H
#define CUDA_EMU_FIBER_H

#include <cstddef>

#if !defined(__x86_64__) || defined(CUDA_EMU_FIBER_UCONTEXT)
#define CUDA_EMU_USE_UCONTEXT 1
#include <ucontext.h>
#endif

namespace cuda_emu {

/* A fiber stack: [lo, lo + size) is usable; the page below lo is a guard. */
struct Stack {
    char *lo;    /* lowest usable address */
    size_t size; /* usable bytes */
};

/* A stack of SIZE bytes from the pool, or freshly mapped. Aborts with a
 * message if the system refuses the mapping. */
Stack stack_acquire(size_t size);

/* Returns S to the pool. DIRTY means a fiber was abandoned on it with frames
 * still live, so AddressSanitizer's marks for those frames must be cleared
 * before the stack is reused. */
void stack_release(Stack s, bool dirty);

/* A suspended execution context. */
struct Context {
    void *sp;                   /* saved stack pointer (assembly switch) */
#ifdef CUDA_EMU_USE_UCONTEXT
    ucontext_t uc;              /* saved context (portable fallback) */
    void (*entry)(void *);      /* first function to run, for the trampoline */
    void *arg;                  /* its argument */
#endif
};

/* Prepares C so that the first switch to it calls ENTRY(ARG) on stack S.
 * ENTRY must never return: it ends by switching away for good. */
void context_make(Context *c, Stack s, void (*entry)(void *), void *arg);

/* Saves the running context in FROM and resumes TO. Returns when something
 * switches back to FROM. (The assembly switch is called in place: one call a
 * switch, at every barrier of every thread.) */
#ifndef CUDA_EMU_USE_UCONTEXT
extern "C" void cuda_emu_switch(void **save_sp, void *new_sp);
inline void context_switch(Context *from, Context *to)
{
    cuda_emu_switch(&from->sp, to->sp);
}
#else
void context_switch(Context *from, Context *to);
#endif

} // namespace cuda_emu

#endif /* CUDA_EMU_FIBER_H */
