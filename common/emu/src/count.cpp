/*
 * count.cpp -- the memory mechanism a GPU's counters show, counted per source
 * line while CUDA_EMU_COUNT names a file (make explain).
 *
 * A GPU issues a load or store once per warp: the lanes that execute the same
 * memory instruction together form one request, and what a lesson teaches is
 * what that request costs. For global memory, the 32-byte sectors it touches
 * (4 for 32 consecutive floats, 32 when every lane reads a sector of its own);
 * for shared memory, the wavefronts (passes) it needs: its 32 banks of 4 bytes
 * serve one word each per pass, lanes reading the same word share it (a
 * broadcast), and n different words in one bank take n passes.
 *
 * Here the lanes of a warp run one after another (exec.cpp), so the lanes of
 * one request are found by counting: the k-th time lane i executes the
 * instruction at PC belongs with the k-th time lane j does. The count restarts
 * at every __syncthreads(), where all lanes meet again. (Where the lanes of a
 * warp diverge inside a loop and run an instruction different numbers of
 * times, a GPU may group them otherwise; a request then counts the lanes that
 * reached their k-th execution, as a reconverged warp would issue it.) An
 * instruction is its call site of the access hook (track.cpp): the return
 * address, which the program's line table turns into a .cu line. g++ may copy a
 * float4 field by field, where a GPU issues one 16-byte access: four 4-byte
 * instructions of one source line whose lanes, in every request, fill one
 * aligned 16-byte block each are counted as that one access (in shared memory,
 * two filling an aligned 8-byte block: one 8-byte access, a float2). So are a
 * loop's scalar accesses to neighbouring words that g++ unrolled, as nvcc merges
 * them too (in shared memory: nvcc knows those arrays' alignment, not a global
 * pointer's, so in global memory only pieces that followed each other at once,
 * as a copy's do, are merged); a volatile access is never merged.
 *
 * Branches are counted the same way. emu-rewrite wraps the condition of every
 * if, while and for in device code in cuda_emu::branch() (device.h), which
 * calls count_branch() while counting, with a string naming the branch (g++
 * may compile one condition into several calls: a && b known false on one
 * path; the string is one object for all of them, the line comes from the
 * first call seen): the k-th time lane i reaches a branch
 * belongs with the k-th time lane j does, and that warp-wide execution is
 * divergent when some of the lanes that reached it went in and some did not.
 * A GPU issues the path of each side with the other side's lanes idle, so the
 * lanes that went in are the lanes active in the body.
 *
 * Counting is on only between cudaProfilerStart() and cudaProfilerStop() in a
 * program run with CUDA_EMU_COUNT=FILE, or CUDA_EMU_COUNT_FD=N (a descriptor
 * it holds open: a grader's sandboxed worker opens no file, and writes its
 * counts to one the grader handed it); cudaProfilerStop() appends what was
 * counted since the start to FILE (or N), one line per instruction:
 *   range N <tab> file:line <tab> global|shared <tab> load|store <tab> bytes
 *         <tab> requests <tab> lanes <tab> sectors|wavefronts <tab> ideal
 * where ideal is what the same lanes would cost reading consecutive words
 * (ceil(lanes * bytes / 32) sectors; ceil(lanes * bytes / 128) wavefronts);
 * and one line per branch:
 *   range N <tab> file:line <tab> branch <tab> condition <tab> 0 <tab> executions
 *         <tab> lanes <tab> divergent <tab> entered <tab> lanes in
 * executions: warp-wide; lanes: that reached it, over all executions;
 * divergent: executions whose lanes went both ways; entered: executions in
 * which some lane went in (the body ran); lanes in: lanes that went in.
 * one line per memory instruction with its costliest request, lane by lane:
 *   request N <tab> file:line <tab> global|shared <tab> load|store <tab> bytes
 *           <tab> sectors|wavefronts <tab> OFFSET+SIZE ... (32 of them, "-" for a
 *           lane that took no part; OFFSET in bytes from the lowest address
 *           rounded down to 128, which keeps each lane's sector and bank)
 * one line per store that followed loads of the same thread, for the loads a
 * thread keeps in flight (a GPU issues independent loads back to back and
 * waits at the first use; in a streaming kernel the store comes right after):
 *   loads N <tab> file:line of the store <tab> runs <tab> loads <tab> bytes
 *         <tab> the most bytes of one run
 * (runs: stores that followed at least one global load of their thread since
 * its previous store; loads and bytes: of those runs, summed)
 * one line per atomic operation of global memory (atomicAdd, atomicCAS ... on
 * a pointer outside the block's shared memory), each thread's one op:
 *   atomics N <tab> file:line <tab> ops <tab> addresses
 * (addresses: the distinct ones it updated, counted up to 4096; what an atomic
 * costs on a GPU turns on how many threads contend for one address, which no
 * other line shows)
 * one line per call site of a kernel's printf and of __nanosleep, whose cost on a GPU no other
 * line holds (a printf's formatting by the driver and its contended buffer; time asleep):
 *   printf N <tab> file:line <tab> calls <tab> bytes printed
 *   sleep N <tab> file:line <tab> calls <tab> ns asked for
 * and one line per kernel launch, in order, for the waves its grid makes:
 *   launch N <tab> kernel <tab> blocks <tab> threads per block <tab> shared bytes
 *          per block <tab> registers per thread <tab> blocks per SM <tab> SMs
 * (registers: kernel_figures; blocks per SM: what the occupancy API answers,
 * static shared memory included).
 * and one line per stream-ordered operation the host issued, in issue order,
 * for the copy and compute engines' timeline (runtime.cpp and exec.cpp call
 * count_op as each is issued; here each runs at once, on a GPU it is queued):
 *   op N <tab> seq <tab> stream <tab> stream kind <tab> kind <tab> amount
 *      <tab> detail <tab> call <tab> thread
 * seq: 1, 2, ... in issue order; stream: 0 for the legacy default stream (0 or
 * cudaStreamLegacy), the others 1, 2, ... in the order the range first uses
 * them ("-" where the host waits for no one stream); stream kind: legacy,
 * per-thread (cudaStreamPerThread: a stream of each host thread, numbered apart),
 * blocking (cudaStreamCreate) or
 * non-blocking (cudaStreamNonBlocking), "-" with no stream; kind: h2d, d2h,
 * d2d or h2h (a copy: amount in bytes, detail pinned or pageable for the host
 * side, "-" for none), memset (bytes), kernel (amount: threads launched;
 * detail: its name), record or wait (cudaEventRecord, cudaStreamWaitEvent:
 * detail "event E", events numbered like streams), or sync (the host waits:
 * cudaStreamSynchronize on its stream, cudaEventSynchronize with its event,
 * cudaDeviceSynchronize on everything); call: the API call that issued it
 * (launch for a kernel; cudaGraphLaunch for the records and waits that order a
 * graph's branches, runtime.cpp); thread: the host thread that issued it, 1, 2,
 * ... in the order the range first sees each issue (the emulator may run host
 * threads one after another, so their op lines come in runs; a GPU takes each
 * thread's work as it comes). A range in which nothing but host waits was
 * issued writes no op line.
 * Counting changes no result: it only records addresses and conditions.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unistd.h>

#include "emu_internal.h"

namespace cuda_emu {

bool g_counting;

namespace {

/* One request: the lanes of a warp that executed an instruction the same
 * number of times. */
struct Request {
    uint32_t mask;          /* lanes that took part */
    uintptr_t addr[32];     /* each lane's address (valid where mask has it) */
    uint16_t bytes[32];     /* each lane's access size */
};

/* One memory instruction as one warp executes it, until the next barrier. */
struct Site {
    bool write = false;             /* a store */
    bool shared = false;            /* in the block's shared memory */
    bool is_volatile = false;       /* through a volatile lvalue: never merged with another */
    uint64_t executions = 0;        /* lanes' accesses, and of those, the ones that came right */
    uint64_t follows = 0;           /* after the same thread's 4-byte access of the same kind
                                       to the 4 bytes before (global memory) */
    uint32_t next[32] = {};         /* per lane: requests it took part in so far */
    std::vector<Request> requests;  /* in order */
    bool merged_away = false;       /* counted as a piece of a vector access (count_flush) */
};

/* The totals of one instruction, over all warps of the range. */
struct Totals {
    const void *pc;      /* the call site */
    bool write;          /* a store */
    bool shared;         /* shared memory */
    unsigned bytes;      /* the widest access seen */
    uint64_t requests;   /* warp-wide executions */
    uint64_t lanes;      /* lanes over all requests */
    uint64_t units;      /* sectors (global) or wavefronts (shared) */
    uint64_t ideal;      /* the same for consecutive words */
    Request worst;       /* its costliest request, the first of them (make explain's picture) */
    uint64_t worst_units; /* what that request costs; 0 until one is seen */
};

/* One branch as one warp executes it, until the next barrier. */
struct BranchSite {
    const void *pc = nullptr; /* the first call seen: its line is the branch's */
    uint32_t next[32] = {};  /* per lane: executions it took part in so far */
    std::vector<std::pair<uint32_t, uint32_t>> runs; /* per execution: lanes that reached
                                                        it, lanes that went in */
};

/* The loads a thread issued before a store, at that store, over all threads of the range. */
struct InFlight {
    uint64_t runs;       /* stores that followed at least one load */
    uint64_t loads;      /* global loads before them, since the previous store */
    uint64_t bytes;      /* their bytes */
    uint64_t most;       /* the most bytes of one run */
};

/* The totals of one branch, over all warps of the range. */
struct BranchTotals {
    const void *pc;      /* a call of the branch, for its line */
    uint64_t executions; /* warp-wide */
    uint64_t lanes;      /* lanes that reached it, over all executions */
    uint64_t divergent;  /* executions whose lanes went both ways */
    uint64_t entered;    /* executions in which some lane went in */
    uint64_t lanes_in;   /* lanes that went in, over all executions */
};

/* One launch of the range, as the GPU's block scheduler sees it. */
struct LaunchRecord {
    std::string name;          /* the kernel as written at the launch */
    unsigned long long blocks; /* in the grid */
    unsigned threads;          /* per block */
    size_t shared;             /* bytes per block: dynamic and static */
    int registers;             /* per thread (kernel_figures) */
    int per_sm;                /* blocks resident on one SM at once */
    int sms;                   /* SMs of the emulated device */
};

/* One stream-ordered operation of the range, as the host issued it (the op line above). */
struct OpRecord {
    std::string stream;        /* its number ("0": the legacy default stream), or "-" */
    const char *stream_kind;   /* legacy, per-thread, blocking, non-blocking, or "-" */
    const char *kind;          /* h2d, d2h, d2d, h2h, memset, kernel, record, wait, sync */
    unsigned long long amount; /* bytes (copies, memsets) or threads (kernels); else 0 */
    std::string detail;        /* pinned, pageable or "-"; a kernel's name; "event E" */
    const char *call;          /* the API call that issued it */
    unsigned thread;           /* the host thread that issued it, numbered as first seen */
};

std::mutex &g_totals_mutex = *new std::mutex();
std::vector<LaunchRecord> &g_launches = *new std::vector<LaunchRecord>();
std::vector<OpRecord> &g_ops = *new std::vector<OpRecord>();
/* Handles (streams, events, host threads) numbered in the order the range first uses them. A
 * handle destroyed in the range is forgotten: a new stream at the same address is another. */
struct Numbering {
    std::unordered_map<const void *, unsigned> ids; /* the live handles' numbers */
    unsigned used = 0;                              /* numbers given so far */
};
Numbering &g_stream_ids = *new Numbering();
Numbering &g_event_ids = *new Numbering();
Numbering &g_thread_ids = *new Numbering();
std::map<const void *, BranchTotals> &g_branch_totals = *new std::map<const void *, BranchTotals>();
std::map<const void *, InFlight> &g_inflight = *new std::map<const void *, InFlight>();
std::map<std::pair<const void *, int>, Totals> &g_totals = *new std::map<std::pair<const void *, int>, Totals>();
unsigned g_range;         /* cudaProfilerStart calls so far */

/* Distinct 32-byte sectors that R's lanes touch. */
uint64_t sectors(const Request &r)
{
    static thread_local std::vector<uintptr_t> s;
    s.clear();
    for (unsigned l = 0; l < 32; ++l) {
        if (!(r.mask >> l & 1))
            continue;
        for (uintptr_t x = r.addr[l] >> 5; x <= (r.addr[l] + r.bytes[l] - 1) >> 5; ++x)
            s.push_back(x);
    }
    std::sort(s.begin(), s.end());
    return (uint64_t)(std::unique(s.begin(), s.end()) - s.begin());
}

/* One group of lanes of a shared-memory request, as the shared-memory pipe
 * serves it: the passes it needs on its own (the bank with the most distinct
 * 4-byte words sets it; lanes reading one word share it), the banks it uses,
 * and whether its lanes all access one address. */
struct Group {
    unsigned passes = 0;  /* 0: no lane of the group took part */
    uint32_t banks = 0;   /* bit b: bank b is used */
    bool one_address = true;
    uintptr_t address = 0; /* that address, when one_address (and some lane took part) */
};

Group group_of(const Request &r, unsigned first, unsigned lanes)
{
    Group g;
    uintptr_t words[32][32]; /* per bank: distinct word addresses */
    unsigned nwords[32] = {0};
    for (unsigned l = first; l < first + lanes && l < 32; ++l) {
        if (!(r.mask >> l & 1))
            continue;
        if (g.passes > 0 && r.addr[l] != g.address)
            g.one_address = false;
        g.address = r.addr[l];
        for (uintptr_t w = r.addr[l] >> 2; w <= (r.addr[l] + r.bytes[l] - 1) >> 2; ++w) {
            const unsigned bank = (unsigned)(w & 31);
            g.banks |= 1u << bank;
            bool seen = false;
            for (unsigned k = 0; k < nwords[bank]; ++k)
                seen |= words[bank][k] == w;
            if (!seen && nwords[bank] < 32)
                words[bank][nwords[bank]++] = w;
            g.passes = std::max(g.passes, nwords[bank]);
        }
    }
    return g;
}

/* Shared-memory passes (wavefronts) R needs, by the rule measured on an H200,
 * pattern by pattern, with Nsight Compute (tests/gpu/wavefront-probe.sh;
 * the table is tests/emu/probes/wavefronts-h200.tsv). The pipe serves 128 bytes
 * of lanes at a time: the whole warp for 4-byte words, each half-warp for 8
 * bytes, each quarter-warp for 16; a group costs the most distinct words any
 * one bank holds for it. A load may serve two neighbouring groups in the same
 * passes (the two half-warps of an 8-byte load, the two quarter-warps of each
 * half of a 16-byte one) when they use no bank in common or all their lanes
 * read one address; a store never does. So a warp's float4 load costs at least
 * 2, a float4 store at least 4, and a float2 read of one address by every lane 1. */
uint64_t wavefronts(const Request &r, bool write)
{
    unsigned width = 4;
    for (unsigned l = 0; l < 32; ++l)
        if (r.mask >> l & 1)
            width = std::max<unsigned>(width, r.bytes[l]);
    const unsigned per_group = std::max(1u, 128u / width);
    uint64_t total = 0; /* (4-byte words: the whole warp is group a, b is empty) */
    for (unsigned first = 0; first < 32; first += 2 * per_group) {
        const Group a = group_of(r, first, per_group), b = group_of(r, first + per_group, per_group);
        const bool one_address = a.one_address && b.one_address && a.address == b.address;
        if (!write && a.passes && b.passes && (one_address || (a.banks & b.banks) == 0))
            total += std::max(a.passes, b.passes);
        else
            total += a.passes + b.passes;
    }
    return std::max<uint64_t>(total, 1);
}

} // namespace

/* Per block: the sites of each warp, keyed by call site and memory space (one
 * instruction may reach global or shared memory through a generic pointer). A flush (at a
 * barrier, and as the block ends) empties them in place, their memory kept: a site with no
 * request, a branch with no run and a store with no run are none. A block's state goes to its
 * host thread's next block of the same launch (count_block_end), so that counting allocates
 * per new site, not per site, barrier and block. */
struct CountState {
    std::vector<std::unordered_map<uintptr_t, Site>> warps;
    std::vector<std::unordered_map<const void *, BranchSite>> branches; /* per warp, by the
                                                                           branch's string */
    std::unordered_map<const void *, InFlight> inflight; /* by the store's call site */
    const Launch *launch = nullptr; /* the launch whose blocks it served */
};

/* The state the last block of this host thread left (emptied), for its next block; freed when
 * the thread ends. */
namespace {
struct SpareCount {
    CountState *state = nullptr;
    ~SpareCount() { delete state; }
};
thread_local SpareCount tl_spare_count;
} // namespace

/* The running thread's block's counting state, made (or taken from tl_spare_count, if its
 * launch's) on first use. */
static CountState &count_state(Block *b)
{
    if (b->count == nullptr) {
        RuntimeAllocating runtime;
        CountState *c = tl_spare_count.state;
        tl_spare_count.state = nullptr;
        if (c != nullptr && c->launch != g_launch) {
            delete c;
            c = nullptr;
        }
        b->count = c != nullptr ? c : new CountState();
        b->count->launch = g_launch;
    }
    return *b->count;
}

/* Whether A is one of the built-in indices: registers on a GPU, variables here. */
static bool builtin_index(uintptr_t a)
{
    const auto in = [a](const void *p) { return a - reinterpret_cast<uintptr_t>(p) < sizeof(uint3); };
    return in(&threadIdx) || in(&blockIdx) || in(&blockDim) || in(&gridDim);
}

void count_access(Thread *t, uintptr_t a, size_t n, bool write, const void *pc, bool shared,
                  bool is_volatile)
{
    if (builtin_index(a))
        return;
    Block *b = t->block;
    CountState &c = count_state(b);
    RuntimeAllocating runtime; /* the maps' memory is not the kernel's heap */
    /* Loads in flight: a GPU issues a thread's independent loads back to back and waits at
     * the first use; a store (of what they loaded, in a streaming kernel) is where the run of
     * loads ends at the latest. */
    const uintptr_t after_store = reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(t->copy_pc);
    if (!write && !shared && t->copy_pc != nullptr && after_store < 64) {
        /* g++ reports a memory-to-memory copy (a float4 assignment) as its store's hook, then
         * at once its load's: one load, used at once. */
        InFlight &f = c.inflight[pc];
        f.runs += 1;
        f.loads += 1;
        f.bytes += n;
        f.most = std::max<uint64_t>(f.most, n);
    } else if (!write && !shared) {
        t->run_loads += 1;
        t->run_bytes += (uint32_t)n;
    } else if (write && t->run_loads > 0) {
        InFlight &f = c.inflight[pc];
        f.runs += 1;
        f.loads += t->run_loads;
        f.bytes += t->run_bytes;
        f.most = std::max<uint64_t>(f.most, t->run_bytes);
        t->run_loads = t->run_bytes = 0;
    }
    t->copy_pc = write && t->run_loads == 0 ? pc : nullptr;
    const unsigned warp = t->tid / kWarpSize, lane = t->tid % kWarpSize;
    if (c.warps.size() <= warp)
        c.warps.resize(b->nwarps);
    Site &s = c.warps[warp][reinterpret_cast<uintptr_t>(pc) * 2 + shared];
    s.write = write;
    s.shared = shared;
    s.is_volatile |= is_volatile;
    if (!shared) {
        const int kind = n == 4 ? (write ? 2 : 1) : 0;
        s.executions += 1;
        s.follows += kind != 0 && kind == t->last_kind && a == t->last_end;
        t->last_kind = kind;
        t->last_end = a + n;
    }
    const uint32_t k = s.next[lane]++;
    if (s.requests.size() <= k)
        s.requests.resize(k + 1, Request{});
    Request &r = s.requests[k];
    r.mask |= 1u << lane;
    r.addr[lane] = a;
    r.bytes[lane] = (uint16_t)std::min<size_t>(n, 0xffff);
}

void count_launch(const Launch &L)
{
    if (L.error.load() != cudaSuccess)
        return;
    LaunchRecord r;
    r.name = L.name != nullptr ? L.name : "?";
    for (char &c : r.name)
        if (c == '\t' || c == '\n')
            c = ' ';
    r.blocks = L.nblocks;
    r.threads = L.threads_per_block;
    Footprint f = L.footprint; /* with the static shared memory its blocks used, where nvcc's
                                  figures are not known (kernel_figures, noted as the launch ended) */
    f.shared = L.smem + kernel_figures(L.kernel).static_shared;
    r.shared = f.shared;
    r.registers = f.registers;
    r.per_sm = blocks_per_sm(f);
    r.sms = settings().sms;
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    g_launches.push_back(r);
}

/* ID's number in N, the next one if it has none yet (the caller holds the lock). */
static unsigned number_of(Numbering &n, const void *id)
{
    auto it = n.ids.find(id);
    if (it != n.ids.end())
        return it->second;
    n.ids.emplace(id, ++n.used);
    return n.used;
}

/* Calls of a file compiled with the per-thread default stream in progress on this host
 * thread (cuda_runtime.h): their stream 0 is cudaStreamPerThread. */
static thread_local int tl_per_thread_default;

void default_stream_per_thread(bool on)
{
    tl_per_thread_default += on ? 1 : -1;
}

/* Appends one op line's record; STREAM is ignored when ON_STREAM is false, EVENT when null. */
static void add_op(const char *kind, bool on_stream, cudaStream_t stream, unsigned long long amount,
                   const char *detail, const void *event, const char *call)
{
    if (stream == nullptr && tl_per_thread_default > 0)
        stream = cudaStreamPerThread;
    /* This host thread's key, for its number and its cudaStreamPerThread's: an odd number,
     * which no stream's address is; not a thread-local's address, which a later thread may
     * reuse. */
    static std::atomic<uintptr_t> threads{0};
    static thread_local const uintptr_t thread_key = 2 * ++threads + 1;
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    if (!g_counting)
        return;
    OpRecord r;
    if (!on_stream) {
        r.stream = "-";
        r.stream_kind = "-";
    } else {
        const bool legacy = stream == nullptr || stream == cudaStreamLegacy;
        /* cudaStreamPerThread is one handle for a stream of each host thread: numbered by
         * the issuing thread, as a GPU keeps them apart. */
        const void *key = stream == cudaStreamPerThread ? reinterpret_cast<const void *>(thread_key)
                                                        : static_cast<const void *>(stream);
        r.stream = legacy ? "0" : std::to_string(number_of(g_stream_ids, key));
        r.stream_kind = stream_kind(stream);
    }
    r.kind = kind;
    r.amount = amount;
    r.detail = event != nullptr ? "event " + std::to_string(number_of(g_event_ids, event))
                                : std::string(detail != nullptr && *detail ? detail : "-");
    for (char &c : r.detail)
        if (c == '\t' || c == '\n')
            c = ' ';
    r.call = call;
    r.thread = number_of(g_thread_ids, reinterpret_cast<const void *>(thread_key));
    g_ops.push_back(std::move(r));
}

void count_op(const char *kind, cudaStream_t stream, unsigned long long amount, const char *detail,
              const char *call)
{
    if (g_counting)
        add_op(kind, true, stream, amount, detail, nullptr, call);
}

void count_event_op(const char *kind, cudaStream_t stream, cudaEvent_t event, const char *call)
{
    if (g_counting)
        add_op(kind, true, stream, 0, nullptr, event, call);
}

void count_host_wait(const char *call, const cudaStream_t *stream, cudaEvent_t event)
{
    if (g_counting)
        add_op("sync", stream != nullptr, stream != nullptr ? *stream : nullptr, 0, nullptr, event, call);
}

void count_forget(const void *handle)
{
    if (!g_counting)
        return;
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    g_stream_ids.ids.erase(handle);
    g_event_ids.ids.erase(handle);
}

/* The global atomics of the range, per call site: ops and the distinct addresses (at most
 * kAtomicAddresses kept). Rare in the labs' code, so one lock serves them. */
namespace {
constexpr size_t kAtomicAddresses = 4096;
struct AtomicTotals {
    unsigned long long ops = 0;
    std::unordered_map<uintptr_t, char> addresses;
};
std::mutex g_atomics_mutex;
std::map<const void *, AtomicTotals> g_atomics;
} // namespace

void count_atomic(uintptr_t a, const void *pc)
{
    if (!g_counting)
        return;
    RuntimeAllocating runtime;
    std::lock_guard<std::mutex> lock(g_atomics_mutex);
    AtomicTotals &t = g_atomics[pc];
    t.ops++;
    if (t.addresses.size() < kAtomicAddresses)
        t.addresses.emplace(a, 0);
}

/* The printf and __nanosleep calls of the range, per kind and call site: calls and their
 * amount (bytes printed, ns asked for). One lock, as the atomics'. */
namespace {
struct UnseenTotals {
    unsigned long long calls = 0, amount = 0;
};
std::mutex g_unseen_mutex;
std::map<std::pair<int, const void *>, UnseenTotals> g_unseen;
} // namespace

void count_unseen(Unseen kind, const void *pc, unsigned long long amount)
{
    if (!g_counting)
        return;
    RuntimeAllocating runtime;
    std::lock_guard<std::mutex> lock(g_unseen_mutex);
    UnseenTotals &t = g_unseen[{(int)kind, pc}];
    t.calls++;
    t.amount += amount;
}

bool branches_counted() noexcept { return g_counting; }

void count_branch(bool taken, const char *site)
{
    const void *pc = __builtin_return_address(0);
    Thread *t = g_thread;
    if (!g_counting || t == nullptr)
        return;
    Block *b = t->block;
    CountState &c = count_state(b);
    RuntimeAllocating runtime;
    const unsigned warp = t->tid / kWarpSize, lane = t->tid % kWarpSize;
    if (c.branches.size() <= warp)
        c.branches.resize(b->nwarps);
    BranchSite &s = c.branches[warp][site];
    if (s.pc == nullptr)
        s.pc = pc;
    const uint32_t k = s.next[lane]++;
    if (s.runs.size() <= k)
        s.runs.resize(k + 1, {0u, 0u});
    s.runs[k].first |= 1u << lane;
    if (taken)
        s.runs[k].second |= 1u << lane;
}

/* The source line of the access at PC, once per PC (the symbolizer is slow); "" for code
 * without line information (a prebuilt object), whose accesses then group by address alone. */
const std::string &line_of(const void *pc)
{
    static std::mutex m;
    static std::unordered_map<const void *, std::string> &lines =
        *new std::unordered_map<const void *, std::string>();
    std::lock_guard<std::mutex> lock(m);
    auto it = lines.find(pc);
    if (it == lines.end()) {
        std::string w = where(pc);
        it = lines.emplace(pc, w.compare(0, 3, "pc ") == 0 ? std::string() : w).first;
    }
    return it->second;
}

namespace {

/* Whether SITES (on one line, of one kind) are the pieces of one vector access
 * of WIDTH bytes that the compiler split: in every request the same lanes, and
 * each lane's pieces exactly tile one WIDTH-aligned chunk. CUDA's vector types
 * (float4, int4) are one instruction on a GPU; g++ may copy them field by
 * field. On success, MERGED holds the vector's requests. */
bool tiles_vector(const std::vector<const Site *> &sites, unsigned width, std::vector<Request> *merged)
{
    const size_t n = sites[0]->requests.size();
    merged->assign(n, Request{});
    for (size_t k = 0; k < n; ++k) {
        const uint32_t mask = sites[0]->requests[k].mask;
        Request &m = (*merged)[k];
        m.mask = mask;
        for (unsigned l = 0; l < 32; ++l) {
            if (!(mask >> l & 1))
                continue;
            const uintptr_t base = sites[0]->requests[k].addr[l] & ~(uintptr_t)(width - 1);
            uint32_t covered = 0; /* bytes of the chunk the pieces cover */
            for (const Site *s : sites) {
                const Request &r = s->requests[k];
                if (r.mask != mask || r.addr[l] < base || r.addr[l] + r.bytes[l] > base + width)
                    return false;
                const uint32_t bits = (uint32_t)(((uint64_t)1 << r.bytes[l]) - 1) << (r.addr[l] - base);
                if (covered & bits)
                    return false;
                covered |= bits;
            }
            if (covered != (uint32_t)(((uint64_t)1 << width) - 1))
                return false;
            m.addr[l] = base;
            m.bytes[l] = (uint16_t)width;
        }
    }
    return true;
}

/* Whether global SITES (4-byte pieces of one line that tile 16-byte blocks) are one float4
 * that g++ copied field by field: every piece but the block's first came, each time, right
 * after the same thread's piece before it. Neighbouring scalars in an unrolled loop (a load
 * and a store per element, or other accesses between) stay scalars, as nvcc leaves them: it
 * cannot know that a pointer into global memory is 16-byte aligned. */
bool split_copy(const std::vector<const Site *> &sites)
{
    unsigned firsts = 0;
    for (const Site *s : sites) {
        const Request &r = s->requests[0];
        if ((r.addr[__builtin_ctz(r.mask)] & 15) == 0)
            firsts++;
        else if (s->follows != s->executions)
            return false;
    }
    return firsts == 1;
}

/* Adds one instruction's requests to the totals (the caller holds the lock). */
void add_totals(const void *pc, const Site &s, const std::vector<Request> &requests)
{
    Totals &t = g_totals[{pc, (int)s.shared}];
    t.pc = pc;
    t.write = s.write;
    t.shared = s.shared;
    for (const Request &r : requests) {
        if (r.mask == 0)
            continue;
        const unsigned lanes = (unsigned)__builtin_popcount(r.mask);
        unsigned width = 0;
        for (unsigned l = 0; l < 32; ++l)
            if (r.mask >> l & 1)
                width = std::max<unsigned>(width, r.bytes[l]);
        t.bytes = std::max(t.bytes, width);
        t.requests += 1;
        t.lanes += lanes;
        const uint64_t units = s.shared ? wavefronts(r, s.write) : sectors(r);
        t.units += units;
        if (units > t.worst_units) {
            t.worst = r;
            t.worst_units = units;
        }
        t.ideal += s.shared ? (lanes * width + 127) / 128 : (lanes * width + 31) / 32;
    }
}

/* A 4-byte access that may be a piece of a vector access (count_flush): its group's key (the
 * line, kind, request count and first lane's 16-byte chunk), its call site, and when it was
 * seen. */
struct Piece {
    const std::string *line;
    bool write, shared;
    size_t requests;
    uintptr_t chunk;
    const void *pc;
    Site *site;
    size_t seen;
};

/* The order of X's and Y's keys (as a tuple of them compares): < 0, 0 (one group), > 0. */
int piece_order(const Piece &x, const Piece &y)
{
    if (x.line != y.line)
        if (const int c = x.line->compare(*y.line))
            return c;
    if (x.write != y.write)
        return x.write < y.write ? -1 : 1;
    if (x.shared != y.shared)
        return x.shared < y.shared ? -1 : 1;
    if (x.requests != y.requests)
        return x.requests < y.requests ? -1 : 1;
    if (x.chunk != y.chunk)
        return x.chunk < y.chunk ? -1 : 1;
    return 0;
}

} // namespace

void count_flush(Block *b)
{
    if (b->count == nullptr)
        return;
    RuntimeAllocating runtime;
    /* Scratch of this host thread's flushes, its memory kept. */
    static thread_local std::vector<std::pair<const void *, Site *>> sites;
    static thread_local std::vector<Piece> pieces;
    static thread_local std::vector<const Site *> v;
    static thread_local std::vector<Request> merged;
    for (auto &warp : b->count->warps) {
        /* Sites that may be pieces of one vector access: same line, kind, request count
         * and first lane's 16-byte chunk (a group: pieces of one key, in the order seen). */
        sites.clear();
        pieces.clear();
        for (auto &entry : warp) {
            Site &s = entry.second;
            if (s.requests.empty())
                continue; /* (emptied by an earlier flush, not executed since) */
            const void *pc = reinterpret_cast<const void *>(entry.first / 2);
            s.merged_away = false;
            sites.push_back({pc, &s});
            /* Only 4-byte pieces: g++ copies a float4 or an int2 field by field, while two
             * 8-byte accesses side by side are more likely two float2s than one float4. */
            if (s.requests[0].mask == 0 || s.is_volatile ||
                s.requests[0].bytes[__builtin_ctz(s.requests[0].mask)] != 4)
                continue;
            const Request &r0 = s.requests[0];
            const uintptr_t chunk = r0.addr[__builtin_ctz(r0.mask)] & ~(uintptr_t)15;
            pieces.push_back(Piece{&line_of(pc), s.write, s.shared, s.requests.size(), chunk, pc,
                                   &s, pieces.size()});
        }
        std::sort(pieces.begin(), pieces.end(), [](const Piece &x, const Piece &y) {
            const int c = piece_order(x, y);
            return c != 0 ? c < 0 : x.seen < y.seen;
        });
        std::vector<std::pair<const void *, std::pair<const Site *, std::vector<Request>>>> vectors;
        for (size_t i = 0, j; i < pieces.size(); i = j) {
            for (j = i + 1; j < pieces.size() && piece_order(pieces[i], pieces[j]) == 0; ++j)
                ;
            if (j - i < 2)
                continue;
            v.clear();
            for (size_t k = i; k < j; ++k)
                v.push_back(pieces[k].site);
            /* Four pieces filling a 16-byte block: a float4 or int4. Two filling an
             * 8-byte block of shared memory: a float2 or int2, or two scalars side by
             * side that each lane takes from an aligned pair (s[2 * i] + s[2 * i + 1]),
             * which nvcc merges too, since it places shared arrays itself and knows
             * their alignment; sdata[tid] + sdata[tid + 1] is not merged (half its
             * lanes straddle two blocks). In global memory two scalars stay two
             * accesses (nvcc cannot know a pointer's alignment), and a float2 there
             * costs per request what its two halves do. */
            if ((v.size() == 4 && (v[0]->shared || split_copy(v)) && tiles_vector(v, 16, &merged)) ||
                (v.size() == 2 && v[0]->shared && tiles_vector(v, 8, &merged))) {
                const void *first = pieces[i].pc;
                for (size_t k = i; k < j; ++k) {
                    pieces[k].site->merged_away = true;
                    first = std::min(first, pieces[k].pc);
                }
                vectors.push_back({first, {v[0], merged}});
            }
        }
        std::lock_guard<std::mutex> lock(g_totals_mutex);
        for (auto &e : sites)
            if (!e.second->merged_away)
                add_totals(e.first, *e.second, e.second->requests);
        for (auto &vec : vectors)
            add_totals(vec.first, *vec.second.first, vec.second.second);
        for (auto &e : sites) { /* emptied, its memory kept */
            Site &s = *e.second;
            s.is_volatile = false;
            s.executions = s.follows = 0;
            std::fill(std::begin(s.next), std::end(s.next), 0u);
            s.requests.clear();
        }
    }
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    for (auto &entry : b->count->inflight) {
        if (entry.second.runs == 0)
            continue;
        InFlight &t = g_inflight[entry.first];
        t.runs += entry.second.runs;
        t.loads += entry.second.loads;
        t.bytes += entry.second.bytes;
        t.most = std::max(t.most, entry.second.most);
        entry.second = InFlight{};
    }
    for (auto &warp : b->count->branches) {
        for (auto &entry : warp) {
            if (entry.second.runs.empty())
                continue;
            BranchTotals &t = g_branch_totals[entry.first];
            if (t.pc == nullptr)
                t.pc = entry.second.pc;
            for (const auto &run : entry.second.runs) {
                const unsigned reached = (unsigned)__builtin_popcount(run.first);
                const unsigned in = (unsigned)__builtin_popcount(run.second);
                if (reached == 0)
                    continue;
                t.executions += 1;
                t.lanes += reached;
                t.divergent += in > 0 && in < reached;
                t.entered += in > 0;
                t.lanes_in += in;
            }
            entry.second.pc = nullptr; /* emptied, its memory kept */
            std::fill(std::begin(entry.second.next), std::end(entry.second.next), 0u);
            entry.second.runs.clear();
        }
    }
}

void count_block_end(Block *b)
{
    count_flush(b);
    RuntimeAllocating runtime;
    delete tl_spare_count.state;
    tl_spare_count.state = b->count; /* emptied by the flush */
    b->count = nullptr;
}

/* Where what was counted goes: CUDA_EMU_COUNT_FD's descriptor, else CUDA_EMU_COUNT's file
 * (appended to); NULL when neither is set. */
static FILE *count_output(const char **named)
{
    const char *fd = getenv("CUDA_EMU_COUNT_FD");
    if (fd != nullptr && *fd != '\0') {
        *named = fd;
        const int copy = dup(atoi(fd));
        FILE *f = copy >= 0 ? fdopen(copy, "a") : nullptr;
        if (f == nullptr && copy >= 0)
            close(copy);
        return f;
    }
    *named = getenv("CUDA_EMU_COUNT");
    return *named != nullptr ? fopen(*named, "a") : nullptr;
}

void count_start()
{
    ++g_range;
    if (getenv("CUDA_EMU_COUNT") == nullptr && getenv("CUDA_EMU_COUNT_FD") == nullptr)
        return;
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    g_totals.clear();
    g_branch_totals.clear();
    g_inflight.clear();
    g_launches.clear();
    g_ops.clear();
    g_stream_ids = Numbering();
    g_event_ids = Numbering();
    g_thread_ids = Numbering();
    g_counting = true;
}

void count_stop()
{
    if (!g_counting)
        return;
    g_counting = false;
    const char *path = nullptr;
    FILE *f = count_output(&path);
    if (f == nullptr) {
        fprintf(stderr, "cuda-emu: warning: CUDA_EMU_COUNT%s=%s cannot be written; nothing counted is kept\n",
                getenv("CUDA_EMU_COUNT_FD") ? "_FD" : "", path ? path : "");
        return;
    }
    std::lock_guard<std::mutex> lock(g_totals_mutex);
    for (const auto &entry : g_totals) {
        const Totals &t = entry.second;
        if (t.requests == 0)
            continue;
        fprintf(f, "range %u\t%s\t%s\t%s\t%u\t%llu\t%llu\t%llu\t%llu\n", g_range,
                where(t.pc).c_str(), t.shared ? "shared" : "global", t.write ? "store" : "load",
                t.bytes, (unsigned long long)t.requests, (unsigned long long)t.lanes,
                (unsigned long long)t.units, (unsigned long long)t.ideal);
    }
    for (const auto &entry : g_totals) {
        const Totals &t = entry.second;
        if (t.worst_units == 0)
            continue;
        uintptr_t base = UINTPTR_MAX;
        for (unsigned l = 0; l < 32; ++l)
            if (t.worst.mask >> l & 1)
                base = std::min(base, t.worst.addr[l]);
        base &= ~(uintptr_t)127; /* keeps every lane's sector and bank */
        fprintf(f, "request %u\t%s\t%s\t%s\t%u\t%llu\t", g_range, where(t.pc).c_str(),
                t.shared ? "shared" : "global", t.write ? "store" : "load", t.bytes,
                (unsigned long long)t.worst_units);
        for (unsigned l = 0; l < 32; ++l) {
            if (t.worst.mask >> l & 1)
                fprintf(f, "%s%llu+%u", l ? " " : "", (unsigned long long)(t.worst.addr[l] - base),
                        (unsigned)t.worst.bytes[l]);
            else
                fprintf(f, "%s-", l ? " " : "");
        }
        fputc('\n', f);
    }
    for (const auto &entry : g_branch_totals) {
        const BranchTotals &t = entry.second;
        if (t.executions == 0)
            continue;
        fprintf(f, "range %u\t%s\tbranch\tcondition\t0\t%llu\t%llu\t%llu\t%llu\t%llu\n", g_range,
                where(t.pc).c_str(), (unsigned long long)t.executions,
                (unsigned long long)t.lanes, (unsigned long long)t.divergent,
                (unsigned long long)t.entered, (unsigned long long)t.lanes_in);
    }
    for (const auto &entry : g_inflight)
        fprintf(f, "loads %u\t%s\t%llu\t%llu\t%llu\t%llu\n", g_range, where(entry.first).c_str(),
                (unsigned long long)entry.second.runs, (unsigned long long)entry.second.loads,
                (unsigned long long)entry.second.bytes, (unsigned long long)entry.second.most);
    {
        std::lock_guard<std::mutex> atomics_lock(g_atomics_mutex);
        for (const auto &entry : g_atomics)
            fprintf(f, "atomics %u\t%s\t%llu\t%zu\n", g_range, where(entry.first).c_str(),
                    entry.second.ops, entry.second.addresses.size());
        g_atomics.clear();
    }
    {
        std::lock_guard<std::mutex> unseen_lock(g_unseen_mutex);
        for (const auto &entry : g_unseen)
            fprintf(f, "%s %u\t%s\t%llu\t%llu\n",
                    entry.first.first == (int)Unseen::print ? "printf" : "sleep", g_range,
                    where(entry.first.second).c_str(), entry.second.calls, entry.second.amount);
        g_unseen.clear();
    }
    for (const LaunchRecord &r : g_launches)
        fprintf(f, "launch %u\t%s\t%llu\t%u\t%zu\t%d\t%d\t%d\n", g_range, r.name.c_str(), r.blocks,
                r.threads, r.shared, r.registers, r.per_sm, r.sms);
    /* The timeline, where something was issued: a range of host waits alone has none. */
    const bool issued = std::any_of(g_ops.begin(), g_ops.end(),
                                    [](const OpRecord &r) { return strcmp(r.kind, "sync") != 0; });
    unsigned seq = 0;
    for (const OpRecord &r : g_ops)
        if (issued)
            fprintf(f, "op %u\t%u\t%s\t%s\t%s\t%llu\t%s\t%s\t%u\n", g_range, ++seq, r.stream.c_str(),
                    r.stream_kind, r.kind, r.amount, r.detail.c_str(), r.call, r.thread);
    g_totals.clear();
    g_branch_totals.clear();
    g_inflight.clear();
    g_launches.clear();
    g_ops.clear();
    g_stream_ids = Numbering();
    g_event_ids = Numbering();
    g_thread_ids = Numbering();
    fclose(f);
}

} // namespace cuda_emu
