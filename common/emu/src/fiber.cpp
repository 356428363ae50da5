/*
 * fiber.cpp -- fiber stacks (pooled, guarded) and context creation.
 * The switch itself is fiber_x86_64.S; elsewhere, or when built with
 * -DCUDA_EMU_FIBER_UCONTEXT, the slower but portable ucontext calls.
 */
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sanitizer/asan_interface.h>

namespace cuda_emu {

namespace {

/* Released stacks, all of the size in use; one pool per host thread, unmapped
 * when it ends. */
struct StackPool {
    std::vector<Stack> stacks;
    ~StackPool();
};
thread_local StackPool g_stack_pool;

/* The system page size, for the guard page below each stack. */
size_t page_size()
{
    static const size_t size = (size_t)sysconf(_SC_PAGESIZE);
    return size;
}

} // namespace

StackPool::~StackPool()
{
    for (const Stack &s : stacks)
        munmap(s.lo - page_size(), s.size + page_size());
}

Stack stack_acquire(size_t size)
{
    while (!g_stack_pool.stacks.empty()) {
        Stack s = g_stack_pool.stacks.back();
        g_stack_pool.stacks.pop_back();
        if (s.size == size)
            return s;
        munmap(s.lo - page_size(), s.size + page_size());
    }
    size_t guard = page_size();
    void *p = mmap(nullptr, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr,
                "cuda-emu: fatal: cannot map a %zu KB thread stack (%s); "
                "try a smaller CUDA_EMU_STACK_KB or fewer threads per block\n",
                size / 1024, strerror(errno));
        abort();
    }
    mprotect(p, guard, PROT_NONE);
    return Stack{static_cast<char *>(p) + guard, size};
}

void stack_release(Stack s, bool dirty)
{
    /* Only the runtime's own (AddressSanitizer-instrumented) functions mark
     * a fiber's stack, and they clear their marks when they return: a fiber
     * that ran to its end leaves none. */
    if (dirty)
        __asan_unpoison_memory_region(s.lo, s.size);
    g_stack_pool.stacks.push_back(s);
}

#ifndef CUDA_EMU_USE_UCONTEXT

extern "C" void cuda_emu_trampoline();

void context_make(Context *c, Stack s, void (*entry)(void *), void *arg)
{
    /* The frame cuda_emu_switch pops, lowest address first: r15, r14, r13,
     * r12, rbx, rbp, return address. The trampoline's call then leaves the
     * entry function with the usual rsp % 16 == 8 at its first instruction
     * (the return address pops to top - 16). */
    uintptr_t top = (reinterpret_cast<uintptr_t>(s.lo) + s.size) & ~uintptr_t(15);
    uint64_t *frame = reinterpret_cast<uint64_t *>(top) - 9;
    frame[0] = 0;                                        /* r15 */
    frame[1] = 0;                                        /* r14 */
    frame[2] = reinterpret_cast<uint64_t>(entry);        /* r13 */
    frame[3] = reinterpret_cast<uint64_t>(arg);          /* r12 */
    frame[4] = 0;                                        /* rbx */
    frame[5] = 0;                                        /* rbp: ends frame-pointer walks */
    frame[6] = reinterpret_cast<uint64_t>(&cuda_emu_trampoline);
    frame[7] = 0;
    frame[8] = 0;
    c->sp = frame;
}


#else /* CUDA_EMU_USE_UCONTEXT */

namespace {

/* First function of a ucontext fiber: makecontext passes ints, so the
 * Context pointer comes in two halves. */
void trampoline(unsigned hi, unsigned lo)
{
    Context *c = reinterpret_cast<Context *>((uintptr_t)hi << 32 | lo);
    c->entry(c->arg);
    abort(); /* entry functions switch away for good */
}

} // namespace

void context_make(Context *c, Stack s, void (*entry)(void *), void *arg)
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = s.lo;
    c->uc.uc_stack.ss_size = s.size;
    c->uc.uc_link = nullptr;
    c->entry = entry;
    c->arg = arg;
    uintptr_t self = reinterpret_cast<uintptr_t>(c);
    makecontext(&c->uc, reinterpret_cast<void (*)()>(&trampoline), 2, (unsigned)(self >> 32),
                (unsigned)self);
}

void context_switch(Context *from, Context *to)
{
    swapcontext(&from->uc, &to->uc);
}

#endif

} // namespace cuda_emu
