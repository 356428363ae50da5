/*
 * warp.cpp -- warp collectives: shuffles, votes, __syncwarp, __activemask,
 * the __reduce_*_sync and __match_*_sync families.
 *
 * A lane that calls a collective waits until every lane named in its mask
 * that still exists (a partial last warp has fewer than 32 lanes) and has not
 * exited waits at a collective too; then all results are computed at once,
 * as the hardware does in one instruction. Lanes may be grouped differently
 * at the same time (halves of a warp with disjoint masks in two branches).
 * Shuffles follow PTX shfl.sync bit for bit, including the segment and clamp
 * arithmetic for widths below 32, so results match a GPU. A shuffle that
 * reads a lane outside its mask (or one that exited, or that a partial last
 * warp lacks) gets what a GPU's shuffle gets, that lane's register, with one
 * warning per source line: the CUDA Programming Guide leaves the value
 * undefined, yet every GPU returns the register and programs rely on it. What
 * PTX leaves undefined and no GPU answers consistently (a width that is not a
 * power of two, lanes that disagree on the mask) is reported as an error.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "emu_internal.h"

namespace cuda_emu {

namespace {

const char *const kOpNames[op_count] = {
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
    "__any_sync", "__all_sync", "__syncwarp", "__activemask", "__reduce_add_sync",
    "__reduce_min_sync", "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__match_any_sync",
    "__match_all_sync", "a cooperative-groups collective",
};

bool is_shuffle(int kind) { return kind <= op_shfl_xor; }

/* The thread at LANE of WARP in B, or null where a partial last warp has no such lane. */
Thread *lane_thread(Block *b, unsigned warp, unsigned lane)
{
    size_t tid = (size_t)warp * kWarpSize + lane;
    return tid < b->threads.size() ? &b->threads[tid] : nullptr;
}

/* The lanes in MASK that take part in a collective: they exist and have not
 * exited (CUDA: "all non-exited threads named in mask"). */
unsigned taking_part(Block *b, unsigned warp, unsigned mask)
{
    unsigned m = 0;
    for (unsigned lane = 0; lane < (unsigned)kWarpSize; ++lane) {
        Thread *t = lane_thread(b, warp, lane);
        if ((mask >> lane & 1) && t != nullptr && t->state != ThreadState::exited)
            m |= 1u << lane;
    }
    return m;
}

/* Why LANE of WARP cannot be read by a shuffle of GROUP. */
const char *absent_reason(Block *b, unsigned warp, unsigned lane, unsigned mask)
{
    Thread *t = lane_thread(b, warp, lane);
    if (t == nullptr)
        return "does not exist (the block's last warp is partial)";
    if (t->state == ThreadState::exited)
        return "has exited";
    if (!(mask >> lane & 1))
        return "is not in the mask";
    return "is not taking part";
}

/* What a shuffle of GROUP gets from lane J of WARP, which is not in GROUP: on
 * a GPU, J's register. The emulator knows it when J waits at the same shuffle
 * (with a mask of its own) or took part in it before (the operand it gave
 * last); otherwise it cannot, and gives 0. *HOW says which, for the warning. */
uint64_t outside_value(Block *b, unsigned warp, unsigned j, const void *site, const char **how)
{
    Thread *u = lane_thread(b, warp, j);
    if (u == nullptr) {
        *how = "0: that lane does not exist, and what a GPU returns for it is whatever its "
               "register file holds";
        return 0;
    }
    if (u->state == ThreadState::at_warp_op && is_shuffle(u->op.kind) && u->wait_pc == site) {
        *how = "that lane's operand: it waits at the same shuffle with a mask of its own";
        return u->op.value;
    }
    if (u->shfl_pc == site) {
        *how = "the operand that lane gave this shuffle the last time it took part, which is "
               "what its register holds if it has not changed since";
        return u->shfl_value;
    }
    *how = "0: that lane never took part in this shuffle, so the emulator cannot know its "
           "register (a GPU returns whatever the register holds)";
    return 0;
}

/* Warns, once per kernel and source line, that lane L of WARP read lane J,
 * outside the lanes that take part. */
void warn_outside_mask(Block *b, Thread *t, unsigned warp, unsigned l, unsigned j, int kind,
                       const char *how)
{
    static std::mutex &mutex = *new std::mutex();
    static std::set<std::pair<const void *, std::string>> &sites =
        *new std::set<std::pair<const void *, std::string>>();
    static std::set<std::string> &lines = *new std::set<std::string>();
    const char *kernel = g_launch != nullptr ? g_launch->name : "?";
    RuntimeAllocating runtime;
    std::string line;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!sites.insert({t->wait_pc, kernel}).second)
            return;
    }
    line = where(t->wait_pc);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!lines.insert(std::string(kernel) + '\n' + line).second)
            return;
    }
    if (!report_begin_warning())
        return;
    fprintf(stderr,
            "cuda-emu: warning: a shuffle reads a lane outside its mask in kernel %s, block %s, "
            "thread %s\n",
            kernel, dim_str(b->idx).c_str(), dim_str(t->idx).c_str());
    fprintf(stderr,
            "  lane %u of warp %u calls %s(mask 0x%08x) at %s and reads lane %u, which %s\n", l,
            warp, kOpNames[kind], t->op.mask, line.c_str(), j,
            absent_reason(b, warp, j, t->op.mask));
    fprintf(stderr, "  it gets %s\n", how);
    fprintf(stderr,
            "  the CUDA Programming Guide leaves this value undefined: the result relies on how "
            "the hardware behaves, not on CUDA's rules\n"
            "  to be portable, name in the mask every lane the shuffle reads and have them all "
            "call it (e.g. 0xffffffff with a neutral value such as 0 in the extra lanes)\n"
            "  (this warning is printed once per source line)\n");
    report_done();
}

/* The source lane of a shuffle, exactly as PTX shfl.sync computes it. */
unsigned shuffle_source(int kind, unsigned lane, int b, int c)
{
    int segmask = (c >> 8) & 0x1f;
    int clamp = c & 0x1f;
    int bval = b & 0x1f;
    int max_lane = ((int)lane & segmask) | (clamp & ~segmask);
    int min_lane = (int)lane & segmask;
    int j = 0;
    bool in_range = false;
    switch (kind) {
    case op_shfl_up: j = (int)lane - bval; in_range = j >= max_lane; break;
    case op_shfl_down: j = (int)lane + bval; in_range = j <= max_lane; break;
    case op_shfl_xor: j = (int)lane ^ bval; in_range = j <= max_lane; break;
    default: j = min_lane | (bval & ~segmask); in_range = j <= max_lane; break;
    }
    return in_range ? (unsigned)j : lane;
}

/* __syncwarp among GROUP: each lane's count ticks, and the launch clock: each lane's entry
 * for itself becomes that clock, and every lane of the group learns what every other knew (a
 * vector-clock join), so the race checker can tell that accesses before the rendezvous (their
 * records' clocks below it) are ordered before those after. */
void syncwarp_clocks(Block *b, unsigned warp, unsigned group)
{
    if (b->warp_clock.empty()) {
        RuntimeAllocating runtime;
        b->warp_clock.assign((size_t)b->nwarps * kWarpSize * kWarpSize, 0u);
    }
    uint32_t *vc = &b->warp_clock[(size_t)warp * kWarpSize * kWarpSize];
    const uint32_t now = g_launch->clock.fetch_add(1, std::memory_order_relaxed) + 1;
    for (unsigned a = 0; a < (unsigned)kWarpSize; ++a)
        if (group >> a & 1) {
            Thread *t = lane_thread(b, warp, a);
            ++t->wsync;
            vc[a * kWarpSize + a] = now;
        }
    for (unsigned x = 0; x < (unsigned)kWarpSize; ++x) {
        uint32_t m = 0;
        for (unsigned a = 0; a < (unsigned)kWarpSize; ++a)
            if ((group >> a & 1) && vc[a * kWarpSize + x] > m)
                m = vc[a * kWarpSize + x];
        for (unsigned a = 0; a < (unsigned)kWarpSize; ++a)
            if (group >> a & 1)
                vc[a * kWarpSize + x] = m;
    }
}

/* Computes the results of the collective GROUP waits at and releases it.
 * Returns false if it found an error (reported; the launch fails). */
bool complete(Block *b, unsigned warp, unsigned group)
{
    Thread *lanes[kWarpSize] = {};
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l)
        if (group >> l & 1)
            lanes[l] = lane_thread(b, warp, l);
    const unsigned first = (unsigned)__builtin_ctz(group);
    const int kind = lanes[first]->op.kind;
    uint32_t ballot = 0;
    uint64_t sum = 0, lo_u = UINT32_MAX, hi_u = 0, all_and = UINT32_MAX, any_or = 0, x = 0;
    int64_t lo_i = INT32_MAX, hi_i = INT32_MIN;
    bool all_equal = true;
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        if (!lanes[l])
            continue;
        uint64_t v = lanes[l]->op.value;
        uint32_t v32 = (uint32_t)v;
        ballot |= (uint32_t)(v != 0) << l;
        sum += v32;
        lo_u = v32 < lo_u ? v32 : lo_u;
        hi_u = v32 > hi_u ? v32 : hi_u;
        lo_i = (int32_t)v32 < lo_i ? (int32_t)v32 : lo_i;
        hi_i = (int32_t)v32 > hi_i ? (int32_t)v32 : hi_i;
        all_and &= v32;
        any_or |= v32;
        x ^= v32;
        all_equal &= v == lanes[first]->op.value;
    }
    if (kind == op_syncwarp)
        syncwarp_clocks(b, warp, group);
    if (kind == op_exchange) {
        for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
            if (!lanes[l])
                continue;
            size_t size = (size_t)lanes[l]->op.b;
            for (unsigned o = 0; o < (unsigned)kWarpSize; ++o)
                if (lanes[o] && (size_t)lanes[o]->op.b == size)
                    memcpy(static_cast<char *>(lanes[l]->op.dst) + o * size,
                           reinterpret_cast<const void *>(lanes[o]->op.value), size);
        }
    }
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        Thread *t = lanes[l];
        if (!t)
            continue;
        uint64_t r = 0;
        switch (kind) {
        case op_shfl_idx:
        case op_shfl_up:
        case op_shfl_down:
        case op_shfl_xor: {
            unsigned j = shuffle_source(kind, l, t->op.b, t->op.c);
            if (!(group >> j & 1)) {
                const char *how = "";
                r = outside_value(b, warp, j, t->wait_pc, &how);
                warn_outside_mask(b, t, warp, l, j, kind, how);
            } else {
                r = lanes[j]->op.value;
            }
            break;
        }
        case op_ballot: r = ballot; break;
        case op_any: r = ballot != 0; break;
        case op_all: r = ballot == group; break;
        case op_reduce_add: r = (uint32_t)sum; break;
        case op_reduce_min_u: r = lo_u; break;
        case op_reduce_max_u: r = hi_u; break;
        case op_reduce_min_i: r = (uint32_t)lo_i; break;
        case op_reduce_max_i: r = (uint32_t)hi_i; break;
        case op_reduce_and: r = all_and; break;
        case op_reduce_or: r = any_or; break;
        case op_reduce_xor: r = x; break;
        case op_match_any:
            for (unsigned o = 0; o < (unsigned)kWarpSize; ++o)
                if (lanes[o] && lanes[o]->op.value == t->op.value)
                    r |= 1u << o;
            break;
        case op_match_all: r = all_equal ? group : 0; break;
        default: break;
        }
        t->op.result = r;
    }
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l)
        if (lanes[l]) {
            if (is_shuffle(kind)) {
                lanes[l]->shfl_pc = lanes[l]->wait_pc;
                lanes[l]->shfl_value = lanes[l]->op.value;
            }
            lanes[l]->state = ThreadState::ready;
            lanes[l]->wait_pc = nullptr;
            --b->warp_waiting[warp];
        }
    return true;
}

/* Whether a shuffle of GROUP reads a lane outside it that has not yet run as
 * far as it can (ready): a GPU reads that lane's register as the lane's
 * branch left it, so the shuffle completes once the lane waits somewhere,
 * spins, or has exited (it may wait at the same shuffle with a mask of its own). */
bool reads_running_lane(Block *b, unsigned warp, unsigned group)
{
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        if (!(group >> l & 1))
            continue;
        Thread *t = lane_thread(b, warp, l);
        if (!is_shuffle(t->op.kind))
            return false;
        unsigned j = shuffle_source(t->op.kind, l, t->op.b, t->op.c);
        Thread *u = lane_thread(b, warp, j);
        if (!(group >> j & 1) && u != nullptr && u->state == ThreadState::ready)
            return true;
    }
    return false;
}

/* Whether T waits at a collective other than __activemask() (which groups differently). */
bool at_collective(const Thread *t)
{
    return t != nullptr && t->state == ThreadState::at_warp_op && t->op.kind != op_activemask;
}

/* __activemask(): once no lane of WARP can run any further without the
 * others, the lanes waiting at the same __activemask() call are the ones a
 * GPU would have found converged there. */
void complete_activemask(Block *b, unsigned warp)
{
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        Thread *t = lane_thread(b, warp, l);
        if (t != nullptr && (t->state == ThreadState::ready || t->state == ThreadState::spinning))
            return;
    }
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        Thread *t = lane_thread(b, warp, l);
        if (t == nullptr || t->state != ThreadState::at_warp_op || t->op.kind != op_activemask)
            continue;
        const void *site = t->wait_pc;
        unsigned group = 0;
        for (unsigned o = l; o < (unsigned)kWarpSize; ++o) {
            Thread *u = lane_thread(b, warp, o);
            if (u && u->state == ThreadState::at_warp_op && u->op.kind == op_activemask &&
                u->wait_pc == site)
                group |= 1u << o;
        }
        for (unsigned o = l; o < (unsigned)kWarpSize; ++o)
            if (group >> o & 1) {
                Thread *u = lane_thread(b, warp, o);
                u->op.result = group;
                u->state = ThreadState::ready;
                u->wait_pc = nullptr;
                --b->warp_waiting[warp];
            }
    }
}

} // namespace

void warp_progress(Block *b, unsigned warp)
{
    if (b->warp_waiting[warp] == 0)
        return;
    for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
        Thread *t = lane_thread(b, warp, l);
        if (!at_collective(t))
            continue;
        unsigned group = taking_part(b, warp, t->op.mask);
        bool all_here = true;
        for (unsigned o = 0; o < (unsigned)kWarpSize && all_here; ++o)
            if (group >> o & 1)
                all_here = at_collective(lane_thread(b, warp, o));
        if (!all_here || reads_running_lane(b, warp, group))
            continue;
        for (unsigned o = 0; o < (unsigned)kWarpSize; ++o) {
            Thread *u = lane_thread(b, warp, o);
            if (!(group >> o & 1) || (u->op.kind == t->op.kind && u->op.mask == t->op.mask))
                continue;
            report_head("lanes of a warp disagree at a warp collective", b, t);
            report_line("lane %u calls %s(mask 0x%08x) at %s", l, kOpNames[t->op.kind],
                        t->op.mask, where(t->wait_pc).c_str());
            report_line("lane %u calls %s(mask 0x%08x) at %s", o, kOpNames[u->op.kind],
                        u->op.mask, where(u->wait_pc).c_str());
            report_line("every lane named in a mask must call the same collective with the "
                        "same mask");
            fail_launch(cudaErrorLaunchFailure);
            return;
        }
        if (!complete(b, warp, group))
            return;
    }
    complete_activemask(b, warp);
}

void warp_describe_stuck(Block *b)
{
    for (unsigned w = 0; w < b->nwarps; ++w) {
        for (unsigned l = 0; l < (unsigned)kWarpSize; ++l) {
            Thread *t = lane_thread(b, w, l);
            if (!at_collective(t))
                continue;
            unsigned group = taking_part(b, w, t->op.mask);
            for (unsigned o = 0; o < (unsigned)kWarpSize; ++o) {
                Thread *u = lane_thread(b, w, o);
                if (!(group >> o & 1) || at_collective(u))
                    continue;
                report_line("lane %u of warp %u waits at %s(mask 0x%08x) for lane %u, which "
                            "waits at %s instead",
                            l, w, kOpNames[t->op.kind], t->op.mask, o,
                            u->state == ThreadState::at_barrier        ? "__syncthreads()"
                            : u->state == ThreadState::at_tile_barrier ? "a tile's sync()"
                            : u->state == ThreadState::at_grid_barrier ? "grid.sync()"
                                                                         : "__activemask()");
                break;
            }
            break;
        }
    }
}

uint64_t warp_op(int kind, unsigned mask, uint64_t value, int b, int c, int width)
{
    const void *pc = __builtin_return_address(0);
    Thread *t = g_thread;
    if (t == nullptr) {
        fprintf(stderr, "cuda-emu: fatal: %s called outside a kernel\n", kOpNames[kind]);
        abort();
    }
    unsigned lane = t->tid % kWarpSize;
    if (kind != op_activemask && !(mask >> lane & 1)) {
        report_head("a warp collective's mask leaves out the calling lane", t->block, t);
        report_line("lane %u calls %s with mask 0x%08x at %s; a lane must name itself in the "
                    "mask (undefined on a GPU)",
                    lane, kOpNames[kind], mask, where(pc).c_str());
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    if (is_shuffle(kind) && (width < 1 || width > kWarpSize || (width & (width - 1)) != 0)) {
        report_head("a shuffle with an invalid width", t->block, t);
        report_line("%s at %s has width %d; the width must be a power of 2 from 1 to 32 "
                    "(results are undefined otherwise)",
                    kOpNames[kind], where(pc).c_str(), width);
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    t->op = WarpOp{kind, mask, value, b, c, 0, nullptr};
    wait_here(ThreadState::at_warp_op, pc);
    return t->op.result;
}

void warp_exchange(unsigned mask, const void *mine, void *all, unsigned size)
{
    const void *pc = __builtin_return_address(0);
    Thread *t = g_thread;
    if (t == nullptr) {
        fprintf(stderr, "cuda-emu: fatal: a cooperative-groups collective called outside a kernel\n");
        abort();
    }
    unsigned lane = t->tid % kWarpSize;
    if (!(mask >> lane & 1)) {
        report_head("a warp collective's mask leaves out the calling lane", t->block, t);
        report_line("lane %u calls %s with mask 0x%08x at %s", lane, kOpNames[op_exchange], mask,
                    where(pc).c_str());
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    t->op = WarpOp{op_exchange, mask, reinterpret_cast<uint64_t>(mine), (int)size, 0, 0, all};
    wait_here(ThreadState::at_warp_op, pc);
}

} // namespace cuda_emu
