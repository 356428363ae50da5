/*
 * exec.cpp -- running a grid: blocks of fibers, barriers, shared memory and
 * spin-waits.
 *
 * A launch runs at the moment it is issued. Blocks run one after another;
 * within a block the scheduler (on the host's own stack) resumes its threads
 * in order, each until it waits: at __syncthreads(), at a warp collective, at
 * its end, or when it seems to poll memory. A barrier opens when every thread
 * of the block waits at it; a thread that exited instead, or threads waiting
 * at different barriers, are reported, because on a GPU that is undefined
 * (a hang or silent corruption). If every thread of the running blocks is
 * polling memory, the scheduler starts further blocks up to what the emulated
 * device keeps resident, so a block may wait for a later one; when none can
 * start and nothing changes for CUDA_EMU_SPIN_LIMIT rounds, the wait is
 * reported as a hang instead of hanging the emulator.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <sanitizer/common_interface_defs.h>

#define CUDA_EMU_WRITES_BUILTINS
#include "emu_internal.h"
#include "../include/cuda_emu/schedule.h"

extern "C" { /* see device_launch_parameters.h */
__thread __attribute__((tls_model("initial-exec"))) uint3 threadIdx;
__thread __attribute__((tls_model("initial-exec"))) uint3 blockIdx;
__thread __attribute__((tls_model("initial-exec"))) cuda_emu::builtin_dim3 blockDim;
__thread __attribute__((tls_model("initial-exec"))) cuda_emu::builtin_dim3 gridDim;
}

namespace cuda_emu {

__thread Thread *g_thread;
__thread Launch *g_launch;

namespace {

/* Per worker (host thread running blocks): */
thread_local Context g_host_ctx;     /* the scheduler's context while a fiber runs */
thread_local Block *g_shown_block;   /* block whose blockIdx and shared aliases are set */
uint32_t g_launch_serial;            /* last serial handed out to a launch (host side) */

/* Blocks that ran, kept for the next ones: a block's thread table is tens of
 * kilobytes, and allocating one per block keeps AddressSanitizer's quarantine
 * handing out fresh pages. One list per host thread, freed when it ends. */
struct SpareBlocks {
    std::vector<Block *> blocks;
    ~SpareBlocks()
    {
        for (Block *b : blocks)
            delete b;
    }
};

std::vector<Block *> &spare_blocks()
{
    static thread_local SpareBlocks spare;
    return spare.blocks;
}

/* The setters of file-scope extern __shared__ arrays (launch.h). */
std::vector<void (*)(void *)> &shared_aliases()
{
    static auto &setters = *new std::vector<void (*)(void *)>(); /* never destroyed */
    return setters;
}

/* ---- Fiber switching ------------------------------------------------------
 *
 * AddressSanitizer is not told about the switches (its fiber API costs more
 * than the switch itself): nothing on a fiber needs it to know the stack. The
 * kernels are not ASan-instrumented (track.cpp checks their accesses), its
 * fatal reports unwind with the CFI unwinder, which follows a fiber's frames
 * down to the trampoline whatever it takes the stack to be, and the runtime's
 * own instrumented frames on a fiber are unpoisoned when the stack is reused
 * (stack_release). */

/* From thread T's fiber back to the scheduler. */
inline void switch_to_host(Thread *t)
{
    context_switch(&t->ctx, &g_host_ctx);
}

Thread *chain_next(Thread *t);

/* The body of every fiber: run the kernel for thread ARG; when it ends, run on the same stack
 * the thread the scheduler would resume next if that one has not yet run (chain_next), and so
 * on; then hand the CPU back for good. */
void thread_main(void *arg)
{
    Thread *t = static_cast<Thread *>(arg);
    for (;;) {
        g_launch->invoke(g_launch->ctx);
        if (t->ww_count != 0)
            settle_writes(t);
        t->state = ThreadState::exited;
        Thread *u = chain_next(t);
        if (u == nullptr)
            break;
        t = u;
    }
    switch_to_host(t);
    __builtin_unreachable();
}

/* File-scope __shared__ variables (launch.h). */
struct FileShared {
    void *(*address)();
    size_t size;
    const char *name;
    size_t elem_size;
};
std::vector<FileShared> &file_shared()
{
    static auto &vars = *new std::vector<FileShared>(); /* never destroyed */
    return vars;
}

/* This host thread's file-scope __shared__ variables now hold TO's copies;
 * FROM (may be null) keeps what its threads left in them. */
void swap_file_shared(Block *from, Block *to)
{
    const std::vector<FileShared> &vars = file_shared();
    if (to->file_shared.size() < vars.size())
        to->file_shared.resize(vars.size(), nullptr);
    for (size_t k = 0; k < vars.size(); ++k) {
        void *here = vars[k].address();
        if (from != nullptr && k < from->file_shared.size() && from->file_shared[k] != nullptr)
            memcpy(from->file_shared[k], here, vars[k].size);
        if (to->file_shared[k] == nullptr) {
            /* The block's first run: fresh shared memory holds the poison. */
            to->file_shared[k] = malloc(vars[k].size);
            memset(to->file_shared[k], 0xff, vars[k].size);
            track_region(here, vars[k].size, RegionKind::shared_static, vars[k].name,
                         vars[k].elem_size, nullptr, to);
        }
        memcpy(here, to->file_shared[k], vars[k].size);
    }
}

/* Makes T's indices (and its block's shared aliases) the visible ones. */
void show(Thread *t)
{
    threadIdx = t->idx;
    if (g_shown_block != t->block) {
        if (!file_shared().empty())
            swap_file_shared(g_shown_block, t->block);
        g_shown_block = t->block;
        blockIdx = t->block->idx;
        for (auto set : shared_aliases())
            set(t->block->dynamic_shared);
    }
}

/* The thread each host thread running blocks is running, while its launch
 * runs blocks on several (thread_running): (linear block << 10 | tid) + 1, 0
 * while none. A host thread takes a slot on its first parallel launch; past
 * kRunnerSlots, every thread counts as running (which only makes the
 * write-write check skip a pair). */
constexpr unsigned kRunnerSlots = 128;
std::atomic<uint64_t> g_running[kRunnerSlots];
std::atomic<unsigned> g_runners;
thread_local unsigned tl_runner = ~0u;

inline uint64_t running_id(unsigned long long block, unsigned tid)
{
    return (block << 10 | tid) + 1;
}

/* Makes T the running thread: its indices shown, its slot in g_running. */
inline void enter(Thread *t)
{
    t->state = ThreadState::ready;
    show(t);
    g_thread = t;
    if (g_launch->parallel) {
        if (tl_runner == ~0u)
            tl_runner = g_runners.fetch_add(1);
        if (tl_runner < kRunnerSlots)
            g_running[tl_runner].store(running_id(t->block->linear, t->tid), std::memory_order_release);
    }
}

/* Zeroes the N bytes at P (N a multiple of 8, P 8-byte aligned) with plain stores: a few
 * hundred bytes a thread, where the rep stos a memset becomes costs more to start than to
 * run. */
template <size_t N>
inline void zero_words(void *p)
{
    static_assert(N % 8 == 0, "whole words");
    uint64_t *q = static_cast<uint64_t *>(p);
    for (size_t i = 0; i < N / 8; ++i) {
        asm("" : "+r"(q)); /* (kept a loop of stores, not turned back into a memset) */
        q[i] = 0;
    }
}

/* Clears what T's first run needs cleared (start_block leaves it: Thread's fields from
 * bar_kind on). */
inline void clear_on_first_run(Thread *t)
{
    zero_words<offsetof(Thread, spin_addr) - offsetof(Thread, bar_kind)>(
        reinterpret_cast<char *>(t) + offsetof(Thread, bar_kind));
}

/* Set by run_block while a thread that ends may hand its stack to the next one (chain_next);
 * set by chain_next when it did the ended thread's bookkeeping (after_resume) itself. */
thread_local bool tl_may_chain, tl_accounted;

void after_resume(Thread *t);

/* Runs T until it waits or ends; returns the thread that came back: T, or a thread that ran
 * after it on its stack (chain_next). */
Thread *resume(Thread *t)
{
    if (t->stack.lo == nullptr) { /* its first run: a stack (the last one given back) */
        clear_on_first_run(t);
        t->stack = stack_acquire(t->block->stack_bytes);
        context_make(&t->ctx, t->stack, thread_main, t);
    }
    enter(t);
    context_switch(&g_host_ctx, &t->ctx);
    Thread *ran = g_thread;
    if (g_launch->parallel && tl_runner < kRunnerSlots)
        g_running[tl_runner].store(0, std::memory_order_release); /* its stores are done */
    g_thread = nullptr;
    return ran;
}

/* ---- Blocks --------------------------------------------------------------- */

/* Creates block LINEAR of launch L: its threads (ready, on pooled stacks) and
 * its dynamic shared memory. */
Block *start_block(Launch &L, unsigned long long linear)
{
    Block *b = spare_blocks().empty() ? new Block() : spare_blocks().back();
    if (!spare_blocks().empty())
        spare_blocks().pop_back();
    b->idx = unflatten(linear, L.grid);
    b->linear = linear;
    b->serial = L.block_base + (uint32_t)linear;
    b->phase_clock = 0;
    b->nwarps = (L.threads_per_block + kWarpSize - 1) / kWarpSize;
    b->threads.resize(L.threads_per_block);
    b->warp_waiting.assign(b->nwarps, 0);
    b->exited = b->at_barrier = b->at_tile = b->at_grid = b->cursor = 0;
    b->static_shared = 0;
    b->warp_race.t = nullptr;
    b->stack_bytes = settings().stack_bytes; /* (read once a block, not a thread) */
    /* A thread gets its stack when it first runs (resume): one that ends without waiting gives
     * it back at once (after_resume), so the block's next thread runs on the same one, and only
     * threads that wait hold stacks of their own. Here only what other threads may read before
     * a thread first runs is cleared (Thread's fields up to bar_kind); the rest when it does. */
    uint3 idx{0, 0, 0}; /* threadIdx of tid, counted (x + y*X + z*X*Y) */
    for (unsigned tid = 0; tid < L.threads_per_block; ++tid) {
        Thread &t = b->threads[tid];
        zero_words<offsetof(Thread, bar_kind)>(&t);
        t.block = b;
        t.tid = tid;
        t.idx = idx;
        t.state = ThreadState::ready;
        if (++idx.x == L.block.x) {
            idx.x = 0;
            if (++idx.y == L.block.y) {
                idx.y = 0;
                ++idx.z;
            }
        }
    }
    /* Fresh shared memory holds the 0xff poison, never the last block's data. */
    if (posix_memalign(&b->dynamic_shared, 256, L.smem) != 0) {
        fprintf(stderr, "cuda-emu: fatal: out of host memory for %zu bytes of shared memory\n",
                L.smem);
        abort();
    }
    memset(b->dynamic_shared, 0xff, L.smem);
    track_region(b->dynamic_shared, L.smem, RegionKind::shared_dynamic, "extern __shared__", 1,
                 nullptr, b);
    return b;
}

/* Frees B. Threads that did not finish leave frames on their stacks, which
 * the stack pool must clean before reuse. */
void finish_block(Block *b)
{
    for (Thread &t : b->threads)
        if (t.stack.lo != nullptr) /* (one that ended gave its stack back already) */
            stack_release(t.stack, t.state != ThreadState::exited);
    if (b->count != nullptr)
        count_block_end(b);
    if (g_launch != nullptr) { /* (cudaFuncGetAttributes reports it once a block has run) */
        size_t seen = g_launch->static_shared.load(std::memory_order_relaxed);
        while (b->static_shared > seen &&
               !g_launch->static_shared.compare_exchange_weak(seen, b->static_shared))
            ;
    }
    {
        RuntimeAllocating runtime;
        for (Thread &t : b->threads) /* copies never waited for land nowhere */
            delete t.async;
    }
    b->window.clear();
    untrack_block(b);
    for (SharedVar &v : b->shared)
        free(v.ptr);
    free(b->dynamic_shared);
    if (g_shown_block == b)
        g_shown_block = nullptr;
    for (void *p : b->file_shared)
        free(p);
    b->file_shared.clear();
    b->shared.clear();
    b->warp_clock.clear();
    spare_blocks().push_back(b);
}

/* The threads of B in state S (and waiting at PC, when given), by tid. */
std::vector<unsigned> threads_where(const Block *b, ThreadState s, const void *pc = nullptr)
{
    std::vector<unsigned> tids;
    for (const Thread &t : b->threads)
        if (t.state == s && (pc == nullptr || t.wait_pc == pc))
            tids.push_back(t.tid);
    return tids;
}

/* Lists the threads of B waiting in state S, grouped by where they wait. */
void describe_waiters(const Block *b, ThreadState s, const char *what)
{
    std::vector<const void *> sites;
    for (const Thread &t : b->threads)
        if (t.state == s && std::find(sites.begin(), sites.end(), t.wait_pc) == sites.end())
            sites.push_back(t.wait_pc);
    for (const void *pc : sites) {
        std::vector<unsigned> tids = threads_where(b, s, pc);
        report_line("%zu thread%s wait%s at %s at %s: %s", tids.size(), tids.size() == 1 ? "" : "s",
                    tids.size() == 1 ? "s" : "", what, where(pc).c_str(),
                    thread_list(b, tids).c_str());
    }
}

/* A barrier orders every thread of the block after what any of them did
 * before it: an atomic or fence that one thread made (the ticket of a
 * last-block-done reduction) orders the others' later accesses too. */
void share_last_sync(Block *b)
{
    uint32_t latest = 0, fence = 0;
    for (const Thread &t : b->threads)
        if (t.state != ThreadState::exited) {
            latest = std::max(latest, t.last_sync);
            fence = std::max(fence, t.last_fence);
        }
    for (Thread &t : b->threads)
        if (t.state != ThreadState::exited) {
            t.last_sync = latest;
            t.last_fence = fence;
        }
}

/* The source line of a barrier call at PC, symbolized once per PC: a block
 * whose threads reach one barrier through two copies of the call (g++ may put
 * a __syncthreads() on both sides of a branch) compares them at every
 * opening, and symbolizing costs tens of microseconds. Libraries are not
 * unloaded while kernels run, so a PC keeps its line. */
std::string barrier_line(const void *pc)
{
    static std::mutex m;
    static std::unordered_map<const void *, std::string> lines;
    {
        std::lock_guard<std::mutex> lock(m);
        auto it = lines.find(pc);
        if (it != lines.end())
            return it->second;
    }
    std::string line = where(pc, true);
    std::lock_guard<std::mutex> lock(m);
    return lines.emplace(pc, line).first->second;
}

/* Opens B's barrier if every thread that has not exited waits at it. */
void barrier_progress(Block *b)
{
    unsigned n = (unsigned)b->threads.size();
    if (b->at_barrier == 0 || b->at_barrier + b->exited < n)
        return;
    if (b->exited > 0) {
        report_head("__syncthreads() not reached by every thread of the block", b, nullptr);
        describe_waiters(b, ThreadState::at_barrier, "__syncthreads()");
        std::vector<unsigned> gone = threads_where(b, ThreadState::exited);
        report_line("%zu thread%s exited without reaching it: %s", gone.size(),
                    gone.size() == 1 ? "" : "s", thread_list(b, gone).c_str());
        report_line("every thread of a block must reach each __syncthreads(); on a GPU this "
                    "hangs or corrupts shared memory (return early only after the last barrier)");
        fail_launch(cudaErrorLaunchFailure);
        return;
    }
    /* Threads waiting at different barriers are as undefined as a missing
     * one. The compiler may duplicate a call, so compare source lines. Where a
     * line cannot be found (a module without line information, or one the
     * symbolizer does not place: two copies of one kernel loaded from two
     * libraries, as make explain loads yours and the reference), two copies of
     * one call cannot be told from two calls: the barrier completes, as a
     * GPU's does (it counts the threads that arrive), and nothing is reported
     * without a line to show. */
    const void *pc0 = b->threads[0].wait_pc, *pc_seen = pc0;
    std::string line0;
    bool looked = false;
    /* (one pass over the threads gathers what opening the barrier needs too: the count of
     * the __syncthreads_* variants, and the latest atomic or fence, which share_last_sync
     * would find: no thread has exited) */
    int count = 0;
    uint32_t latest = 0, fence = 0;
    for (const Thread &t : b->threads) {
        count += t.bar_pred != 0;
        latest = std::max(latest, t.last_sync);
        fence = std::max(fence, t.last_fence);
        if (t.wait_pc == pc0 || t.wait_pc == pc_seen)
            continue;
        pc_seen = t.wait_pc;
        if (!looked)
            line0 = barrier_line(pc0), looked = true;
        const std::string line = barrier_line(t.wait_pc);
        if (!line0.empty() && !line.empty() && line != line0) {
            report_head("threads of a block wait at different __syncthreads()", b, nullptr);
            describe_waiters(b, ThreadState::at_barrier, "__syncthreads()");
            report_line("all threads of a block must reach the same __syncthreads(); one "
                        "inside a branch that only some threads take is a bug");
            fail_launch(cudaErrorLaunchFailure);
            return;
        }
    }
    if (warp_race_end(b)) /* a race of one warp's lanes, no other warp's: said now */
        return;
    if (b->count != nullptr)
        count_flush(b);
    for (Thread &t : b->threads) {
        switch (t.bar_kind) {
        case 1: t.bar_result = count; break;
        case 2: t.bar_result = count == (int)n; break;
        case 3: t.bar_result = count > 0; break;
        default: t.bar_result = 0; break;
        }
        t.state = ThreadState::ready;
        t.wait_pc = nullptr;
        ++t.phase;
        t.wsync = 0;
        t.last_sync = latest; /* (share_last_sync) */
        t.last_fence = fence;
    }
    b->phase_clock = g_launch->clock.fetch_add(1, std::memory_order_relaxed) + 1;
    b->at_barrier = 0;
    b->cursor = 0;
    std::fill(b->warp_clock.begin(), b->warp_clock.end(), 0u);
}

/* Every thread of B now counts as having passed a barrier: accesses before
 * it are ordered before those after (a tile's or the grid's sync). Bumping
 * every thread's phase, not only the tile's, can only hide a race between
 * threads no sync orders, never report one where a sync does. */
void new_phase_for_all(Block *b)
{
    if (warp_race_end(b))
        return;
    share_last_sync(b);
    for (Thread &t : b->threads) {
        ++t.phase;
        t.wsync = 0;
    }
    b->phase_clock = g_launch->clock.fetch_add(1, std::memory_order_relaxed) + 1;
    std::fill(b->warp_clock.begin(), b->warp_clock.end(), 0u);
}

/* Opens the sync() of the tile [FIRST, FIRST+COUNT) of B if every thread of
 * it waits there; reports a tile some of whose threads exited instead. */
void tile_progress(Block *b, unsigned first, unsigned count)
{
    unsigned n = (unsigned)b->threads.size(), end = std::min(n, first + count);
    unsigned waiting = 0, gone = 0;
    for (unsigned i = first; i < end; ++i) {
        const Thread &u = b->threads[i];
        if (u.state == ThreadState::at_tile_barrier && u.tile_first == first && u.tile_count == count)
            ++waiting;
        else if (u.state == ThreadState::exited)
            ++gone;
        else
            return; /* still running, or waiting elsewhere (a deadlock, found later) */
    }
    if (waiting == 0)
        return;
    if (gone > 0) {
        report_head("a tile's sync() not reached by every thread of the tile", b, nullptr);
        describe_waiters(b, ThreadState::at_tile_barrier, "a tile's sync()");
        std::vector<unsigned> tids;
        for (unsigned i = first; i < end; ++i)
            if (b->threads[i].state == ThreadState::exited)
                tids.push_back(i);
        report_line("%zu thread%s of the tile exited without reaching it: %s", tids.size(),
                    tids.size() == 1 ? "" : "s", thread_list(b, tids).c_str());
        fail_launch(cudaErrorLaunchFailure);
        return;
    }
    for (unsigned i = first; i < end; ++i) {
        b->threads[i].state = ThreadState::ready;
        b->threads[i].wait_pc = nullptr;
    }
    b->at_tile -= waiting;
    b->cursor = g_launch->position.empty() ? first : g_launch->position[first];
    new_phase_for_all(b);
}

/* Bookkeeping after T came back to the scheduler. */
void after_resume(Thread *t)
{
    Block *b = t->block;
    switch (t->state) {
    case ThreadState::exited:
        ++b->exited;
        warp_progress(b, t->tid / kWarpSize);
        barrier_progress(b);
        if (b->at_tile > 0) /* a tile that waits for T will not get it */
            for (const Thread &u : b->threads)
                if (u.state == ThreadState::at_tile_barrier && t->tid >= u.tile_first &&
                    t->tid - u.tile_first < u.tile_count) {
                    tile_progress(b, u.tile_first, u.tile_count);
                    break;
                }
        break;
    case ThreadState::at_tile_barrier:
        ++b->at_tile;
        warp_progress(b, t->tid / kWarpSize);
        tile_progress(b, t->tile_first, t->tile_count);
        break;
    case ThreadState::at_grid_barrier:
        ++b->at_grid;
        warp_progress(b, t->tid / kWarpSize);
        break;
    case ThreadState::at_barrier:
        /* (the calls' own first tests, made here: most arrivals neither complete a warp's
         * collective nor open the barrier) */
        ++b->at_barrier;
        if (b->warp_waiting[t->tid / kWarpSize] != 0)
            warp_progress(b, t->tid / kWarpSize); /* an __activemask() may now complete */
        if (b->at_barrier + b->exited >= b->threads.size())
            barrier_progress(b);
        break;
    case ThreadState::at_warp_op:
        ++b->warp_waiting[t->tid / kWarpSize];
        warp_progress(b, t->tid / kWarpSize);
        break;
    case ThreadState::spinning:
        warp_progress(b, t->tid / kWarpSize); /* a shuffle may read this lane's register */
        break;
    case ThreadState::ready:
        break;
    }
}

/* The next ready thread of B after the last one run, in the launch's order of
 * threads (by tid, or its schedule's), or null if none is ready. */
Thread *next_ready(Block *b)
{
    unsigned n = (unsigned)b->threads.size();
    Thread *threads = b->threads.data();
    const uint32_t *order = g_launch->order.empty() ? nullptr : g_launch->order.data();
    for (unsigned i = b->cursor; i < n; ++i) {
        Thread *t = &threads[order ? order[i] : i];
        if (t->state == ThreadState::ready) {
            b->cursor = i + 1;
            return t;
        }
    }
    for (unsigned i = 0; i < b->cursor && i < n; ++i) {
        Thread *t = &threads[order ? order[i] : i];
        if (t->state == ThreadState::ready) {
            b->cursor = i + 1;
            return t;
        }
    }
    return nullptr;
}

/* What chain_next and switch_next do first, on the fiber of T, which has just ended or begun
 * to wait: the scheduler's bookkeeping of T (after_resume), done here (tl_accounted), then the
 * thread the scheduler would resume next (next_ready); null when the scheduler must take over
 * (run_block does not allow it, the launch stops, or no thread is ready). *CURSOR: the block's
 * cursor before next_ready moved it. */
inline Thread *next_after(Thread *t, unsigned *cursor)
{
    if (!tl_may_chain)
        return nullptr;
    Block *b = t->block;
    after_resume(t);
    tl_accounted = true;
    if (g_launch->stop)
        return nullptr;
    *cursor = b->cursor;
    return next_ready(b);
}

/* On the fiber of T, which has just ended: next_after's thread, made the running thread on T's
 * stack and returned if it has never run (so has no stack of its own); else null, T's
 * bookkeeping done (tl_accounted) and the block's cursor left for run_block to find that
 * thread again. Every thread thus runs in the order run_block gives, and a block whose threads
 * do not wait runs them all on one stack, without a switch between them. */
Thread *chain_next(Thread *t)
{
    unsigned cursor;
    Thread *u = next_after(t, &cursor);
    if (u == nullptr)
        return nullptr;
    if (u->stack.lo != nullptr) {
        t->block->cursor = cursor;
        return nullptr;
    }
    clear_on_first_run(u);
    u->stack = t->stack;
    t->stack = Stack{};
    enter(u);
    tl_accounted = false;
    return u;
}

/* On the fiber of T, which has just begun to wait: next_after's thread, made the running
 * thread (given a stack if it has none yet) and returned, for T to switch to it directly, one
 * switch instead of two through the scheduler; T itself when that is T (the barrier it waits
 * at just opened). Null when the scheduler must take over: T's bookkeeping done
 * (tl_accounted), the cursor as run_block would leave it. */
Thread *switch_next(Thread *t)
{
    unsigned cursor;
    Thread *u = next_after(t, &cursor);
    if (u == nullptr)
        return nullptr;
    if (u->stack.lo == nullptr) { /* its first run (as resume does) */
        clear_on_first_run(u);
        u->stack = stack_acquire(t->block->stack_bytes);
        context_make(&u->ctx, u->stack, thread_main, u);
    }
    enter(u);
    tl_accounted = false;
    return u;
}

/* Reports that no thread of B can go on, and what each waits for. */
void report_deadlock(Block *b)
{
    report_head("deadlock: no thread of the block can continue", b, nullptr);
    describe_waiters(b, ThreadState::at_barrier, "__syncthreads()");
    describe_waiters(b, ThreadState::at_tile_barrier, "a tile's sync()");
    describe_waiters(b, ThreadState::at_warp_op, "a warp collective");
    warp_describe_stuck(b);
    std::vector<unsigned> gone = threads_where(b, ThreadState::exited);
    if (!gone.empty())
        report_line("%zu thread%s exited: %s", gone.size(), gone.size() == 1 ? "" : "s",
                    thread_list(b, gone).c_str());
    fail_launch(cudaErrorLaunchFailure);
}

struct BlockRun {
    bool done;     /* every thread exited */
    bool progress; /* something other than a polling thread ran */
};

/* Runs B until it finishes, fails, or only polling threads are left. */
BlockRun run_block(Block *b)
{
    Launch &L = *g_launch;
    BlockRun r{false, false};
    while (!L.stop) {
        if (Thread *t = next_ready(b)) {
            tl_may_chain = true;
            tl_accounted = false;
            Thread *ran = resume(t);
            tl_may_chain = false;
            if (!tl_accounted)
                after_resume(ran);
            if (ran->state == ThreadState::exited) { /* its stack, for the next to start */
                stack_release(ran->stack, false);
                ran->stack = Stack{};
            }
            r.progress = true;
            continue;
        }
        if (b->exited == b->threads.size()) {
            r.done = !warp_race_end(b); /* a race of one warp's lanes it held: said now */
            return r;
        }
        std::vector<unsigned> spinners = threads_where(b, ThreadState::spinning);
        if (spinners.empty()) {
            if (b->at_grid > 0 && b->at_grid + b->exited == b->threads.size())
                return r; /* the block waits at grid.sync() for the rest of the grid */
            report_deadlock(b);
            return r;
        }
        /* Give every polling thread one more turn; if all come back polling,
         * the block waits for something outside it. */
        bool moved = false;
        for (unsigned tid : spinners) {
            Thread *t = &b->threads[tid];
            resume(t); /* (no chain: tl_may_chain is false) */
            after_resume(t);
            if (t->state == ThreadState::exited) {
                stack_release(t->stack, false);
                t->stack = Stack{};
            }
            moved |= t->state != ThreadState::spinning;
            if (L.stop)
                return r;
        }
        if (!moved)
            return r;
        r.progress = true;
    }
    return r;
}

/* Reports the polling threads of the ACTIVE blocks as a wait that never ends;
 * MORE_BLOCKS: blocks beyond RESIDENT_LIMIT were still to start. */
void report_hang(const std::deque<Block *> &active, unsigned resident_limit, bool more_blocks,
                 unsigned long long resident)
{
    Launch &L = *g_launch;
    bool first = true;
    for (Block *b : active) {
        for (Thread &t : b->threads) {
            if (t.state != ThreadState::spinning)
                continue;
            if (first) {
                report_head("a thread waits forever for memory to change", b, &t);
                /* Name the polled device or shared memory, not gridDim and the like. */
                uintptr_t polled = t.spin_addrs > 0 ? t.spin_addr[0] : 0;
                for (uint32_t k = 0; k < t.spin_addrs; ++k) {
                    RegionKind kind;
                    void *base;
                    size_t size;
                    if (find_tracked(reinterpret_cast<void *>(t.spin_addr[k]), 1, &kind, &base, &size))
                        polled = t.spin_addr[k];
                }
                if (polled != 0)
                    report_line("it keeps reading %s at %s, and no running thread changes it",
                                describe_memory(reinterpret_cast<void *>(polled), 4).c_str(),
                                where(t.spin_pc).c_str());
                else
                    report_line("it keeps sleeping or polling at %s, and no running thread "
                                "changes what it waits for",
                                where(t.spin_pc).c_str());
                first = false;
            }
        }
        std::vector<unsigned> spinners = threads_where(b, ThreadState::spinning);
        report_line("block %s: %zu thread%s polling: %s", dim_str(b->idx).c_str(), spinners.size(),
                    spinners.size() == 1 ? "" : "s", thread_list(b, spinners).c_str());
    }
    if (L.overtaken.load())
        report_line("the host went on after the launch and now waits for the kernel (a CUDA "
                    "call that waits for it, or the end of the program) without having changed "
                    "what it polls: on a GPU this hangs too; set the flag before that call");
    if (more_blocks)
        report_line("%llu block%s resident; the emulated device keeps at most %u blocks of this "
                    "size resident (%d SMs), so the grid's other %llu blocks cannot start until "
                    "these finish, as on a GPU",
                    resident, resident == 1 ? " is" : "s are", resident_limit, settings().sms,
                    L.nblocks - resident);
    fail_launch(cudaErrorLaunchTimeout);
}

/* One launch's blocks, as the workers running them share them. */
struct GridRun {
    Launch *launch;
    unsigned resident_limit;                 /* blocks the device keeps resident at once */
    std::atomic<unsigned long long> next{0}; /* the next block to start */
    std::atomic<unsigned> resident{0};       /* blocks started and not finished */
    std::atomic<unsigned> workers{0};        /* workers still running blocks */
    std::atomic<unsigned> stalled{0};        /* of those, how many only have polling blocks */
    std::atomic<uint64_t> progress{0};       /* bumped whenever a worker gets anywhere */
    /* For the report of a hang, which names every worker's polling blocks:
     * one worker reports while the others pause between rounds. */
    std::mutex m;                            /* guards actives */
    std::vector<std::deque<Block *> *> actives; /* each worker's running blocks */
    std::atomic<bool> pause{false};          /* a worker is reporting a hang */
    std::atomic<unsigned> paused{0};         /* workers waiting for it */
};

/* Waits while another worker reports a hang (G.pause). */
void wait_for_reporter(GridRun &G)
{
    G.paused.fetch_add(1);
    while (G.pause.load() && !G.launch->stop.load())
        std::this_thread::yield();
    G.paused.fetch_sub(1);
}

/* Reports a hang of the whole launch, from worker with blocks MINE: once the
 * other workers pause, with every worker's polling blocks in block order.
 * Returns without reporting if a worker got somewhere meanwhile. */
void report_grid_hang(GridRun &G, uint64_t seen)
{
    Launch &L = *G.launch;
    bool no = false;
    if (!G.pause.compare_exchange_strong(no, true)) {
        wait_for_reporter(G);
        return;
    }
    while (G.paused.load() + 1 < G.workers.load() && G.progress.load() == seen && !L.stop.load())
        std::this_thread::yield();
    if (G.progress.load() == seen && !L.stop.load()) {
        std::deque<Block *> all;
        {
            std::lock_guard<std::mutex> lock(G.m);
            for (std::deque<Block *> *a : G.actives)
                all.insert(all.end(), a->begin(), a->end());
        }
        std::sort(all.begin(), all.end(),
                  [](const Block *x, const Block *y) { return x->linear < y->linear; });
        report_hang(all, G.resident_limit, G.next.load() < L.nblocks, G.resident.load());
    }
    G.pause.store(false);
}

/* The linear index of the K-th block L hands out (its schedule). */
inline unsigned long long block_at(const Launch &L, unsigned long long k)
{
    if (L.block_mul == 0)
        return k;
    if (L.block_reverse)
        k = L.nblocks - 1 - k;
    return (unsigned long long)(((unsigned __int128)L.block_mul * k + L.block_add) % L.nblocks);
}

/* Takes the next block of G, if any is left and the device has room for it
 * (a worker with no block always has room). */
Block *take_block(GridRun &G, bool have_blocks)
{
    Launch &L = *G.launch;
    unsigned r = G.resident.load();
    do {
        if (have_blocks && r >= G.resident_limit)
            return nullptr;
    } while (!G.resident.compare_exchange_weak(r, r + 1));
    unsigned long long i = G.next.fetch_add(1);
    if (i >= L.nblocks) {
        G.next.store(L.nblocks);
        G.resident.fetch_sub(1);
        return nullptr;
    }
    return start_block(L, block_at(L, i));
}

/* grid.sync(): when every block of a cooperative launch (all resident, on
 * this one worker) waits there, or has threads that exited, all go on, and
 * everything before it is ordered before everything after. */
bool release_grid(GridRun &G, std::deque<Block *> &active)
{
    Launch &L = *G.launch;
    if (active.size() != L.nblocks)
        return false; /* a block finished without reaching it: a hang, reported later */
    bool any = false;
    for (Block *b : active) {
        if (b->at_grid + b->exited != b->threads.size())
            return false;
        any |= b->at_grid > 0;
    }
    if (!any)
        return false;
    uint32_t now = L.clock.fetch_add(1) + 1;
    for (Block *b : active) {
        for (Thread &t : b->threads) {
            if (t.state != ThreadState::at_grid_barrier)
                continue;
            t.state = ThreadState::ready;
            t.wait_pc = nullptr;
            t.last_sync = t.last_fence = now; /* ordered after every earlier access of the grid */
            t.sync_phase = t.phase;
        }
        b->at_grid = 0;
        b->cursor = 0;
        new_phase_for_all(b);
    }
    return true;
}

/* ---- Launches the host goes on beside -------------------------------------
 * On a GPU the host runs while a kernel runs: a kernel may poll a flag in
 * mapped or managed memory that the host sets after the launch. Once such
 * memory exists, a launch runs on a host thread of the emulator's (the
 * launcher) while the launching thread waits for it; if every thread of it
 * then only polls, and what it polls is memory the host can write, the
 * launch call returns and the host goes on (the kernel keeps polling, as a
 * GPU's would). The next CUDA call waits for the kernel first
 * (cudaStreamQuery and cudaEventQuery answer cudaErrorNotReady instead); a
 * kernel that still only polls once the host waits for it can never end,
 * and is reported as a hang. */
} // namespace

struct Overtaken {
    std::unique_ptr<Launch> launch;
    void *ctx = nullptr;   /* the kernel's arguments, copied: the host's copy goes away */
    std::mutex m;
    std::condition_variable cv;
    bool done = false;     /* the grid ended (finished or failed) */
    bool returned = false; /* the launch call returned to the host before that */
    bool host_waits = false;    /* the host waits for it (a CUDA call, or exit) */
    bool counting = false;      /* rounds are counted since the host began to wait */
};

namespace {

std::atomic<bool> g_overtake_enabled{false};
Overtaken *g_overtaken; /* the launch the host went on beside; guarded by api_mutex */

/* Whether a polling thread of ACTIVE reads memory the host could write. */
bool polls_host_memory(const std::deque<Block *> &active)
{
    for (Block *b : active)
        for (Thread &t : b->threads) {
            if (t.state != ThreadState::spinning)
                continue;
            for (uint32_t k = 0; k < t.spin_addrs; ++k) {
                RegionKind kind;
                void *base;
                size_t size;
                uintptr_t lo, hi;
                void *a = reinterpret_cast<void *>(t.spin_addr[k]);
                if ((find_tracked(a, 1, &kind, &base, &size) && kind == RegionKind::managed) ||
                    host_mapped_span(t.spin_addr[k], &lo, &hi))
                    return true;
            }
        }
    return false;
}

/* Every block of L's worker (ACTIVE) has only polled for CUDA_EMU_SPIN_LIMIT
 * rounds: whether to go on waiting (the host may still write what they poll)
 * rather than report a hang: 0 report it, 1 wait (the host runs), 2 count the
 * rounds again (the host began to wait for the kernel, perhaps just after
 * writing). Lets the host's launch call return the first time. */
int host_may_still_write(Launch &L, const std::deque<Block *> &active)
{
    Overtaken &A = *L.async;
    std::unique_lock<std::mutex> lock(A.m);
    if (A.host_waits) {
        if (A.counting)
            return 0; /* the host waits too: nothing will change */
        A.counting = true;
        return 2;
    }
    if (!polls_host_memory(active))
        return 0;
    if (!A.returned) {
        A.returned = true;
        L.overtaken = true;
        A.cv.notify_all();
    }
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::microseconds(100)); /* the host has the CPU */
    return 1;
}

/* The host thread that runs such launches, started with the first one and
 * waiting between launches (a thread per launch would cost more than the
 * launch). One launch at a time: the API lock sees to that. */
struct Launcher {
    std::mutex m;
    std::condition_variable wake;
    Overtaken *job = nullptr;
    bool started = false;
};
Launcher &launcher()
{
    static Launcher &l = *new Launcher(); /* never destroyed: the thread outlives main */
    static const bool registered = pthread_atfork(nullptr, nullptr, [] {
        launcher().started = false; /* a child of fork() has no launcher thread */
        launcher().job = nullptr;
    }) == 0;
    (void)registered;
    return l;
}

void run_grid(Launch &L);

void launcher_main()
{
    Launcher &l = launcher();
    for (;;) {
        Overtaken *A;
        {
            std::unique_lock<std::mutex> lock(l.m);
            l.wake.wait(lock, [&] { return l.job != nullptr; });
            A = l.job;
            l.job = nullptr;
        }
        run_grid(*A->launch);
        std::lock_guard<std::mutex> hold(A->m);
        A->done = true;
        A->cv.notify_all();
    }
}

/* Hands A to the launcher thread (starting it the first time); false if no
 * thread could be started (the launch then runs on the host's thread). */
bool post_to_launcher(Overtaken *A)
{
    Launcher &l = launcher();
    std::lock_guard<std::mutex> lock(l.m);
    if (!l.started) {
        try {
            std::thread(launcher_main).detach();
        } catch (const std::system_error &) {
            return false;
        }
        l.started = true;
    }
    l.job = A;
    l.wake.notify_one();
    return true;
}

void finish_overtaken_at_exit()
{
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    finish_overtaken_launch();
}

/* One worker's part of a launch: takes blocks from G and runs them, one at a
 * time, more while the running ones only poll, until no block is left or the
 * launch fails. A spin-wait is reported as a hang only when every worker has
 * only polling blocks and nothing changed for CUDA_EMU_SPIN_LIMIT rounds. */
void work(GridRun &G)
{
    Launch &L = *G.launch;
    g_launch = &L;
    static_cast<uint3 &>(blockDim) = L.block;
    static_cast<uint3 &>(gridDim) = L.grid;
    g_shown_block = nullptr;
    report_reset();
    std::deque<Block *> active;
    unsigned stalled_rounds = 0;
    bool stalled = false;
    uint64_t seen = 0;
    G.workers.fetch_add(1);
    if (L.cooperative) /* every block resident from the start, as the launch promises */
        while (Block *b = take_block(G, !active.empty()))
            active.push_back(b);
    {
        std::lock_guard<std::mutex> lock(G.m);
        G.actives.push_back(&active);
    }
    while (!L.stop.load(std::memory_order_relaxed)) {
        if (active.empty()) {
            Block *b = take_block(G, false);
            if (b == nullptr)
                break;
            active.push_back(b);
        }
        bool progress = false;
        for (size_t i = 0; i < active.size() && !L.stop.load(std::memory_order_relaxed);) {
            BlockRun r = run_block(active[i]);
            progress |= r.progress;
            if (r.done) {
                finish_block(active[i]);
                G.resident.fetch_sub(1);
                active.erase(active.begin() + (long)i);
                progress = true;
            } else {
                ++i;
            }
        }
        if (L.stop.load(std::memory_order_relaxed))
            break;
        if (progress) {
            if (stalled) {
                stalled = false;
                G.stalled.fetch_sub(1);
            }
            if (L.parallel)
                G.progress.fetch_add(1, std::memory_order_relaxed);
            stalled_rounds = 0;
            continue;
        }
        if (L.cooperative && release_grid(G, active)) {
            stalled_rounds = 0;
            continue;
        }
        /* Every running block polls: let another block in, as a GPU would
         * have it resident already. */
        if (Block *b = take_block(G, true)) {
            active.push_back(b);
            stalled_rounds = 0;
            continue;
        }
        if (!stalled) {
            stalled = true;
            G.stalled.fetch_add(1);
            seen = G.progress.load();
        }
        if (G.pause.load()) {
            wait_for_reporter(G);
            continue;
        }
        /* Another worker may still be about to change what these blocks
         * wait for: count only rounds in which every worker is stuck. */
        uint64_t now = G.progress.load();
        if (now != seen || G.stalled.load() < G.workers.load()) {
            seen = now;
            stalled_rounds = 0;
            continue;
        }
        if (++stalled_rounds >= settings().spin_limit) {
            if (L.async != nullptr) {
                int wait = host_may_still_write(L, active);
                if (wait != 0) {
                    /* 1: the host runs, ask again next round; 2: it began to wait
                     * for the kernel, count the rounds afresh */
                    stalled_rounds = wait == 1 ? settings().spin_limit - 1 : 0;
                    continue;
                }
            }
            report_grid_hang(G, seen);
            stalled_rounds = 0;
        }
    }
    {
        std::lock_guard<std::mutex> lock(G.m);
        G.actives.erase(std::find(G.actives.begin(), G.actives.end(), &active));
    }
    for (Block *b : active) {
        finish_block(b);
        G.resident.fetch_sub(1);
    }
    if (stalled)
        G.stalled.fetch_sub(1);
    G.workers.fetch_sub(1);
    g_launch = nullptr;
    g_shown_block = nullptr;
}

/* ---- Workers --------------------------------------------------------------
 * Host threads that run blocks beside the one that launched: started at the
 * first launch with more than one block, waiting between launches. */
struct Pool {
    std::mutex m;
    std::condition_variable wake;  /* a launch is posted */
    std::condition_variable done;  /* a worker finished its part */
    GridRun *job = nullptr;        /* the posted launch */
    uint64_t serial = 0;           /* bumped for every posted launch */
    unsigned busy = 0;             /* workers still on the posted launch */
    unsigned started = 0;          /* worker threads running */
};

Pool *g_pool; /* never destroyed: workers outlive main */

/* A child of fork() has none of its parent's workers: it starts its own. */
Pool *g_parent_pool; /* the parent's, kept reachable (LeakSanitizer) */
void pool_after_fork()
{
    g_parent_pool = g_pool;
    g_pool = new Pool();
}

Pool &pool()
{
    static const bool registered = [] {
        g_pool = new Pool();
        return pthread_atfork(nullptr, nullptr, pool_after_fork) == 0;
    }();
    (void)registered;
    return *g_pool;
}

void worker_main()
{
    Pool &P = pool();
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(P.m);
    for (;;) {
        P.wake.wait(lock, [&] { return P.serial != seen; });
        seen = P.serial;
        GridRun *G = P.job;
        lock.unlock();
        work(*G);
        lock.lock();
        if (--P.busy == 0)
            P.done.notify_all();
    }
}

/* Workers beside this thread for a launch of L: as many as the settings allow
 * and could start (0 runs the launch on this thread alone). */
unsigned helpers_for(const Launch &L)
{
    unsigned want = settings().workers > 1 ? settings().workers - 1 : 0;
    if (L.nblocks < 2 || want == 0)
        return 0;
    Pool &P = pool();
    std::lock_guard<std::mutex> lock(P.m);
    while (P.started < want) {
        try {
            std::thread(worker_main).detach();
        } catch (const std::system_error &) {
            break; /* no more threads here: fewer workers */
        }
        ++P.started;
    }
    return std::min<unsigned long long>(P.started, L.nblocks - 1);
}

/* Runs every block of L (or until it fails), on this thread and the workers. */
void run_grid(Launch &L)
{
    GridRun G;
    G.launch = &L;
    G.resident_limit = (unsigned)std::max(1, settings().sms * blocks_per_sm(L.footprint));
    unsigned helpers = L.cooperative ? 0 : helpers_for(L);
    L.parallel = helpers > 0;
    if (helpers == 0) {
        work(G);
        note_static_shared(L.kernel, L.static_shared.load());
        if (g_counting)
            count_launch(L);
        return;
    }
    Pool &P = pool();
    {
        std::lock_guard<std::mutex> lock(P.m);
        P.job = &G;
        P.busy = P.started;
        ++P.serial;
    }
    P.wake.notify_all();
    work(G);
    std::unique_lock<std::mutex> lock(P.m);
    P.done.wait(lock, [&] { return P.busy == 0; });
    P.job = nullptr;
    lock.unlock();
    note_static_shared(L.kernel, L.static_shared.load());
    if (g_counting)
        count_launch(L);
}

/* CUDA's launch checks, in the order a GPU applies them. Returns the error
 * the launch fails with, after explaining it on stderr. */
cudaError_t check_launch(const Launch &L, cudaStream_t stream)
{
    const char *name = L.name;
    const unsigned bd[3] = {L.block.x, L.block.y, L.block.z};
    const unsigned gd[3] = {L.grid.x, L.grid.y, L.grid.z};
    for (int a = 0; a < 3; ++a) {
        if (bd[a] == 0 || bd[a] > (unsigned)kMaxBlockDim[a]) {
            fprintf(stderr,
                    "cuda-emu: launch of %s failed: block dimension %c is %u; it must be 1..%d "
                    "(cudaErrorInvalidConfiguration)\n",
                    name, "xyz"[a], bd[a], kMaxBlockDim[a]);
            return cudaErrorInvalidConfiguration;
        }
        if (gd[a] == 0 || gd[a] > (unsigned)kMaxGridDim[a]) {
            fprintf(stderr,
                    "cuda-emu: launch of %s failed: grid dimension %c is %u; it must be 1..%d "
                    "(cudaErrorInvalidConfiguration)\n",
                    name, "xyz"[a], gd[a], kMaxGridDim[a]);
            return cudaErrorInvalidConfiguration;
        }
    }
    unsigned long long threads = (unsigned long long)bd[0] * bd[1] * bd[2];
    if (threads > (unsigned long long)kMaxThreadsPerBlock) {
        fprintf(stderr,
                "cuda-emu: launch of %s failed: %llu threads per block (%ux%ux%u); at most %d "
                "(cudaErrorInvalidConfiguration)\n",
                name, threads, bd[0], bd[1], bd[2], kMaxThreadsPerBlock);
        return cudaErrorInvalidConfiguration;
    }
    /* The registers nvcc gave its threads (where the file asked for them: kernel_figures) may
     * leave a block room for fewer threads than it asks. */
    const KernelFigures k = kernel_figures(L.kernel);
    if (k.measured && threads > (unsigned long long)threads_for_registers(k.registers)) {
        fprintf(stderr,
                "cuda-emu: launch of %s failed: %llu threads per block, but nvcc gives the kernel "
                "%d registers a thread, and the %d registers a block may have hold at most %d "
                "such threads (cudaErrorLaunchOutOfResources)\n",
                name, threads, k.registers, kRegsPerBlock, threads_for_registers(k.registers));
        return cudaErrorLaunchOutOfResources;
    }
    size_t max_dynamic = kernel_max_dynamic_shared(L.kernel);
    if (L.smem > max_dynamic) {
        const bool set = max_dynamic != kSharedPerBlock - std::min(k.static_shared, kSharedPerBlock);
        fprintf(stderr,
                "cuda-emu: launch of %s failed: %zu bytes of dynamic shared memory; the limit is "
                "%zu%s%s (cudaErrorInvalidValue)\n",
                name, L.smem, max_dynamic,
                k.static_shared > 0 && !set ? " (48 KB less the kernel's static shared memory)" : "",
                set ? ""
                    : " unless cudaFuncSetAttribute(kernel, "
                      "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) raises it");
        return cudaErrorInvalidValue;
    }
    if (!stream_valid(stream)) {
        fprintf(stderr,
                "cuda-emu: launch of %s failed: stream %p is not a live stream "
                "(cudaErrorInvalidResourceHandle)\n",
                name, static_cast<void *>(stream));
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

} // namespace

/* ---- Interface to the other parts ----------------------------------------- */

uint3 unflatten(unsigned long long i, dim3 shape)
{
    return uint3{(unsigned)(i % shape.x), (unsigned)(i / shape.x % shape.y),
                 (unsigned)(i / ((unsigned long long)shape.x * shape.y))};
}

bool thread_running(unsigned long long block, unsigned tid)
{
    if (g_runners.load(std::memory_order_relaxed) > kRunnerSlots)
        return true;
    const uint64_t id = running_id(block, tid);
    for (unsigned i = 0; i < kRunnerSlots && i < g_runners.load(std::memory_order_relaxed); ++i)
        if (i != tl_runner && g_running[i].load(std::memory_order_acquire) == id)
            return true;
    return false;
}

void wait_here(ThreadState s, const void *pc)
{
    Thread *t = g_thread;
    if (t->ww_count != 0)
        settle_writes(t);
    t->state = s;
    t->wait_pc = pc;
    if (Thread *u = switch_next(t)) {
        if (u != t)
            context_switch(&t->ctx, &u->ctx); /* back here when T runs again */
        return;
    }
    switch_to_host(t);
}

void fail_from_fiber(cudaError_t err)
{
    fail_launch(err);
    Thread *t = g_thread;
    switch_to_host(t);
    __builtin_unreachable();
}

void fail_launch(cudaError_t err)
{
    int none = cudaSuccess;
    g_launch->error.compare_exchange_strong(none, err);
    g_launch->stop = true;
}

/* ---- The schedule -----------------------------------------------------------
 * Which warp of a block runs first after each barrier, and which block a
 * worker takes next, is no part of CUDA's contract: a GPU's order changes with
 * the load, the clock and the chip. A kernel whose result depends on it is
 * wrong, and the grader runs a check's call under two orders drawn from the
 * run's seed, W and W ^ 1 (set_schedule), the second the reverse of the first,
 * so that such a result differs between them. Warps keep their lanes in order:
 * the lanes of one warp racing are the race checker's to find. */

std::atomic<uint64_t> g_schedule{0};

/* The settings (CUDA_EMU_CHECK ...) are read as the program starts, before any
 * code it loads from a shared object runs: code under test that changes the
 * environment as it is loaded (CUDA_EMU_CHECK=0, to turn the race check off)
 * changes nothing. */
const bool g_settings_read_at_start = (settings(), true);

void set_schedule(uint64_t word) { g_schedule.store(word); }

/* The caller must be the program (the module the emulator is linked into) or
 * the grader's command loop, shim_serve, in the shared object it loaded: the
 * code under test shares that object, and its own functions are not it. */
bool called_by_program_or_loop(const void *caller)
{
    Dl_info me{}, from{};
    ElfW(Sym) *sym = nullptr; /* dladdr1 fills it in */
    if (dladdr(reinterpret_cast<void *>(&called_by_program_or_loop), &me) == 0 ||
        dladdr1(caller, &from, reinterpret_cast<void **>(&sym), RTLD_DL_SYMENT) == 0)
        return false;
    const bool program = from.dli_fbase == me.dli_fbase;
    const bool loop = from.dli_sname != nullptr && strcmp(from.dli_sname, "shim_serve") == 0 &&
                      sym != nullptr &&
                      static_cast<const char *>(caller) - static_cast<const char *>(from.dli_saddr) <
                          (ptrdiff_t)sym->st_size;
    return program || loop;
}

extern "C" CUDA_EMU_EXPORT int cuda_emu_schedule(unsigned long long word)
{
    if (!called_by_program_or_loop(__builtin_return_address(0)))
        return -1;
    set_schedule(word);
    return 0;
}

namespace {

/* A mixing step (splitmix64) for drawing the permutations from the word. */
uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A multiplier prime to N drawn from R (1 when N < 3: every order is a rotation). */
unsigned long long coprime(uint64_t r, unsigned long long n)
{
    if (n < 3)
        return 1;
    unsigned long long a = 1 + r % (n - 1);
    while (std::gcd(a, n) != 1)
        a = a + 1 < n ? a + 1 : 1;
    return a;
}

/* L's order of warps and blocks under schedule WORD (see set_schedule). */
void plan_schedule(Launch &L, uint64_t word)
{
    if (word == 0)
        return;
    const bool reverse = word & 1;
    const uint64_t r1 = mix(word >> 1), r2 = mix(r1), r3 = mix(r2), r4 = mix(r3);
    const unsigned n = L.threads_per_block;
    const unsigned nw = (n + kWarpSize - 1) / kWarpSize;
    if (nw > 1) {
        const unsigned long long a = coprime(r1, nw), c = r2 % nw;
        L.order.resize(n);
        L.position.resize(n);
        unsigned at = 0;
        for (unsigned p = 0; p < nw; ++p) {
            const unsigned q = reverse ? nw - 1 - p : p;
            const unsigned w = (unsigned)((a * q + c) % nw);
            for (unsigned tid = w * kWarpSize; tid < n && tid < (w + 1) * kWarpSize; ++tid) {
                L.position[tid] = at;
                L.order[at++] = tid;
            }
        }
    }
    if (L.nblocks > 1 && !L.cooperative) {
        L.block_mul = coprime(r3, L.nblocks);
        L.block_add = r4 % L.nblocks;
        L.block_reverse = reverse;
    }
}

} // namespace

cudaError_t launch_erased(const void *kernel, const char *name, const LaunchConfig &cfg,
                   void (*invoke)(void *), void *ctx, size_t ctx_size)
{
    init_runtime();
    if (g_launch != nullptr) {
        fprintf(stderr,
                "cuda-emu: launch of %s from inside kernel %s: dynamic parallelism is not "
                "emulated (cudaErrorNotSupported)\n",
                name, g_launch->name);
        fail_from_fiber(cudaErrorNotSupported);
    }
    /* One launch at a time, whichever host thread issues it. */
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    finish_overtaken_launch();
    if (cudaError_t sticky = sticky_error())
        return record_error(sticky);
    std::unique_ptr<Launch> owned(new Launch{});
    Launch &L = *owned;
    L.kernel = kernel;
    L.name = name;
    L.grid = cfg.grid;
    L.block = cfg.block;
    L.smem = cfg.smem;
    L.invoke = invoke;
    L.ctx = ctx;
    L.ctx_size = ctx_size;
    if (cudaError_t err = check_launch(L, cfg.stream))
        return record_error(err);
    L.threads_per_block = cfg.block.x * cfg.block.y * cfg.block.z;
    L.nblocks = (unsigned long long)cfg.grid.x * cfg.grid.y * cfg.grid.z;
    L.footprint = kernel_footprint(kernel, (int)L.threads_per_block, L.smem);
    L.serial = ++g_launch_serial != 0 ? g_launch_serial : ++g_launch_serial;
    L.block_base = block_serials(L.nblocks);
    L.clock = 1;
    L.cooperative = cfg.cooperative;
    plan_schedule(L, g_schedule.load(std::memory_order_relaxed));
    if (L.cooperative) {
        unsigned long long fit = (unsigned long long)settings().sms * blocks_per_sm(L.footprint);
        if (L.nblocks > fit) {
            fprintf(stderr,
                    "cuda-emu: cooperative launch of %s failed: %llu blocks, but only %llu of "
                    "%u threads fit on the device at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor "
                    "x %d SMs) (cudaErrorCooperativeLaunchTooLarge)\n",
                    name, L.nblocks, fit, L.threads_per_block, settings().sms);
            return record_error(cudaErrorCooperativeLaunchTooLarge);
        }
    }
    if (g_counting) /* the launch is issued: the timeline's op (count.cpp) */
        count_op("kernel", cfg.stream, L.nblocks * L.threads_per_block, name,
                 cfg.cooperative ? "cudaLaunchCooperativeKernel" : "launch");
    if (g_overtake_enabled.load()) {
        Overtaken *A = new Overtaken;
        A->ctx = aligned_alloc(64, (ctx_size + 63) / 64 * 64);
        memcpy(A->ctx, ctx, ctx_size);
        L.ctx = A->ctx;
        L.async = A;
        A->launch = std::move(owned);
        if (!post_to_launcher(A)) { /* no thread to be had: as without such memory */
            L.async = nullptr;
            run_grid(*A->launch);
            A->done = true;
        }
        std::unique_lock<std::mutex> wait(A->m);
        A->cv.wait(wait, [A] { return A->done || A->returned; });
        if (!A->done) {
            g_overtaken = A; /* the kernel polls what the host is to write: go on */
            return cudaSuccess;
        }
        wait.unlock();
        owned = std::move(A->launch);
        free(A->ctx);
        delete A;
    } else {
        run_grid(L);
    }
    const cudaError_t err = (cudaError_t)L.error.load();
    if (err == cudaSuccess)
        return cudaSuccess;
    if (L.rejected)
        return record_error(err);
    /* A fault in the kernel: sticky, as on a GPU, where the launch itself
     * succeeds and the next call reports it. */
    set_sticky_error(err);
    return cudaSuccess;
}

void note_host_writable_memory()
{
    if (!g_overtake_enabled.exchange(true))
        atexit(finish_overtaken_at_exit);
}

void finish_overtaken_launch()
{
    Overtaken *A = g_overtaken;
    if (A == nullptr)
        return;
    {
        std::unique_lock<std::mutex> wait(A->m);
        A->host_waits = true;
        A->cv.wait(wait, [A] { return A->done; });
    }
    g_overtaken = nullptr;
    Launch &L = *A->launch;
    const cudaError_t err = (cudaError_t)L.error.load();
    if (err != cudaSuccess && L.rejected)
        record_error(err);
    else if (err != cudaSuccess)
        set_sticky_error(err); /* a fault in the kernel, as a GPU's next call reports it */
    free(A->ctx);
    delete A;
}

bool overtaken_launch_running()
{
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    if (g_overtaken == nullptr)
        return false;
    std::lock_guard<std::mutex> hold(g_overtaken->m);
    return !g_overtaken->done;
}

/* ---- Kernels by address ---------------------------------------------------- */

namespace {

struct Registered {
    ArrayLauncher launcher;
    const char *name;
};

std::vector<std::pair<const void *, Registered>> &registry()
{
    static auto &r = *new std::vector<std::pair<const void *, Registered>>(); /* never destroyed */
    return r;
}

std::mutex &registry_lock()
{
    static auto &m = *new std::mutex();
    return m;
}

} // namespace

bool register_kernel(KernelRegistration fn, const char *name)
{
    std::lock_guard<std::mutex> hold(registry_lock());
    registry().push_back({fn.fn, Registered{fn.launcher, name}});
    return true;
}

bool register_kernel_once(KernelRegistration fn, const char *name)
{
    std::lock_guard<std::mutex> hold(registry_lock());
    for (const auto &k : registry())
        if (k.first == fn.fn)
            return true;
    registry().push_back({fn.fn, Registered{fn.launcher, name}});
    return true;
}

cudaError_t launch_registered(const void *fn, const LaunchConfig &cfg, void **args)
{
    Registered found{nullptr, nullptr};
    {
        std::lock_guard<std::mutex> hold(registry_lock());
        for (const auto &k : registry())
            if (k.first == fn)
                found = k.second;
    }
    if (found.launcher)
        return found.launcher(fn, found.name, cfg, args);
    fprintf(stderr,
            "cuda-emu: %s with the kernel given as a void pointer (%p): the emulator can only "
            "unpack the argument array of a kernel it has seen by name: a __global__ "
            "function of a .cu file at namespace scope, or one whose address the file "
            "takes as (void *)kernel, (const void *)kernel<...> or "
            "reinterpret_cast<const void *>(kernel); a pointer made any other way (in a "
            "macro, through another type) is unknown here: pass the kernel itself "
            "(cudaLaunchKernel(kernel, ...)) (cudaErrorInvalidDeviceFunction)\n",
            cfg.cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel", fn);
    return record_error(cudaErrorInvalidDeviceFunction);
}

/* ---- Shared memory -------------------------------------------------------- */

namespace {

/* The running CUDA thread; aborts with a message if WHAT is used from host code. */
Thread *device_only(const char *what)
{
    if (g_thread == nullptr) {
        fprintf(stderr, "cuda-emu: fatal: %s used outside a kernel\n", what);
        abort();
    }
    return g_thread;
}

} // namespace

void *shared_static(const void *key, unsigned index, size_t size, size_t align, const char *name,
                    size_t elem_size)
{
    Thread *t = device_only("a __shared__ variable");
    Block *b = t->block;
    for (const SharedVar &v : b->shared)
        if (v.key == key && v.index == index)
            return v.ptr;
    if (b->static_shared + size > kSharedPerBlock) {
        report_head("too much static shared memory", b, t);
        report_line("__shared__ %s (%zu bytes) at %s brings the block's static shared memory to "
                    "%zu bytes; the limit is %zu (nvcc refuses such a kernel); use dynamic shared "
                    "memory and cudaFuncSetAttribute for more",
                    name, size, where(__builtin_return_address(0)).c_str(),
                    b->static_shared + size, kSharedPerBlock);
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    /* What the launch's check could not see before a block of the kernel first ran (kernel_
     * max_dynamic_shared): a GPU refuses such a launch (cudaErrorInvalidValue). */
    const size_t limit = g_launch->footprint.shared_limit;
    if (b->static_shared + size + g_launch->smem > limit) {
        report_head("too much shared memory", b, t);
        report_line("__shared__ %s (%zu bytes) at %s brings static (%zu) plus dynamic (%zu) "
                    "shared memory over the %zu bytes a block may have%s; a GPU refuses this "
                    "launch (cudaErrorInvalidValue)",
                    name, size, where(__builtin_return_address(0)).c_str(),
                    b->static_shared + size, g_launch->smem, limit,
                    limit == kSharedPerBlock ? " unless cudaFuncSetAttribute(kernel, "
                                               "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) "
                                               "raises the kernel's limit"
                                             : "");
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    RuntimeAllocating runtime;
    void *p = nullptr;
    if (posix_memalign(&p, std::max<size_t>(align, 16), size) != 0) {
        fprintf(stderr, "cuda-emu: fatal: out of host memory for __shared__ %s\n", name);
        abort();
    }
    memset(p, 0xff, size);
    track_region(p, size, RegionKind::shared_static, name, elem_size, nullptr, b);
    b->shared.push_back(SharedVar{key, index, p, size});
    b->static_shared += size;
    return p;
}

void *shared_dynamic()
{
    return device_only("extern __shared__ memory")->block->dynamic_shared;
}

/* ---- The shared window and cp.async ----------------------------------------
 * PTX names shared memory by its offset in the SM's shared window (what
 * __cvta_generic_to_shared returns, what cp.async and ld.shared take). The
 * emulator's shared allocations are host memory, so each block gets a window of
 * its own: an allocation is placed in it (1 KB aligned, from 1 KB up, so no
 * valid address is 0) the first time a pointer into it is converted, and a
 * window address is only valid inside a placed allocation. */

namespace {

/* The block's shared allocation holding P (one past its end too), as [*LO, *HI). */
bool shared_allocation(Block *b, uintptr_t p, uintptr_t *lo, uintptr_t *hi)
{
    auto in = [&](const void *base, size_t size) {
        uintptr_t l = reinterpret_cast<uintptr_t>(base);
        if (size == 0 || p < l || p > l + size)
            return false;
        *lo = l, *hi = l + size;
        return true;
    };
    for (const SharedVar &v : b->shared)
        if (in(v.ptr, v.size))
            return true;
    if (in(b->dynamic_shared, g_launch->smem))
        return true;
    const std::vector<FileShared> &vars = file_shared();
    for (size_t k = 0; k < vars.size(); ++k)
        if (in(vars[k].address(), vars[k].size))
            return true;
    return false;
}

[[noreturn]] void not_shared(Thread *t, const char *what, const char *detail, const void *pc)
{
    report_head("not an address in the block's shared memory", t->block, t);
    report_line("%s at %s: %s", what, where(pc).c_str(), detail);
    report_line("shared-memory addresses for PTX come from __cvta_generic_to_shared() of a "
                "pointer into a __shared__ array (on a GPU another address reads or writes "
                "whatever is there, or faults)");
    fail_from_fiber(cudaErrorLaunchFailure);
}

} // namespace

unsigned long long shared_window(const void *p)
{
    Thread *t = device_only("__cvta_generic_to_shared");
    Block *b = t->block;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (const Block::WindowSpan &w : b->window)
        if (a >= w.lo && a <= w.hi)
            return w.base + (a - w.lo);
    uintptr_t lo, hi;
    if (!shared_allocation(b, a, &lo, &hi)) {
        char detail[160];
        snprintf(detail, sizeof detail, "%s", describe_memory(p, 1).c_str());
        not_shared(t, "__cvta_generic_to_shared", detail, __builtin_return_address(0));
    }
    unsigned long long base = 1024;
    for (const Block::WindowSpan &w : b->window)
        base = std::max(base, (w.base + (w.hi - w.lo) + 1023) & ~1023ull);
    b->window.push_back(Block::WindowSpan{lo, hi, base});
    return base + (a - lo);
}

void *shared_at(unsigned long long window, size_t bytes, const char *what)
{
    Thread *t = device_only(what);
    for (const Block::WindowSpan &w : t->block->window)
        if (window >= w.base && window + bytes <= w.base + (w.hi - w.lo))
            return reinterpret_cast<void *>(w.lo + (window - w.base));
    char detail[160];
    snprintf(detail, sizeof detail,
             "shared address 0x%llx (%zu bytes) is not inside an allocation the block has "
             "converted with __cvta_generic_to_shared", window, bytes);
    not_shared(t, what, detail, __builtin_return_address(0));
}

void async_copy_issue(void *dst, const void *data, unsigned bytes)
{
    Thread *t = device_only("cp.async");
    const void *pc = __builtin_return_address(0);
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
    uintptr_t lo, hi;
    if (!shared_allocation(t->block, a, &lo, &hi) || a + bytes > hi) {
        char detail[160];
        snprintf(detail, sizeof detail, "the destination, %s, is not the block's shared memory",
                 describe_memory(dst, bytes).c_str());
        not_shared(t, "an asynchronous copy (cp.async, __pipeline_memcpy_async)", detail, pc);
    }
    if (a % bytes != 0) {
        report_head("misaligned address", t->block, t);
        report_line("an asynchronous copy of %u bytes at %s writes shared memory at an address "
                    "that is not a multiple of %u (cudaErrorMisalignedAddress on a GPU)",
                    bytes, where(pc).c_str(), bytes);
        fail_from_fiber(cudaErrorMisalignedAddress);
    }
    /* Its race check now, as the write it starts (another thread still reading the buffer
     * races with it), and again when it lands (a thread reading it before the wait and
     * the barrier after it races with that) */
    async_copy_access(t, a, bytes, pc, true);
    if (t->async == nullptr) {
        RuntimeAllocating runtime;
        t->async = new std::vector<AsyncCopy>();
    }
    AsyncCopy c{a, bytes, t->async_groups, pc, {}};
    memcpy(c.data, data, bytes);
    RuntimeAllocating runtime;
    t->async->push_back(c);
    t->async_pending = (uint32_t)t->async->size();
}

void async_copy_source(const void *src, unsigned bytes, unsigned src_bytes)
{
    Thread *t = device_only("cp.async");
    const void *pc = __builtin_return_address(0);
    if (bytes != 4 && bytes != 8 && bytes != 16) {
        report_head("invalid asynchronous copy", t->block, t);
        report_line("an asynchronous copy of %u bytes at %s: cp.async and "
                    "__pipeline_memcpy_async copy 4, 8 or 16 bytes", bytes, where(pc).c_str());
        fail_from_fiber(cudaErrorInvalidValue);
    }
    if (src_bytes > bytes) {
        report_head("invalid asynchronous copy", t->block, t);
        report_line("an asynchronous copy at %s reads %u bytes of %u: the source size must be at "
                    "most the copy's size", where(pc).c_str(), src_bytes, bytes);
        fail_from_fiber(cudaErrorInvalidValue);
    }
    if (src_bytes != 0 && reinterpret_cast<uintptr_t>(src) % bytes != 0) {
        report_head("misaligned address", t->block, t);
        report_line("an asynchronous copy of %u bytes at %s reads global memory at %p, not a "
                    "multiple of %u (cudaErrorMisalignedAddress on a GPU)",
                    bytes, where(pc).c_str(), src, bytes);
        fail_from_fiber(cudaErrorMisalignedAddress);
    }
}

void async_copy_commit()
{
    ++device_only("cp.async.commit_group")->async_groups;
}

void async_copy_wait(int keep)
{
    Thread *t = device_only("cp.async.wait_group");
    if (keep < 0) /* wait_all: commits the open group and waits for every one */
        ++t->async_groups, keep = 0;
    if (t->async == nullptr || t->async->empty())
        return;
    /* Every copy of a group older than the KEEP most recent committed ones lands, in order. */
    const unsigned upto = t->async_groups > (unsigned)keep ? t->async_groups - (unsigned)keep : 0;
    std::vector<AsyncCopy> &q = *t->async;
    size_t done = 0;
    while (done < q.size() && q[done].group < upto)
        ++done;
    if (done == 0)
        return;
    t->async_pending = (uint32_t)(q.size() - done); /* these no longer count as in flight */
    for (size_t i = 0; i < done; ++i) {
        async_copy_access(t, q[i].dst, q[i].bytes, q[i].pc, false);
        memcpy(reinterpret_cast<void *>(q[i].dst), q[i].data, q[i].bytes);
    }
    q.erase(q.begin(), q.begin() + (long)done);
}

void async_copy_touch(Thread *t, uintptr_t a, size_t n, bool write, const void *pc)
{
    for (const AsyncCopy &c : *t->async)
        if (a < c.dst + c.bytes && c.dst < a + n) {
            report_head("shared memory used before its asynchronous copy landed", t->block, t);
            report_line("thread %s %s %s at %s while its own copy into it, issued at %s, may "
                        "still be in flight",
                        dim_str(t->idx).c_str(), write ? "writes" : "reads",
                        describe_memory(reinterpret_cast<void *>(a), n).c_str(),
                        where(pc).c_str(), where(c.pc).c_str());
            report_line("wait for the copy first (cp.async.wait_group or wait_all, "
                        "__pipeline_wait_prior, cooperative_groups::wait), and put a "
                        "__syncthreads() after the wait when other threads read what it copied");
            fail_from_fiber(cudaErrorLaunchFailure);
        }
}

bool register_file_shared(void *(*address)(), size_t size, const char *name, size_t elem_size)
{
    file_shared().push_back(FileShared{address, size, name, elem_size});
    return true;
}

bool register_dynamic_shared_alias(void (*set)(void *))
{
    shared_aliases().push_back(set);
    return true;
}

void kernel_launch_bounds(long long max_threads, long long min_blocks,
                          long long max_blocks_per_cluster)
{
    (void)max_blocks_per_cluster;
    device_only("__launch_bounds__");
    Launch &L = *g_launch;
    /* Every thread of the grid passes here: a load first, so that only the first one writes
     * the flag's cache line (an exchange by every thread made the workers fight over it) */
    if (max_threads > 0 && !L.bounds_noted.load(std::memory_order_relaxed) &&
        !L.bounds_noted.exchange(true))
        note_launch_bounds(L.kernel, max_threads, min_blocks); /* a template kernel's, known
                                                                  from its first run */
    if (max_threads <= 0 || L.threads_per_block <= max_threads)
        return;
    if (!L.reported.exchange(true)) /* once, whichever worker gets here first */
        fprintf(stderr,
                "cuda-emu: launch of %s failed: %u threads per block, but the kernel is compiled "
                "with __launch_bounds__(%lld) at %s (cudaErrorLaunchOutOfResources)\n",
                L.name, L.threads_per_block, max_threads, where(__builtin_return_address(0)).c_str());
    /* This runs as the first statement of the first thread, so nothing of the
     * grid has run yet: the launch fails as a whole, without a sticky error. */
    L.rejected = true;
    fail_from_fiber(cudaErrorLaunchOutOfResources);
}

/* ---- Barriers, sleeping and time ------------------------------------------ */

namespace {

/* One __syncthreads variant (KIND, see Thread::bar_kind) with predicate PRED,
 * called at PC; returns the variant's result. */
int barrier(int kind, int pred, const void *pc)
{
    Thread *t = device_only("__syncthreads()");
    t->bar_kind = kind;
    t->bar_pred = pred;
    wait_here(ThreadState::at_barrier, pc);
    return t->bar_result;
}

} // namespace

void tile_barrier(unsigned first, unsigned count)
{
    Thread *t = device_only("a tile's sync()");
    t->tile_first = first;
    t->tile_count = count;
    wait_here(ThreadState::at_tile_barrier, __builtin_return_address(0));
}

bool launch_is_cooperative()
{
    return device_only("this_grid()") != nullptr && g_launch->cooperative;
}

void grid_barrier()
{
    Thread *t = device_only("grid.sync()");
    const void *pc = __builtin_return_address(0);
    if (!g_launch->cooperative) {
        report_head("grid.sync() in a kernel not launched cooperatively", t->block, t);
        report_line("grid.sync() at %s needs every block resident at once: launch the kernel with "
                    "cudaLaunchCooperativeKernel (on a GPU this hangs or fails)",
                    where(pc).c_str());
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    wait_here(ThreadState::at_grid_barrier, pc);
}

void *shared_scratch(const void *key, size_t size)
{
    Thread *t = device_only("cooperative groups");
    Block *b = t->block;
    for (const SharedVar &v : b->shared)
        if (v.key == key && v.index == ~0u)
            return v.ptr;
    RuntimeAllocating runtime;
    void *p = nullptr;
    if (posix_memalign(&p, 16, size) != 0) {
        fprintf(stderr, "cuda-emu: fatal: out of host memory for cooperative groups' scratch\n");
        abort();
    }
    memset(p, 0xff, size);
    track_region(p, size, RegionKind::shared_static, "(cooperative groups' scratch)", 1, nullptr, b);
    b->shared.push_back(SharedVar{key, ~0u, p, size}); /* not counted against the limit */
    return p;
}

unsigned ptx_nsmid() { return (unsigned)settings().sms; }

unsigned ptx_smid()
{
    Thread *t = device_only("%smid");
    return (unsigned)(t->block->linear % (unsigned)settings().sms);
}

long long clock_ticks()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

} // namespace cuda_emu

using cuda_emu::barrier;

void __syncthreads() { barrier(0, 0, __builtin_return_address(0)); }
int __syncthreads_count(int predicate) { return barrier(1, predicate, __builtin_return_address(0)); }
int __syncthreads_and(int predicate) { return barrier(2, predicate, __builtin_return_address(0)); }
int __syncthreads_or(int predicate) { return barrier(3, predicate, __builtin_return_address(0)); }

/* assert() in a kernel is CUDA's device-side assert: the message names the
 * block and thread, the launch fails with the sticky cudaErrorAssert, and the
 * program goes on (to report it). On the host, glibc's behaviour. */
extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line,
                              const char *function) noexcept
{
    if (cuda_emu::Thread *t = cuda_emu::g_thread) {
        cuda_emu::report_head("device-side assertion failed", t->block, t);
        cuda_emu::report_line("%s:%u: %s: Assertion `%s' failed.", file, line, function, assertion);
        cuda_emu::fail_from_fiber(cudaErrorAssert);
    }
    fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file,
            line, function, assertion);
    abort();
}

/* __trap() in a kernel (PTX's `trap`, which emu-rewrite turns into it): on a GPU the kernel
 * stops at once and the launch fails with the sticky cudaErrorLaunchFailure ("unspecified
 * launch failure"), which says nothing of where; here the report names the line, the block and
 * the thread. On the host, abort() as glibc's trap would. */
void __trap()
{
    if (cuda_emu::Thread *t = cuda_emu::g_thread) {
        cuda_emu::report_head("trap", t->block, t);
        cuda_emu::report_line("__trap() (or PTX trap) at %s ended the kernel "
                              "(cudaErrorLaunchFailure, \"unspecified launch failure\", on a GPU, "
                              "which names no line)",
                              cuda_emu::where(__builtin_return_address(0)).c_str());
        cuda_emu::fail_from_fiber(cudaErrorLaunchFailure);
    }
    fprintf(stderr, "%s: __trap() on the host\n", program_invocation_short_name);
    abort();
}

void __nanosleep(unsigned int ns)
{
    cuda_emu::Thread *t = cuda_emu::g_thread;
    if (t == nullptr)
        return;
    if (__builtin_expect(cuda_emu::g_counting, 0))
        cuda_emu::count_unseen(cuda_emu::Unseen::sleep, __builtin_return_address(0), ns);
    /* A thread sleeps in a loop that waits for another thread: let it run. */
    t->spin_pc = __builtin_return_address(0);
    cuda_emu::wait_here(cuda_emu::ThreadState::spinning, t->spin_pc);
}

/* A .cu file's printf (cuda_emu/prelude.h): the host's, and in a kernel's thread of a counted
 * range, counted at its call site (the count's printf lines). */
extern "C" __attribute__((visibility("default"))) int cuda_emu_printf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int n = vprintf(format, args);
    va_end(args);
    if (__builtin_expect(cuda_emu::g_counting, 0) && cuda_emu::g_thread != nullptr)
        cuda_emu::count_unseen(cuda_emu::Unseen::print, __builtin_return_address(0),
                               n > 0 ? (unsigned long long)n : 0);
    return n;
}
