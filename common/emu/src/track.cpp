/*
 * track.cpp -- every load and store of emulated code, checked.
 *
 * Rewritten .cu files are compiled with ThreadSanitizer's instrumentation
 * (-fsanitize=thread) but linked without its runtime: every load and store
 * calls __tsan_read4(addr), __tsan_write16(addr) and so on, and this file
 * defines those functions. (AddressSanitizer's own call mode would do, but it
 * skips a store to an address the same basic block already loaded from, as
 * in x += y, and those stores matter here.) The program is linked with
 * AddressSanitizer, whose allocator and shadow memory cover every heap
 * allocation, device memory included; the hooks do its bounds check (and
 * hand a bad access to its reporter, which prints the kernel's source line,
 * as for any other AddressSanitizer report), and then:
 *
 *  - inside a kernel, on device and shared memory, the race and
 *    uninitialized-read checks below;
 *  - inside a kernel, notice a thread that keeps loading one address (a
 *    spin-wait) and let the other threads run;
 *  - outside a kernel, stop host code that dereferences a cudaMalloc pointer,
 *    which crashes on a GPU but would silently work here.
 *
 * The race check. Every 4-byte granule of tracked memory remembers its last
 * write and its last read, 16 bytes each: block (a serial of its launch's),
 * thread, launch clock and source location; the clock also tells its barrier
 * phase and __syncwarp count (it ticks at each). A read conflicts with the last
 * write (and a write with the last read) made by another thread of the same
 * launch unless something orders them:
 *   same block:  a __syncthreads() between them (different barrier phase),
 *                a __syncwarp() both took part in (same warp), or an atomic
 *                or fence by the second thread after the first access;
 *   other block: an atomic or fence by the second thread after the first
 *                access, or either access being atomic or made after a fence
 *                (the flag of a publish/consume pattern).
 * Threads run one at a time between waits, so a conflict is found whichever
 * order they run in: a missing barrier is reported even when this schedule
 * happens to produce the right result. Two writes with nothing ordering them
 * (threads of different warps, or of different blocks) race when they leave
 * different values: which one stays depends on which runs last. The value is
 * in memory only after the hook returns, so the second write is noted with the
 * bytes the first left, and compared when the second thread next accesses
 * memory, waits or ends (settle_writes): threads storing the same value to a
 * flag are common and harmless, and not reported. (Lanes of one warp writing
 * one word at once are left alone: one store instruction, whose lanes a GPU
 * orders no more than the emulator does, and warp-synchronous code does it.)
 *
 * The uninitialized-read check. Each granule also records which of its bytes
 * have ever been written (by a kernel, cudaMemcpy or cudaMemset); reading a
 * byte that never was, in a kernel or by copying it to the host, is reported.
 *
 * Cost: 34 bytes of bookkeeping per 4 bytes of checked memory (a 32-byte cell,
 * a written and a tainted byte; mapped lazily, so only what kernels touch), and
 * a few tens of nanoseconds per access.
 * CUDA_EMU_CHECK=0 turns the checks off; allocations above
 * CUDA_EMU_CHECK_MAX_MB are not checked.
 *
 * This file is compiled without sanitizers: it is called for every access.
 * What the .cu files lose against full AddressSanitizer instrumentation is
 * its red zones around their own stack frames and globals; UBSan's array
 * bounds check (-fsanitize=bounds, part of undefined) covers indexing of
 * arrays whose size is known there, __shared__ arrays included.
 */
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

#include "emu_internal.h"

/* AddressSanitizer's allocator hooks (sanitizer/allocator_interface.h, which
 * GCC does not install). */
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                                         void (*free_hook)(const volatile void *));

namespace cuda_emu {

thread_local unsigned tl_runtime_allocating;

namespace {

enum : uint8_t {
    acc_atomic = 1,   /* made by an atomic operation */
    acc_released = 2, /* made after a fence or atomic in the same barrier phase */
    acc_async = 4,    /* an asynchronous copy's write (cp.async), where it starts or lands */
    acc_locked = 0x80 /* a cell's write record only: a worker holds the cell (lock_cell) */
};

/* Set while an asynchronous copy's write is checked (async_copy_access). */
thread_local bool tl_async_copy;

/* One access, as remembered by a granule: 16 bytes. Its block is its serial (the launch's
 * block_base + linear index: a record whose serial is not the running launch's, or for shared
 * memory not the running block's, is none); its barrier phase and __syncwarp count are told by
 * its clock: the launch clock ticks when a block's phase changes (Block::phase_clock) and at
 * every __syncwarp rendezvous (Block::warp_clock holds those ticks). */
struct Access {
    uint32_t serial; /* its block's serial; 0 (or another launch's, or block's) means none */
    uint32_t clock;  /* launch clock when it happened */
    int32_t pc;      /* source location, as an offset from pc_base(); 0 if unknown */
    uint16_t thread; /* linear thread index in the block */
    uint8_t flags;   /* acc_atomic, acc_released, acc_async (acc_locked) */
    uint8_t bytes;   /* which bytes of the granule it touched (bit i: byte i) */
};
static_assert(sizeof(Access) == 16, "a record is 16 bytes");

/* 32 bytes, two to a cache line. */
struct alignas(32) Cell {
    Access write;  /* last write (plain or atomic) */
    Access read;   /* last plain read */
};
static_assert(sizeof(Cell) == 32, "a cell is half a cache line");

/* How far ahead of a cell check_granule prefetches (bytes): the next line, the next threads'. */
constexpr size_t kPrefetchAhead = 64;

/* Bookkeeping of shared memory is reused from block to block without being
 * cleared: its records carry the block's serial instead of the launch's, so
 * a new block never sees the last one's. Fresh pages for every block would
 * cost a page fault and a page of zeroes per 256 bytes of shared memory. */
struct CellBuffer {
    Cell *cells;  /* mapping of BYTES bytes */
    size_t bytes; /* its size */
    uint32_t era; /* g_serial_era when it was kept: one of an earlier era is cleared for reuse */
};

} // namespace

struct Region {
    uintptr_t lo, hi;      /* the tracked bytes [lo, hi) */
    RegionKind kind;       /* what memory it is */
    Cell *cells;           /* one per 4-byte granule; null if too large to check */
    size_t cells_bytes;    /* size of the cells mapping */
    uint8_t *written;      /* per granule, bit i: byte i was ever written; null if unchecked */
    uint8_t *tainted;      /* per granule, bit i: byte i holds data computed from an
                              uninitialized read; null if unchecked */
    const char *name;      /* variable name (shared memory) */
    size_t elem_size;      /* element size (shared memory), for element indices */
    const void *alloc_pc;  /* where cudaMalloc was called (device memory) */
};

namespace {

/* Tracked device memory, sorted by lo, disjoint. Shared memory is tracked per
 * block (Block::regions). The host API changes the table (one call at a time,
 * api_mutex, never during a launch); host threads of the program may look
 * addresses up at the same time (host code in a .cu file), so the table is a
 * sequence lock: g_regions_gen is odd while a change is under way, and a
 * lookup that saw it change tries again. What a lookup may hold stays valid:
 * a table that grows is replaced, not reallocated, and a region that goes
 * keeps its Region (its bookkeeping is freed). Old tables and regions are
 * never freed (few, small; LeakSanitizer must see them reachable). */
struct RegionTable {
    Region **items; /* sorted by lo */
    size_t n;       /* in use */
    size_t cap;     /* allocated */
};
std::atomic<RegionTable *> g_table{new RegionTable{new Region *[64], 0, 64}};
std::atomic<uint32_t> g_regions_gen{2}; /* even: stable */
std::vector<void *> &g_retired = *new std::vector<void *>(); /* old tables, gone regions */
/* Cell buffers of finished blocks' shared memory, per worker. */
thread_local std::vector<CellBuffer> *tl_spare_cells;
uintptr_t g_dev_lo = UINTPTR_MAX;      /* bounds of every device region ever tracked, */
uintptr_t g_dev_hi = 0;                /* for a cheap first test of host accesses */
uintptr_t g_shadow_offset;             /* AddressSanitizer's shadow mapping */
bool g_noted_unchecked;                /* the "too large to check" note was printed */
size_t g_checked_device;               /* bytes of device memory being checked */
constexpr size_t kSpareCellBuffers = 256; /* enough for several resident blocks' variables */

/* Device memory's cell mappings of freed allocations, kept for the next allocation instead of
 * a fresh mapping, whose pages the kernel faults in and zeroes (one 4 KiB page per 256 bytes
 * of device memory: a lab 01 grading under the emulator took a quarter fewer page faults and
 * a tenth less CPU with them kept). They are reused without clearing: every record carries its
 * launch's serial, a serial is never handed out twice (nor 0, a fresh page's), and every check
 * compares it with the running launch's first, so what an earlier launch left reads as a fresh
 * page does. Changed under the host API's lock (track_region and untrack_region, one call at a
 * time); at most kDeviceSpares of them and kDeviceSpareBytes in all. An allocation that finds
 * none that holds it grows the largest (mremap: its pages kept, the rest fresh) and gives the
 * others back. */
std::vector<CellBuffer> &g_device_spares = *new std::vector<CellBuffer>();
size_t g_device_spare_bytes;

/* Block serials (block_serials): the next one to hand out, and the era, bumped whenever they
 * ran out and started again at 1 (shared memory's kept cells of an earlier era are cleared
 * before reuse; device memory's are cleared at once). */
uint32_t g_next_block_serial = 1;
std::atomic<uint32_t> g_serial_era{0};
constexpr size_t kDeviceSpares = 16;
/* Device memory's cell mappings this large or more ask for huge pages (MADV_HUGEPAGE, where
 * the system gives them on request): a grid-stride loop's threads walk many strides of a
 * buffer's cells at once, more pages than the CPU's TLB holds. */
constexpr size_t kHugeCells = (size_t)4 << 20;
constexpr size_t kDeviceSpareBytes = (size_t)256 << 20;

/* Kept mapping I, taken out of the kept ones. */
CellBuffer take_device_spare(size_t i)
{
    const CellBuffer c = g_device_spares[i];
    g_device_spare_bytes -= c.bytes;
    g_device_spares.erase(g_device_spares.begin() + (long)i);
    return c;
}

constexpr uint32_t kSpinRun = 64;      /* same-address loads in a row that look like polling */

uintptr_t pc_base() { return reinterpret_cast<uintptr_t>(&pc_base); }

/* Code far from this program's (a shared object it loaded: the grader's worker
 * runs the code under test from one) is counted from the first such PC seen. */
std::atomic<uintptr_t> g_pc_base_far{0};

/* PC as a 32-bit offset: even, twice its distance from pc_base(); odd, from
 * g_pc_base_far; 0 if it is too far from both. */
int32_t pc_offset(const void *pc)
{
    const intptr_t p = (intptr_t)reinterpret_cast<uintptr_t>(pc);
    intptr_t d = p - (intptr_t)pc_base();
    if (d > INT32_MIN / 2 && d < INT32_MAX / 2)
        return (int32_t)(d * 2);
    uintptr_t far = g_pc_base_far.load(std::memory_order_relaxed);
    if (far == 0 && g_pc_base_far.compare_exchange_strong(far, (uintptr_t)p))
        far = (uintptr_t)p;
    d = p - (intptr_t)far;
    return d > INT32_MIN / 2 && d < INT32_MAX / 2 ? (int32_t)(d * 2 + 1) : 0;
}

/* The PC an offset from pc_offset() stands for (null for 0). */
const void *pc_from(int32_t off)
{
    if (off == 0)
        return nullptr;
    const uintptr_t base = (off & 1) ? g_pc_base_far.load(std::memory_order_relaxed) : pc_base();
    return reinterpret_cast<const void *>(base + (intptr_t)(off >> 1));
}

/* A two-way set-associative cache, per host thread, of which device regions
 * overlap a 4 KB page: most lookups, of tracked memory or not (a __device__
 * variable, host memory), end here without a search. A slot holds the page's
 * regions when there are at most two; PageSlot::many sends the lookup to the
 * search. Two ways, because a kernel's loop may read other static data (a
 * __device__ variable, or the built-in indices through a pointer: a page of
 * static TLS) between its accesses to a buffer: direct-mapped, a buffer's page
 * that shared that page's slot missed every time. */
struct PageSlot {
    uintptr_t page;  /* page number, kNoPage if the slot is empty */
    Region *r[2];    /* the regions overlapping it (null: fewer) */
    bool many;       /* more than two overlap it */
};
constexpr uintptr_t kNoPage = ~uintptr_t(0);
constexpr unsigned kPageShift = 12;
constexpr size_t kPageSlots = 1024;
struct PageCache {
    uint32_t gen;                /* g_regions_gen it was filled under */
    PageSlot slots[kPageSlots];
};
/* The set of a page's two slots: the page number hashed, so that pages a stride apart (a
 * grid-stride loop's) spread over the sets. */
inline size_t page_set(uintptr_t pg)
{
    return (size_t)((uint64_t)pg * 0x9E3779B97F4A7C15ull >> 32) % (kPageSlots / 2) * 2;
}
thread_local PageCache *tl_pages; /* this host thread's, freed when it ends */

/* Frees a host thread's caches when it ends. */
struct ThreadCaches {
    ~ThreadCaches();
};
thread_local ThreadCaches tl_caches;

/* This host thread's page cache, emptied if device regions changed since. */
PageCache *page_cache()
{
    PageCache *pc = tl_pages;
    uint32_t gen = g_regions_gen.load(std::memory_order_acquire);
    if (pc == nullptr) {
        (void)&tl_caches; /* registers its destructor */
        pc = tl_pages = new PageCache();
    }
    else if (pc->gen == gen)
        return pc;
    pc->gen = gen;
    for (PageSlot &p : pc->slots)
        p.page = kNoPage;
    return pc;
}

/* The device region holding address A, or null: the search, which also
 * fills A's page slot. */
__attribute__((noinline)) Region *search_region(uintptr_t a)
{
    uintptr_t pg = a >> kPageShift, pg_lo = pg << kPageShift, pg_hi = pg_lo + (1u << kPageShift);
    for (;;) {
        uint32_t gen = g_regions_gen.load(std::memory_order_acquire);
        if (gen & 1) {
            __builtin_ia32_pause();
            continue;
        }
        const RegionTable *t = g_table.load(std::memory_order_acquire);
        size_t n = std::min(__atomic_load_n(&t->n, __ATOMIC_RELAXED), t->cap);
        /* The last region starting below the page's end, and those before it
         * that still reach into the page. */
        Region *const *it = std::upper_bound(
            t->items, t->items + n, pg_hi - 1,
            [](uintptr_t x, const Region *q) { return q == nullptr || x < q->lo; });
        PageSlot slot{pg, {nullptr, nullptr}, false};
        Region *found = nullptr;
        unsigned k = 0;
        for (Region *const *j = it; j != t->items;) {
            Region *q = *--j;
            if (q == nullptr || q->hi <= pg_lo)
                break; /* below the page, as are all before it (sorted, disjoint) */
            if (a - q->lo < q->hi - q->lo)
                found = q;
            if (k < 2)
                slot.r[k++] = q;
            else
                slot.many = true;
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        if (g_regions_gen.load(std::memory_order_relaxed) != gen)
            continue; /* the table changed while we read it */
        PageCache *pc = page_cache();
        if (pc->gen == gen) { /* the newest first in its set, the other way keeps the last */
            PageSlot *set = &pc->slots[page_set(pg)];
            set[1] = set[0];
            set[0] = slot;
        }
        return found;
    }
}

/* The regions the last two lookups of this host thread found, the latest first: a kernel's
 * loop reads a few buffers, in strides whose pages need not spread over the page cache's
 * slots. An entry holds while g_regions_gen is what it was then and, for a block's shared
 * memory, for that block's threads (cleared when a block of this host thread ends). */
struct RecentRegion {
    uintptr_t lo, size; /* the region's bytes [lo, lo + size); size 0: none */
    Region *r;
    const Block *block; /* the block whose shared memory it is; null: device memory */
    uint32_t gen;       /* g_regions_gen when it was found */
};
thread_local RecentRegion tl_recent[2];

/* find_region past tl_recent: T's block's shared memory (T: the running CUDA thread, or null),
 * or device memory. */
__attribute__((noinline)) Region *find_region_slow(uintptr_t a, const Thread *t)
{
    if (t != nullptr)
        for (Region *r : t->block->regions)
            if (a - r->lo < r->hi - r->lo)
                return r;
    PageCache *pc = tl_pages;
    if (__builtin_expect(pc != nullptr && pc->gen == g_regions_gen.load(std::memory_order_relaxed), 1)) {
        const uintptr_t pg = a >> kPageShift;
        const PageSlot *set = &pc->slots[page_set(pg)];
        const PageSlot &slot = set[set[0].page == pg ? 0 : 1];
        if (__builtin_expect(slot.page == pg && !slot.many, 1)) {
            for (Region *r : slot.r)
                if (r != nullptr && a - r->lo < r->hi - r->lo)
                    return r;
            return nullptr;
        }
    }
    return search_region(a);
}

/* The tracked region holding address A, or null: the running CUDA thread's
 * block's shared memory, or device memory (the two never overlap). */
__attribute__((always_inline)) inline Region *find_region(uintptr_t a)
{
    const Thread *t = g_thread;
    const Block *b = t != nullptr ? t->block : nullptr;
    const uint32_t gen = g_regions_gen.load(std::memory_order_relaxed);
    RecentRegion *e = tl_recent;
    if (a - e[0].lo < e[0].size && e[0].gen == gen && (e[0].block == nullptr || e[0].block == b))
        return e[0].r;
    if (a - e[1].lo < e[1].size && e[1].gen == gen && (e[1].block == nullptr || e[1].block == b)) {
        std::swap(e[0], e[1]);
        return e[0].r;
    }
    Region *r = find_region_slow(a, t);
    if (r != nullptr) {
        e[1] = e[0];
        const bool shared = r->kind == RegionKind::shared_static || r->kind == RegionKind::shared_dynamic;
        e[0] = RecentRegion{r->lo, r->hi - r->lo, r, shared ? b : nullptr, gen};
    }
    return r;
}

/* Whether R is a block's shared memory (its records carry block serials). */
bool is_shared(const Region *r)
{
    return r->kind == RegionKind::shared_static || r->kind == RegionKind::shared_dynamic;
}

/* ---- AddressSanitizer's check, done here ---------------------------------- */

__attribute__((noinline)) uintptr_t shadow_offset()
{
    size_t scale = 0;
    __asan_get_shadow_mapping(&scale, &g_shadow_offset);
    return g_shadow_offset;
}

__attribute__((always_inline)) inline bool poisoned(uintptr_t a, size_t n)
{
    const uintptr_t offset = __builtin_expect(g_shadow_offset != 0, 1) ? g_shadow_offset : shadow_offset();
    const int8_t *sh = reinterpret_cast<const int8_t *>((a >> 3) + offset);
    if (n <= 8) {
        int8_t s = sh[0];
        if (s != 0 && (int8_t)((a & 7) + n - 1) >= s)
            return true;
        if ((a & 7) + n > 8) {
            int8_t s2 = sh[1];
            if (s2 != 0 && (int8_t)((a + n - 1) & 7) >= s2)
                return true;
        }
        return false;
    }
    if (n == 16 && (a & 7) == 0 && sh[0] == 0 && sh[1] == 0)
        return false;
    return __asan_region_is_poisoned(reinterpret_cast<void *>(a), n) != nullptr;
}

/* ---- Reports -------------------------------------------------------------- */

/* "(x,y,z)" of the thread that made access X. */
std::string thread_of(const Access &x)
{
    return dim_str(unflatten(x.thread, g_launch->block));
}

/* The linear index (low 32 bits) of the block that made access X, of the running launch. */
uint32_t block_linear(const Access &x)
{
    return x.serial - g_launch->block_base;
}

/* "(x,y,z)" of the block that made access X. */
std::string block_of(const Access &x)
{
    return dim_str(unflatten(block_linear(x), g_launch->grid));
}

/* Uninitialized reads reported so far in this process, and the first one's
 * description (named again if tainted data reaches the host). */
std::atomic<unsigned> g_uninit_reports;
std::string &g_taint_origin = *new std::string();
unsigned g_unwritten_reports; /* copies of never-written bytes reported (host side) */
constexpr unsigned kMaxUninitReports = 3;

/* A read of bytes nothing wrote: a warning (the value is the 0xff poison; on a
 * GPU, whatever was there, so a wrong result shows here as NaN or -1). Thread T
 * is marked from here on, so that a copy to the host of what it wrote can say
 * where the data came from (check_written). */
void report_uninitialized(Thread *t, Region *r, uintptr_t a, size_t n, bool atomic,
                          const void *pc)
{
    t->tainted = true;
    if (g_uninit_reports.load(std::memory_order_relaxed) > kMaxUninitReports)
        return; /* the origin is set and the warnings are out */
    if (!report_begin_warning())
        return;
    struct Done {
        ~Done() { report_done(); }
    } done;
    if (g_taint_origin.empty())
        g_taint_origin = std::string("kernel ") + g_launch->name + ", block " +
                         dim_str(t->block->idx) + ", thread " + dim_str(t->idx) + ", at " +
                         where(pc);
    if (++g_uninit_reports > kMaxUninitReports) {
        return;
    }
    const char *verb = atomic ? "updates atomically" : "reads";
    if (is_shared(r)) {
        fprintf(stderr, "cuda-emu: warning: read of shared memory that no thread of the block has "
                        "written yet (missing __syncthreads()?) in kernel %s, block %s, thread %s\n",
                g_launch->name, dim_str(t->block->idx).c_str(), dim_str(t->idx).c_str());
        report_line("thread %s %s %s at %s", dim_str(t->idx).c_str(), verb,
                    describe_memory(reinterpret_cast<void *>(a), n).c_str(), where(pc).c_str());
        report_line("fresh shared memory holds no data from earlier blocks (here: the 0xff "
                    "poison), so a result computed from it shows as NaN or -1");
    } else {
        fprintf(stderr, "cuda-emu: warning: read of uninitialized device memory in kernel %s, "
                        "block %s, thread %s\n",
                g_launch->name, dim_str(t->block->idx).c_str(), dim_str(t->idx).c_str());
        report_line("thread %s %s %s at %s", dim_str(t->idx).c_str(), verb,
                    describe_memory(reinterpret_cast<void *>(a), n).c_str(), where(pc).c_str());
        report_line("nothing (no kernel, cudaMemcpy or cudaMemset) has written these bytes "
                    "since the allocation (they hold the 0xff poison: a result computed from them shows as "
                    "NaN or -1)");
    }
    if (g_uninit_reports == kMaxUninitReports)
        report_line("(further uninitialized reads are not listed)");
}

/* printf into a string (a report's line, held: Block::warp_race). */
std::string line_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string line_of(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

/* The advice of a race between lanes of one warp, when no thread of another warp races on
 * that memory before the block's next barrier (or its end). */
void warp_sync_advice(unsigned warp)
{
    report_line("both threads are in warp %u, and no thread of another warp races on this memory "
                "before the next __syncthreads(): code that counts on a warp's lanes running "
                "in lockstep (a warp-synchronous reduction on volatile shared memory) "
                "races since Volta, whose lanes are scheduled independently "
                "(compute-sanitizer's racecheck reports it too); put a __syncwarp() "
                "between the steps (a read into a register, __syncwarp(), then the "
                "write), or use __shfl_down_sync", warp);
}

/* Reports the race that B holds (between lanes of warp W), then says that thread OTHER (of
 * warp OTHER_WARP) VERB the same memory at PLACE with nothing ordering it: other warps share
 * it, so a __syncthreads() is what orders them. */
void report_held_race_across(Block *b, const std::string &other, unsigned other_warp,
                             const char *verb, const std::string &place)
{
    Block::WarpRace &h = b->warp_race;
    report_head(h.shared ? "data race on shared memory" : "data race on device memory", b, h.t);
    report_line("%s", h.lines[0].c_str());
    report_line("%s", h.lines[1].c_str());
    report_line("thread %s (warp %u) of the same block %s this %s memory too, at %s, with nothing "
                "ordering it: the threads that touch it are not all in warp %u, so a "
                "__syncwarp() (which orders one warp) cannot fix it; put a __syncthreads() "
                "between the writes and the reads",
                other.c_str(), other_warp, verb, h.shared ? "shared" : "device", place.c_str(),
                h.warp);
    h.t = nullptr;
}

/* A race of T's access ME (a write when ME_WRITES) of N bytes at A in R against OTHER. One
 * between two lanes of one warp is held (Block::warp_race) and the thread goes on: whether
 * __syncwarp() fixes it depends on whether threads of other warps race on that memory too,
 * which the rest of the block's phase tells (the first such race reports it with
 * __syncthreads()'s advice; warp_race_end, at the barrier, with __syncwarp()'s). Every other
 * race is reported at once and ends the launch. */
void report_race(Thread *t, Region *r, uintptr_t a, size_t n, const Access &me,
                 const Access &other, bool me_writes)
{
    bool same_block = other.serial == me.serial;
    Block *b = t->block;
    const bool async = (me.flags | other.flags) & acc_async;
    const char *my_verb = me_writes ? ((me.flags & acc_atomic) ? "updates atomically" : "writes")
                                    : "reads";
    const char *other_verb = me_writes ? "read" : ((other.flags & acc_atomic) ? "updated"
                                                   : (other.flags & acc_async) ? "wrote it by an asynchronous copy (cp.async) issued"
                                                                               : "wrote");
    const unsigned my_warp = me.thread / kWarpSize, other_warp = other.thread / kWarpSize;
    if (same_block && !async && my_warp == other_warp) {
        Block::WarpRace &h = b->warp_race;
        if (h.t == nullptr) { /* the first: held; later ones of one warp add nothing */
            h.t = t;
            h.region = r;
            h.shared = is_shared(r);
            h.warp = my_warp;
            h.lines[0] = line_of("thread %s %s %s at %s", dim_str(t->idx).c_str(), my_verb,
                                 describe_memory(reinterpret_cast<void *>(a), n).c_str(),
                                 where(pc_from(me.pc)).c_str());
            h.lines[1] = line_of("thread %s of the same block %s it at %s, and no "
                                 "__syncthreads() (nor a __syncwarp(), atomic or fence) orders "
                                 "the two: the result depends on which thread runs first",
                                 thread_of(other).c_str(), other_verb,
                                 where(pc_from(other.pc)).c_str());
        }
        return;
    }
    tl_async_copy = false; /* this launch ends here */
    if (same_block && !async && b->warp_race.t != nullptr && b->warp_race.region == r) {
        /* another warp races on the memory of the race held: the two warps need a barrier */
        const bool mine_other = my_warp != b->warp_race.warp;
        report_held_race_across(b, mine_other ? dim_str(t->idx) : thread_of(other),
                                mine_other ? my_warp : other_warp,
                                mine_other ? (me_writes ? "writes" : "reads")
                                           : (me_writes ? "read" : "wrote"),
                                where(pc_from(mine_other ? me.pc : other.pc)));
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    report_head(is_shared(r) ? "data race on shared memory" : "data race on device memory",
                t->block, t);
    if (me.flags & acc_async)
        report_line("thread %s's asynchronous copy (cp.async) issued at %s writes %s",
                    dim_str(t->idx).c_str(), where(pc_from(me.pc)).c_str(),
                    describe_memory(reinterpret_cast<void *>(a), n).c_str());
    else
        report_line("thread %s %s %s at %s", dim_str(t->idx).c_str(), my_verb,
                    describe_memory(reinterpret_cast<void *>(a), n).c_str(), where(pc_from(me.pc)).c_str());
    if (same_block && async) {
        report_line("thread %s of the same block %s%s at %s, and nothing orders the two: an "
                    "asynchronous copy may write any time from where it is issued until the "
                    "issuing thread's wait for it returns",
                    thread_of(other).c_str(), other_verb, (other.flags & acc_async) ? "" : " it",
                    where(pc_from(other.pc)).c_str());
        report_line("wait for the copy (cp.async.wait_group or wait_all, __pipeline_wait_prior), "
                    "then __syncthreads(), before other threads read what it copies; and put a "
                    "__syncthreads() between the last reads of a buffer and the copies that refill it");
    } else if (same_block) {
        report_line("thread %s (warp %u) of the same block %s it at %s, and no __syncthreads() "
                    "(nor an atomic or fence) orders the two: the result depends on which "
                    "thread runs first",
                    thread_of(other).c_str(), other_warp, other_verb,
                    where(pc_from(other.pc)).c_str());
        report_line(is_shared(r) ? "the two threads are in different warps (%u and %u): put a "
                                   "__syncthreads() between the write and the read"
                                 : "the two threads are in different warps (%u and %u): use an "
                                   "atomic operation (atomicAdd ...) or a __syncthreads() "
                                   "between the two",
                    my_warp, other_warp);
    } else {
        report_line("thread %s of block %s %s it at %s; blocks run in no fixed order, so the "
                    "result depends on timing: use atomic operations, or exchange data between "
                    "kernels",
                    thread_of(other).c_str(), block_of(other).c_str(), other_verb,
                    where(pc_from(other.pc)).c_str());
    }
    fail_from_fiber(cudaErrorLaunchFailure);
}

/* Reports T's write at PC of N bytes at A that left a value other than what
 * thread OTHER_THREAD of block OTHER_BLOCK wrote there at OTHER_PC, with
 * nothing ordering the two (settle_writes). */
[[noreturn]] void report_write_race(Thread *t, bool shared, uintptr_t a, size_t n, const void *pc,
                                    uint32_t other_block, uint16_t other_thread, int32_t other_pc)
{
    const uint3 other = unflatten(other_thread, g_launch->block);
    Block *b = t->block;
    if (other_block == (uint32_t)b->linear && b->warp_race.t != nullptr &&
        b->warp_race.region == find_region(a)) {
        const bool mine_other = t->tid / kWarpSize != b->warp_race.warp;
        report_held_race_across(b, dim_str(mine_other ? t->idx : other),
                                (mine_other ? t->tid : other_thread) / kWarpSize,
                                mine_other ? "writes" : "wrote",
                                mine_other ? where(pc) : where(pc_from(other_pc)));
        fail_from_fiber(cudaErrorLaunchFailure);
    }
    report_head(shared ? "data race on shared memory: two writes of different values"
                       : "data race on device memory: two writes of different values",
                t->block, t);
    report_line("thread %s writes %s at %s", dim_str(t->idx).c_str(),
                describe_memory(reinterpret_cast<void *>(a), n).c_str(), where(pc).c_str());
    if (other_block == (uint32_t)t->block->linear)
        report_line("thread %s (warp %u) of the same block wrote another value there at %s, and no "
                    "__syncthreads() (nor a __threadfence()) orders the two: which value stays "
                    "depends on which warp runs last, which no GPU fixes",
                    dim_str(other).c_str(), (unsigned)(other_thread / kWarpSize),
                    where(pc_from(other_pc)).c_str());
    else
        report_line("thread %s of block %s wrote another value there at %s; blocks run in no fixed "
                    "order, so which value stays depends on timing",
                    dim_str(other).c_str(), dim_str(unflatten(other_block, g_launch->grid)).c_str(),
                    where(pc_from(other_pc)).c_str());
    report_line("threads may all write one value to a word (a flag); otherwise give each its own "
                "word, order the writes with __syncthreads(), or combine the values with an "
                "atomic (atomicAdd, atomicMax ...)");
    fail_from_fiber(cudaErrorLaunchFailure);
}

/* ---- The checks ------------------------------------------------------------ */

/* Whether ORIGIN, made by another thread, may still be concurrent with ME by
 * thread T (see the top of this file). */
bool concurrent(const Access &origin, const Access &me, const Thread *t)
{
    if (origin.serial == me.serial && origin.thread == me.thread)
        return false;
    bool synced_since = t->last_sync > origin.clock;
    if (origin.serial != me.serial)
        return !synced_since && !((origin.flags | me.flags) & (acc_atomic | acc_released));
    const Block *b = t->block;
    /* (a record older than the block's last phase change was made in an earlier phase) */
    if (origin.clock < b->phase_clock || synced_since)
        return false;
    if (origin.thread / kWarpSize == me.thread / kWarpSize && !b->warp_clock.empty()) {
        size_t warp = me.thread / kWarpSize;
        uint32_t known = b->warp_clock[(warp * kWarpSize + me.thread % kWarpSize) * kWarpSize +
                                       origin.thread % kWarpSize];
        if (known > origin.clock) /* a __syncwarp of its thread after it, known to this one */
            return false;
    }
    return true;
}

/* Whether ORIGIN, a write by another thread, may still be concurrent with the
 * write ME by thread T, for the write-write check: as concurrent(), but only a
 * barrier, a __syncwarp() or a fence orders them. An atomic orders no other
 * memory in CUDA; the race checker's other rules take a thread's atomic as
 * ordering what it then reads (the ticket of a last-block reduction, which a
 * fence goes with on a GPU), but two warps that each add to a total and then
 * store what they saw leave whichever value is stored last. */
bool writes_concurrent(const Access &origin, const Access &me, const Thread *t)
{
    if (origin.serial == me.serial && origin.thread == me.thread)
        return false;
    if (t->last_fence > origin.clock)
        return false;
    if (origin.serial != me.serial)
        return true;
    const Block *b = t->block;
    if (origin.clock < b->phase_clock)
        return false;
    if (origin.thread / kWarpSize == me.thread / kWarpSize && !b->warp_clock.empty()) {
        size_t warp = me.thread / kWarpSize;
        uint32_t known = b->warp_clock[(warp * kWarpSize + me.thread % kWarpSize) * kWarpSize +
                                       origin.thread % kWarpSize];
        if (known > origin.clock)
            return false;
    }
    return true;
}

/* atomic_exch: an atomic that does not depend on the old value (atomicExch):
 * no uninitialized read, however it is used after. */
enum class Op { read, write, atomic, atomic_exch };

/* Device memory's cells are shared by the workers running blocks at once: each is checked and
 * updated under its own lock, the acc_locked bit of its write record's flags, held while a
 * worker checks and updates it, never with another. A lock in the cell's own line costs no
 * line of its own, and two workers contend only for one cell, not for a lock that cells of
 * their blocks share. (A write stores its record with the bit set.) */
__attribute__((always_inline)) inline void lock_cell(Cell &c)
{
    uint8_t *l = &c.write.flags;
    while (__atomic_fetch_or(l, (uint8_t)acc_locked, __ATOMIC_ACQUIRE) & acc_locked)
        while (__atomic_load_n(l, __ATOMIC_RELAXED) & acc_locked)
            __builtin_ia32_pause();
}
__attribute__((always_inline)) inline void unlock_cell(Cell &c)
{
    __atomic_store_n(&c.write.flags, (uint8_t)(c.write.flags & ~acc_locked), __ATOMIC_RELEASE);
}

/* One granule G of an access: BYTES are the bytes of it the access covers; LOCKED: its cell
 * is locked while it is checked (a compiled-in choice, so that a single worker's check has no
 * trace of the lock). Reports come after the cell is unlocked (a race report does not return). */
template <bool locked>
__attribute__((always_inline)) inline void check_granule(Region *r, Thread *t, uintptr_t a,
                                                         size_t n, Op op, const void *pc,
                                                         const Access &me, uintptr_t g,
                                                         uint8_t bytes)
{
    /* A record of this launch (device memory), or of this block (shared memory: its cells
     * were a finished block's). */
    const bool shared = is_shared(r);
    const uint32_t base = shared ? me.serial : g_launch->block_base;
    const uint32_t span = shared ? 1u : (uint32_t)std::min<unsigned long long>(g_launch->nblocks, UINT32_MAX);
    auto current = [&](const Access &x) { return x.serial - base < span; };
    Cell &c = r->cells[g];
    /* The next line of cells, which the next threads are likely to need: threads run one after
     * another, and coalesced code has thread i + 1 touch the word after thread i's; a kernel
     * that touches many buffers (or a grid-stride loop's many strides) between two threads
     * has more streams than the CPU's prefetcher follows. (A prefetch never faults.) */
    __builtin_prefetch(reinterpret_cast<const char *>(&r->cells[g]) + kPrefetchAhead, 1);
    if (locked)
        lock_cell(c);
    bool uninit = false;
    int race = 0; /* 1: against the last write, 2: a write against the last read */
    Access other;
    const bool reads = op == Op::read || op == Op::atomic;
    if (op == Op::atomic_exch)
        op = Op::atomic;
    if (reads && r->kind != RegionKind::managed && (r->written[g] & bytes) != bytes) {
        uninit = true;
        t->tainted = true;
    }
    if (reads && (r->tainted[g] & bytes))
        t->tainted = true;
    /* Races are per byte: only accesses that share a byte conflict. */
    if (op == Op::read) {
        /* A plain read against another thread's atomic update is no race: it
         * reads one value or the other, as a relaxed load would (the "check,
         * then atomically claim" pattern). */
        if (current(c.write) && (c.write.bytes & bytes) && !(c.write.flags & acc_atomic) &&
            concurrent(c.write, me, t)) {
            race = 1;
            other = c.write;
        }
        /* The cell keeps one read. Another thread's read that nothing orders
         * before this one stays: a later write by this thread still races
         * with it (a warp-synchronous reduction without __syncwarp: lane 0
         * reads s[1], lane 1 then reads s[1] and writes it). */
        if (!(current(c.read) && (c.read.bytes & bytes) == bytes &&
              concurrent(c.read, me, t))) {
            c.read = me;
            c.read.bytes = bytes;
        }
    } else {
        if (op == Op::atomic && current(c.write) && !(c.write.flags & acc_atomic) &&
            (c.write.bytes & bytes) && concurrent(c.write, me, t)) {
            race = 1;
            other = c.write;
        } else if (op == Op::write && current(c.read) && (c.read.bytes & bytes) &&
                   concurrent(c.read, me, t)) {
            race = 2;
            other = c.read;
        }
        /* Another warp's or block's write of the same bytes that nothing orders
         * before this one: a race if the values differ, known once this one is
         * in memory (settle_writes). */
        if (op == Op::write && race == 0 && current(c.write) && (c.write.bytes & bytes) &&
            !(c.write.flags & acc_atomic) &&
            (c.write.serial != me.serial || c.write.thread / kWarpSize != me.thread / kWarpSize) &&
            t->ww_count < sizeof t->ww / sizeof t->ww[0] && writes_concurrent(c.write, me, t) &&
            /* a thread of another block running now may not have stored its value yet */
            !(c.write.serial != me.serial && g_launch->parallel &&
              thread_running(block_linear(c.write), c.write.thread))) {
            auto &w = t->ww[t->ww_count++];
            w.granule = r->lo + g * 4;
            w.bytes = c.write.bytes & bytes;
            for (unsigned i = 0; i < 4; ++i)
                w.before[i] = (w.bytes >> i & 1) ? reinterpret_cast<const volatile uint8_t *>(w.granule)[i] : 0;
            w.shared = is_shared(r);
            w.other_block = block_linear(c.write);
            w.other_thread = c.write.thread;
            w.other_pc = c.write.pc;
            w.pc = pc;
        }
        if (locked) {
            Access w = me;
            w.bytes = bytes;
            w.flags |= acc_locked; /* (still held) */
            c.write = w;
        } else {
            c.write = me;
            c.write.bytes = bytes;
        }
        r->written[g] |= bytes;
        if (t->tainted)
            r->tainted[g] |= bytes;
        else
            r->tainted[g] &= (uint8_t)~bytes;
    }
    if (locked)
        unlock_cell(c);
    if (__builtin_expect(uninit, 0))
        report_uninitialized(t, r, a, n, op == Op::atomic, pc);
    if (__builtin_expect(race != 0, 0))
        report_race(t, r, a, n, me, other, op != Op::read);
}

/* The race and uninitialized-read checks of an access of N bytes at A (in
 * region R) by thread T at PC, and its record. */
void check(Region *r, Thread *t, uintptr_t a, size_t n, Op op, const void *pc)
{
    const Launch &L = *g_launch;
    uintptr_t off = a - r->lo;
    if (off + n > r->hi - r->lo)
        n = r->hi - r->lo - off;
    Access me;
    me.serial = t->block->serial;
    me.clock = L.clock.load(std::memory_order_relaxed);
    me.pc = pc_offset(pc);
    me.thread = (uint16_t)t->tid;
    me.flags = (op == Op::atomic || op == Op::atomic_exch ? acc_atomic : 0) |
               (t->last_sync != 0 && t->sync_phase == t->phase ? acc_released : 0) |
               (tl_async_copy ? acc_async : 0);
    me.bytes = 0;
    const bool locked = L.parallel && !is_shared(r);
    if ((off & 3) + n <= 4) { /* the common case: within one granule */
        const uint8_t bytes = (uint8_t)(((1u << n) - 1) << (off & 3));
        if (locked)
            check_granule<true>(r, t, a, n, op, pc, me, off / 4, bytes);
        else
            check_granule<false>(r, t, a, n, op, pc, me, off / 4, bytes);
        return;
    }
    for (uintptr_t g = off / 4; g <= (off + n - 1) / 4; ++g) {
        uintptr_t from = std::max<uintptr_t>(off, g * 4), to = std::min<uintptr_t>(off + n, g * 4 + 4);
        const uint8_t bytes = (uint8_t)(((1u << (to - from)) - 1) << (from - g * 4));
        if (locked)
            check_granule<true>(r, t, a, n, op, pc, me, g, bytes);
        else
            check_granule<false>(r, t, a, n, op, pc, me, g, bytes);
    }
}

/* A load by T of ADDR: a long run of loads of the same few addresses (a flag,
 * and gridDim or a loop bound), with no store in between, is a thread polling
 * memory that another thread is to change; let the others run. A loop that
 * reads through an array touches new addresses and is never taken for one. */
__attribute__((always_inline)) inline void note_load(Thread *t, uintptr_t a, const void *pc)
{
    uint32_t k = 0;
    while (k < t->spin_addrs && t->spin_addr[k] != a)
        ++k;
    if (k == t->spin_addrs) {
        if (t->spin_addrs == 4) {
            t->spin_addrs = 0;
            t->spin_count = 0;
        }
        t->spin_addr[t->spin_addrs++] = a;
    }
    if (++t->spin_count < kSpinRun)
        return;
    t->spin_count = 0;
    t->spin_pc = pc;
    wait_here(ThreadState::spinning, pc);
}

/* A store (or an atomic that changed memory): T is doing work, not polling. */
__attribute__((always_inline)) inline void note_store(Thread *t)
{
    t->spin_count = 0;
    t->spin_addrs = 0;
}

} // namespace

bool warp_race_end(Block *b)
{
    Block::WarpRace &h = b->warp_race;
    if (h.t == nullptr)
        return false;
    report_head(h.shared ? "data race on shared memory" : "data race on device memory", b, h.t);
    report_line("%s", h.lines[0].c_str());
    report_line("%s", h.lines[1].c_str());
    warp_sync_advice(h.warp);
    h.t = nullptr;
    fail_launch(cudaErrorLaunchFailure);
    return true;
}

void settle_writes(Thread *t)
{
    const unsigned n = t->ww_count;
    t->ww_count = 0;
    for (unsigned k = 0; k < n; ++k) {
        const auto &w = t->ww[k];
        for (unsigned i = 0; i < 4; ++i)
            if ((w.bytes >> i & 1) && reinterpret_cast<const volatile uint8_t *>(w.granule)[i] != w.before[i]) {
                unsigned first = (unsigned)__builtin_ctz(w.bytes), last = 31u - (unsigned)__builtin_clz(w.bytes);
                report_write_race(t, w.shared, w.granule + first, last - first + 1, w.pc, w.other_block,
                                  w.other_thread, w.other_pc);
            }
    }
}

namespace {

/* ---- Memory a kernel cannot reach ------------------------------------------
 * An address a kernel touches that is in no tracked region (device, managed
 * or shared memory) and not on its own stack must still be memory a GPU
 * kernel could use: a __device__ or __constant__ variable (the loaded
 * objects' static data), host memory from cudaHostAlloc or cudaHostRegister,
 * memory a kernel allocated itself (malloc or new in device code), or the
 * host thread's static TLS (the emulator's threadIdx and blockIdx live
 * there). Anything else, a host malloc, a host local variable, an address
 * far past an allocation, is an illegal address on a GPU, and an error here.
 * The answers are cached per host thread as spans of memory found reachable;
 * cudaFreeHost and cudaHostUnregister drop every cache (g_reach_epoch). */

/* Memory the running kernels allocated themselves (malloc or new in device
 * code): the start of each such heap block. AddressSanitizer's allocator
 * calls the hooks below for every allocation and free of the process. */
std::mutex &g_device_heap_mutex = *new std::mutex();
std::unordered_set<uintptr_t> &g_device_heap = *new std::unordered_set<uintptr_t>();
std::atomic<size_t> g_device_heap_count{0};
std::atomic<uint32_t> g_reach_epoch{1};
thread_local bool tl_in_heap_hook; /* the set's own allocation, inside the hook */

void on_malloc(const volatile void *p, size_t size)
{
    (void)size;
    if (g_thread == nullptr || tl_in_heap_hook || tl_runtime_allocating != 0 || p == nullptr)
        return;
    tl_in_heap_hook = true;
    {
        std::lock_guard<std::mutex> lock(g_device_heap_mutex);
        if (g_device_heap.insert(reinterpret_cast<uintptr_t>(p)).second)
            g_device_heap_count.fetch_add(1, std::memory_order_relaxed);
    }
    tl_in_heap_hook = false;
}

void on_free(const volatile void *p)
{
    if (g_device_heap_count.load(std::memory_order_relaxed) == 0 || tl_in_heap_hook)
        return;
    tl_in_heap_hook = true;
    {
        std::lock_guard<std::mutex> lock(g_device_heap_mutex);
        /* A span cached for it stays: AddressSanitizer keeps freed memory
         * poisoned (the bounds check reports a use after free) for long. */
        if (g_device_heap.erase(reinterpret_cast<uintptr_t>(p)) != 0)
            g_device_heap_count.fetch_sub(1, std::memory_order_relaxed);
    }
    tl_in_heap_hook = false;
}

bool in_device_heap(uintptr_t block_start)
{
    if (g_device_heap_count.load(std::memory_order_relaxed) == 0)
        return false;
    std::lock_guard<std::mutex> lock(g_device_heap_mutex);
    return g_device_heap.count(block_start) != 0;
}

/* Addresses [lo, hi). */
struct Span {
    uintptr_t lo, hi;
};

/* Spans a host thread found reachable, most recent first. */
struct ReachCache {
    uint32_t epoch;
    Span span[6];
};
thread_local ReachCache tl_reach;

/* The static data of every loaded object (PT_LOAD segments), sorted. */
std::mutex &g_segments_mutex = *new std::mutex();
std::vector<Span> &g_segments = *new std::vector<Span>();
unsigned long long g_segments_stamp = ~0ull; /* dlpi_adds + dlpi_subs when read */

int read_stamp(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *static_cast<unsigned long long *>(out) = info->dlpi_adds + info->dlpi_subs;
    return 1; /* the first object is enough */
}

int collect_segments(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    auto *v = static_cast<std::vector<Span> *>(out);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && ph.p_memsz != 0) {
            uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
            v->push_back(Span{lo, lo + ph.p_memsz});
        }
    }
    return 0;
}

/* The loaded object's segment that holds A, in *SPAN; false if none. */
bool in_loaded_object(uintptr_t a, Span *span)
{
    auto find = [&] {
        auto it = std::upper_bound(g_segments.begin(), g_segments.end(), a,
                                   [](uintptr_t x, const Span &s) { return x < s.lo; });
        if (it == g_segments.begin() || a >= (it - 1)->hi)
            return false;
        *span = *(it - 1);
        return true;
    };
    {
        std::lock_guard<std::mutex> lock(g_segments_mutex);
        if (find())
            return true;
    }
    /* Not in what was loaded when the list was read: read it again if an
     * object was loaded or unloaded since. */
    unsigned long long stamp = 0;
    dl_iterate_phdr(read_stamp, &stamp);
    std::lock_guard<std::mutex> lock(g_segments_mutex);
    if (stamp != g_segments_stamp) {
        std::vector<Span> fresh;
        dl_iterate_phdr(collect_segments, &fresh);
        std::sort(fresh.begin(), fresh.end(),
                  [](const Span &x, const Span &y) { return x.lo < y.lo; });
        g_segments.swap(fresh);
        g_segments_stamp = stamp;
    }
    return find();
}

/* This host thread's static TLS, in *SPAN: glibc puts it next to the thread
 * pointer (below it on x86-64, above it on AArch64), with the thread control
 * block on the other side. */
void static_tls(Span *span)
{
    static size_t size = [] {
        size_t sz = 0, align = 0;
        auto info = reinterpret_cast<void (*)(size_t *, size_t *)>(
            dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
        if (info != nullptr)
            info(&sz, &align);
        return sz != 0 ? sz : (size_t)1 << 16;
    }();
    uintptr_t tp = reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
    *span = Span{tp - size, tp + size + 4096};
}

/* Where host code allocated the heap block at BLOCK: the first frame of its
 * allocation stack in the program (past the allocator and the C++ library). */
std::string allocated_at(uintptr_t block)
{
    void *trace[16];
    int tid = 0;
    size_t n = __asan_get_alloc_stack(reinterpret_cast<void *>(block), trace, 16, &tid);
    for (size_t i = 0; i < n; ++i) {
        std::string w = where(trace[i], true);
        if (!w.empty())
            return w;
    }
    return "an unknown place";
}

/* Whether heap block BLOCK was allocated by the program's code, not by the emulator's or the
 * grader's worker's own (common/emu/, grader/: their bookkeeping, none of it the program's) */
bool allocated_by_program(uintptr_t block)
{
    const std::string at = allocated_at(block);
    return at.find("common/emu/") == std::string::npos && at.rfind("grader/", 0) != 0 &&
           at.find("/grader/") == std::string::npos;
}

/* The nearest device allocation to A (tracked regions only), described; its distance from A
 * in *DISTANCE (UINTPTR_MAX with none) when DISTANCE is given. */
std::string nearest_allocation(uintptr_t a, uintptr_t *distance, bool *past = nullptr)
{
    const RegionTable *t = g_table.load(std::memory_order_acquire);
    size_t n = std::min(__atomic_load_n(&t->n, __ATOMIC_RELAXED), t->cap);
    const Region *best = nullptr;
    uintptr_t best_d = UINTPTR_MAX;
    for (size_t i = 0; i < n; ++i) {
        const Region *q = t->items[i];
        uintptr_t d = a >= q->hi ? a - q->hi : q->lo - a;
        if (d < best_d) {
            best_d = d;
            best = q;
        }
    }
    if (distance)
        *distance = best_d;
    if (past)
        *past = best != nullptr && a >= best->hi;
    if (best == nullptr)
        return "";
    char buf[256];
    snprintf(buf, sizeof buf, "; the nearest device allocation, of %zu bytes (made at %s), %s it by %zu bytes",
             (size_t)(best->hi - best->lo), where(best->alloc_pc).c_str(),
             a >= best->hi ? "ends before" : "starts after", (size_t)best_d);
    return buf;
}

/* Whether the page of A is mapped in this process at all (mincore fails with ENOMEM on a
 * page nothing maps). */
bool mapped_here(uintptr_t a)
{
    unsigned char in_core;
    const uintptr_t page = a & ~(uintptr_t)4095;
    return mincore(reinterpret_cast<void *>(page), 1, &in_core) == 0 || errno != ENOMEM;
}

/* Looks up A, which no tracked region holds, for the running thread T:
 * returns when a kernel may use it (and caches its span), else reports. */
__attribute__((noinline)) void check_reachable_slow(Thread *t, uintptr_t a, size_t n, bool write,
                                                    const void *pc)
{
    Span span;
    uintptr_t lo = 0, hi = 0;
    bool ok = false, outside = false; /* outside: in no memory at all (an index out of range) */
    bool past = false;                /* beyond the nearest allocation's end (else before it) */
    bool null = false;                /* within 64 KB of address 0: a null pointer, indexed */
    bool unmapped = false;            /* in no memory of the process, far from every buffer */
    uintptr_t distance = UINTPTR_MAX; /* bytes from the nearest allocation */
    std::string what;
    static_tls(&span);
    if (a - span.lo < span.hi - span.lo)
        ok = true;
    else if (in_loaded_object(a, &span))
        ok = true;
    else if (host_mapped_span(a, &lo, &hi)) {
        span = Span{lo, hi};
        ok = true;
    } else {
        void *begin = nullptr;
        size_t size = 0;
        const char *kind = __asan_locate_address(reinterpret_cast<void *>(a), nullptr, 0, &begin, &size);
        uintptr_t b = reinterpret_cast<uintptr_t>(begin);
        bool heap = kind != nullptr && strcmp(kind, "heap") == 0;
        if (heap && in_device_heap(b)) {
            span = Span{b, b + size};
            ok = true;
        } else if (heap && !allocated_by_program(b)) {
            /* the emulator's or the worker's own bookkeeping, which can lie beside a buffer the
             * kernel was given: an index run past that buffer, never the program's host memory */
            what = ", which belongs to no allocation of your program" +
                   nearest_allocation(a, &distance, &past);
            outside = true;
        } else if (heap) {
            char buf[256];
            snprintf(buf, sizeof buf, ", %zu bytes into a %zu-byte block of host memory (malloc, new or a std::vector) allocated at ",
                     (size_t)(a - b), size);
            what = buf + allocated_at(b);
        } else if (kind != nullptr && strcmp(kind, "stack") == 0) {
            what = ", on the stack of a host thread (a local variable of host code)";
        } else {
            what = ", which belongs to no allocation" + nearest_allocation(a, &distance, &past);
            /* an index run past a buffer: near one, or far from every one in memory the
             * process never mapped (out[i + 100000000]); host memory's advice is for an
             * address the host mapped (a host variable, a host pointer passed on) */
            null = a < (64u << 10);
            outside = !null && (distance < (64u << 20) ||
                                (distance < (64ull << 30) && !mapped_here(a)));
            unmapped = !null && !outside && !mapped_here(a);
        }
    }
    if (ok) {
        ReachCache &c = tl_reach;
        std::memmove(&c.span[1], &c.span[0], sizeof c.span - sizeof c.span[0]);
        c.span[0] = span;
        return;
    }
    report_head(outside ? (write ? "a kernel writes outside every allocation"
                                 : "a kernel reads outside every allocation")
                        : (write ? "a kernel writes memory that is not device memory"
                                 : "a kernel reads memory that is not device memory"),
                t->block, t);
    report_line("thread %s %s %zu byte%s at address %p%s, at %s", dim_str(t->idx).c_str(),
                write ? "writes" : "reads", n, n == 1 ? "" : "s", reinterpret_cast<void *>(a),
                what.c_str(), where(pc).c_str());
    if (outside && distance != UINTPTR_MAX) /* an index gone past a buffer, not a host pointer */
        report_line("an index out of range (or a pointer moved past its buffer): the address is "
                    "%zu bytes (%zu elements of %zu bytes) %s the nearest device allocation; "
                    "compare the index this line computes with the size of the buffer it "
                    "indexes, for this block and thread; the sizes the check used are in its "
                    "line above",
                    (size_t)distance, (size_t)distance / n, n,
                    past ? "past the end of" : "before the start of");
    else if (outside)
        report_line("an index out of range (or a pointer moved past its buffer): compare the "
                    "index this line computes with the size of the buffer it indexes, for this "
                    "block and thread; the sizes the check used are in its line above");
    else if (null)
        report_line("a null pointer, indexed (the address is %zu bytes past 0): a buffer never "
                    "allocated, or a pointer never set; give the kernel a device allocation "
                    "(cudaMalloc), or the buffer it was given", (size_t)a);
    else if (unmapped)
        report_line("an address in no memory of this process, far from every buffer: a pointer "
                    "never set, or an index or pointer computed far wrong; compare what this line "
                    "computes with the buffers the kernel was given");
    else
        report_line("a kernel can use only memory the GPU can reach: cudaMalloc or "
                    "cudaMallocManaged allocations, __device__ and __constant__ variables, shared "
                    "memory, and host memory from cudaMallocHost or cudaHostRegister; copy host "
                    "data to a device allocation (cudaMemcpy) and pass that pointer");
    fail_from_fiber(cudaErrorIllegalAddress);
}

/* Whether thread T may touch A (no tracked region holds it); reports if not. */
__attribute__((always_inline)) inline void check_reachable(Thread *t, uintptr_t a, size_t n,
                                                           bool write, const void *pc)
{
    ReachCache &c = tl_reach;
    uint32_t epoch = g_reach_epoch.load(std::memory_order_relaxed);
    if (__builtin_expect(c.epoch == epoch, 1)) {
        for (const auto &s : c.span)
            if (a - s.lo < s.hi - s.lo)
                return;
    } else {
        std::memset(&c, 0, sizeof c);
        c.epoch = epoch;
    }
    check_reachable_slow(t, a, n, write, pc);
}

/* Whether [A, A+N) lies within one of the built-in variables (threadIdx, blockIdx, blockDim,
 * gridDim: this host thread's static TLS, which every kernel may read, no tracked memory and
 * never poisoned). g++ hooks no read of them by name (their types make them read-only to it:
 * device_launch_parameters.h); a read through a pointer to one comes here. */
__attribute__((always_inline)) inline bool builtin_variable(uintptr_t a, size_t n)
{
    return a - reinterpret_cast<uintptr_t>(&blockDim) + n <= sizeof blockDim ||
           a - reinterpret_cast<uintptr_t>(&gridDim) + n <= sizeof gridDim ||
           a - reinterpret_cast<uintptr_t>(&threadIdx) + n <= sizeof threadIdx ||
           a - reinterpret_cast<uintptr_t>(&blockIdx) + n <= sizeof blockIdx;
}

/* An access of N bytes at A by the running CUDA thread, at PC: spin
 * detection and the race and uninitialized-read checks. */
__attribute__((noinline)) void kernel_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    Thread *t = g_thread;
    if (a - reinterpret_cast<uintptr_t>(t->stack.lo) < t->stack.size)
        return; /* its own locals */
    if (write)
        note_store(t);
    else
        note_load(t, a, pc);
    if (!g_check)
        return;
    Region *r = find_region(a);
    if (r != nullptr && r->cells != nullptr)
        check(r, t, a, n, write ? Op::write : Op::read, pc);
    else if (r == nullptr)
        check_reachable(t, a, n, write, pc);
}

/* An access by host code at A that lies between device allocations: stops
 * the program if it is inside one. */
__attribute__((noinline)) void host_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    Region *r = find_region(a);
    if (r == nullptr || r->kind != RegionKind::device)
        return;
    fprintf(stderr, "cuda-emu: error: host code %s device memory\n", write ? "writes" : "reads");
    report_line("%s at %s", describe_memory(reinterpret_cast<void *>(a), n).c_str(),
                where(pc).c_str());
    report_line("a cudaMalloc pointer is only valid in kernels (on a GPU the host crashes "
                "here); copy the data with cudaMemcpy first");
    __sanitizer_print_stack_trace();
    abort();
}

__attribute__((always_inline)) inline void access(uintptr_t a, size_t n, bool write,
                                                  const void *pc, void *bp, bool is_volatile = false)
{
    if (n == 0)
        return;
    Thread *t = g_thread;
    if (t != nullptr && __builtin_expect(t->ww_count != 0, 0))
        settle_writes(t); /* its last write is in memory now */
    /* A CUDA thread's own locals (most accesses of a kernel with register
     * arrays) need no check: nothing else can reach its stack; nor does its
     * copy of the launch's arguments. */
    if (t != nullptr && (a - reinterpret_cast<uintptr_t>(t->stack.lo) < t->stack.size ||
                         a - reinterpret_cast<uintptr_t>(g_launch->ctx) < g_launch->ctx_size))
        return;
    if (t != nullptr && builtin_variable(a, n)) {
        /* What follows, short: no region holds it, a kernel may read it, nothing poisons it */
        if (__builtin_expect(t->async_pending != 0, 0))
            async_copy_touch(t, a, n, write, pc);
        if (__builtin_expect(g_counting, 0))
            count_access(t, a, n, write, pc, false, is_volatile);
        if (write)
            note_store(t);
        else
            note_load(t, a, pc);
        return;
    }
    if (__builtin_expect(poisoned(a, n), 0))
        __asan_report_error(const_cast<void *>(pc), bp, bp, reinterpret_cast<void *>(a), write, n);
    if (t != nullptr && __builtin_expect(t->async_pending != 0, 0))
        async_copy_touch(t, a, n, write, pc); /* its own cp.async still to land there? */
    if (__builtin_expect(g_counting, 0) && t != nullptr) {
        const Region *r = find_region(a);
        count_access(t, a, n, write, pc, r != nullptr && is_shared(r), is_volatile);
    }
    if (t != nullptr)
        kernel_access(a, n, write, pc);
    else if (a >= g_dev_lo && a < g_dev_hi)
        host_access(a, n, write, pc);
}

} // namespace

/* ---- The interface to the rest of the runtime ------------------------------ */

void init_tracking()
{
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

void forget_reachable() { g_reach_epoch.fetch_add(1, std::memory_order_relaxed); }

void async_copy_access(Thread *t, uintptr_t a, size_t n, const void *pc, bool count)
{
    if (t->ww_count != 0)
        settle_writes(t);
    if (count && g_counting)
        count_access(t, a, n, true, pc, true, false);
    tl_async_copy = true;
    kernel_access(a, n, true, pc);
    tl_async_copy = false;
}

void track_region(void *p, size_t size, RegionKind kind, const char *name, size_t elem_size,
                  const void *alloc_pc, Block *block)
{
    if (size == 0)
        return;
    Region *r = new Region();
    r->lo = reinterpret_cast<uintptr_t>(p);
    r->hi = r->lo + size;
    r->kind = kind;
    r->name = name;
    r->elem_size = elem_size;
    r->alloc_pc = alloc_pc;
    size_t granules = (size + 3) / 4;
    bool shared = kind == RegionKind::shared_static || kind == RegionKind::shared_dynamic;
    if (shared || g_checked_device + size <= settings().check_max) {
        r->cells_bytes = granules * sizeof(Cell);
        std::vector<CellBuffer> *spare = tl_spare_cells;
        for (size_t i = 0; shared && spare != nullptr && r->cells == nullptr && i < spare->size(); ++i)
            if ((*spare)[i].bytes >= r->cells_bytes) {
                r->cells = (*spare)[i].cells;
                r->cells_bytes = (*spare)[i].bytes;
                if ((*spare)[i].era != g_serial_era.load(std::memory_order_relaxed))
                    madvise(r->cells, r->cells_bytes, MADV_DONTNEED); /* zero pages again */
                spare->erase(spare->begin() + (long)i);
            }
        if (!shared) { /* the smallest kept mapping that holds it */
            size_t best = g_device_spares.size();
            for (size_t i = 0; i < g_device_spares.size(); ++i)
                if (g_device_spares[i].bytes >= r->cells_bytes &&
                    (best == g_device_spares.size() || g_device_spares[i].bytes < g_device_spares[best].bytes))
                    best = i;
            if (best < g_device_spares.size()) {
                const CellBuffer c = take_device_spare(best);
                r->cells = c.cells;
                r->cells_bytes = c.bytes;
            } else if (!g_device_spares.empty()) {
                /* none holds it: the largest grown to its size (its pages kept, the rest fresh),
                 * the others given back, so that keeping them never adds to the peak */
                size_t big = 0;
                for (size_t i = 1; i < g_device_spares.size(); ++i)
                    if (g_device_spares[i].bytes > g_device_spares[big].bytes)
                        big = i;
                const CellBuffer c = take_device_spare(big);
                void *m = mremap(c.cells, c.bytes, r->cells_bytes, MREMAP_MAYMOVE);
                if (m != MAP_FAILED)
                    r->cells = static_cast<Cell *>(m);
                else
                    munmap(c.cells, c.bytes);
                while (!g_device_spares.empty()) {
                    const CellBuffer other = take_device_spare(0);
                    munmap(other.cells, other.bytes);
                }
            }
        }
        if (r->cells == nullptr) {
            void *m = mmap(nullptr, r->cells_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED) {
                fprintf(stderr, "cuda-emu: fatal: cannot map %zu bytes of race-check bookkeeping\n",
                        r->cells_bytes);
                abort();
            }
            r->cells = static_cast<Cell *>(m);
            if (!shared && r->cells_bytes >= kHugeCells)
                madvise(m, r->cells_bytes, MADV_HUGEPAGE);
        }
        r->written = static_cast<uint8_t *>(calloc(granules, 1));
        r->tainted = static_cast<uint8_t *>(calloc(granules, 1));
        if (kind == RegionKind::managed)
            memset(r->written, 0x0f, granules);
        if (!shared)
            g_checked_device += size;
    } else if (!g_noted_unchecked) {
        g_noted_unchecked = true;
        fprintf(stderr,
                "cuda-emu: note: device memory beyond the first %zu MB (CUDA_EMU_CHECK_MAX_MB) is "
                "not checked for races and uninitialized reads, only for bounds\n",
                settings().check_max >> 20);
    }
    if (shared) {
        block->regions.push_back(r);
        return;
    }
    g_dev_lo = std::min(g_dev_lo, r->lo);
    g_dev_hi = std::max(g_dev_hi, r->hi);
    g_regions_gen.fetch_add(1, std::memory_order_acq_rel); /* odd: changing */
    RegionTable *t = g_table.load(std::memory_order_relaxed);
    if (t->n == t->cap) {
        RegionTable *bigger = new RegionTable{new Region *[t->cap * 2], t->n, t->cap * 2};
        std::copy(t->items, t->items + t->n, bigger->items);
        g_retired.push_back(t);
        g_retired.push_back(t->items);
        g_table.store(bigger, std::memory_order_release);
        t = bigger;
    }
    Region **at = std::upper_bound(t->items, t->items + t->n, r->lo,
                                   [](uintptr_t x, const Region *q) { return x < q->lo; });
    std::copy_backward(at, t->items + t->n, t->items + t->n + 1);
    *at = r;
    __atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
    g_regions_gen.fetch_add(1, std::memory_order_release); /* even: stable */
}

namespace {

/* Frees R's bookkeeping; shared memory's cells go to this worker's spares, device memory's to
 * the process's (g_device_spares). */
void free_region(Region *r)
{
    bool shared = is_shared(r);
    if (r->cells != nullptr && shared) {
        if (tl_spare_cells == nullptr) {
            (void)&tl_caches; /* registers its destructor */
            tl_spare_cells = new std::vector<CellBuffer>();
        }
        if (tl_spare_cells->size() < kSpareCellBuffers)
            tl_spare_cells->push_back(CellBuffer{r->cells, r->cells_bytes,
                                                 g_serial_era.load(std::memory_order_relaxed)});
        else
            munmap(r->cells, r->cells_bytes);
    } else if (r->cells != nullptr) {
        g_checked_device -= r->hi - r->lo;
        if (r->cells_bytes > kDeviceSpareBytes) {
            munmap(r->cells, r->cells_bytes);
        } else { /* kept for the next allocation; the oldest kept go first to make room */
            while (!g_device_spares.empty() && (g_device_spares.size() >= kDeviceSpares ||
                                                g_device_spare_bytes + r->cells_bytes > kDeviceSpareBytes)) {
                const CellBuffer oldest = take_device_spare(0);
                munmap(oldest.cells, oldest.bytes);
            }
            g_device_spares.push_back(CellBuffer{r->cells, r->cells_bytes, 0});
            g_device_spare_bytes += r->cells_bytes;
        }
    }
    free(r->written);
    free(r->tainted);
    delete r;
}

} // namespace

ThreadCaches::~ThreadCaches()
{
    delete tl_pages;
    tl_pages = nullptr;
    if (tl_spare_cells != nullptr)
        for (const CellBuffer &c : *tl_spare_cells)
            munmap(c.cells, c.bytes);
    delete tl_spare_cells;
    tl_spare_cells = nullptr;
}

void untrack_region(void *p)
{
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    RegionTable *t = g_table.load(std::memory_order_relaxed);
    Region **it = std::lower_bound(t->items, t->items + t->n, a,
                                   [](const Region *q, uintptr_t x) { return q->lo < x; });
    if (it == t->items + t->n || (*it)->lo != a)
        return;
    Region *r = *it;
    g_regions_gen.fetch_add(1, std::memory_order_acq_rel); /* odd: changing */
    std::copy(it + 1, t->items + t->n, it);
    __atomic_store_n(&t->n, t->n - 1, __ATOMIC_RELEASE);
    g_regions_gen.fetch_add(1, std::memory_order_release); /* even: stable */
    /* A host thread's lookup may still hold R: keep it, free its bookkeeping. */
    Region *gone = new Region(*r);
    free_region(gone);
    r->cells = nullptr;
    r->written = r->tainted = nullptr;
    g_retired.push_back(r);
}

uint32_t block_serials(unsigned long long nblocks)
{
    /* (a grid of 2^31 blocks or more would take hours to emulate: its serials may repeat) */
    const uint32_t n = (uint32_t)std::min<unsigned long long>(nblocks, 1ull << 31);
    if ((uint64_t)g_next_block_serial + n > UINT32_MAX) {
        /* Run out: every record of device memory forgotten (its pages zeroed), the kept
         * mappings given back, shared memory's kept cells cleared when next used. */
        const RegionTable *t = g_table.load(std::memory_order_acquire);
        for (size_t i = 0; i < t->n; ++i)
            if (t->items[i]->cells != nullptr)
                madvise(t->items[i]->cells, t->items[i]->cells_bytes, MADV_DONTNEED);
        while (!g_device_spares.empty()) {
            const CellBuffer c = take_device_spare(0);
            munmap(c.cells, c.bytes);
        }
        g_serial_era.fetch_add(1, std::memory_order_relaxed);
        g_next_block_serial = 1;
    }
    const uint32_t base = g_next_block_serial;
    g_next_block_serial += n;
    return base;
}

void untrack_block(Block *b)
{
    for (RecentRegion &e : tl_recent) /* (its regions go; a later block may reuse B) */
        e = RecentRegion{};
    for (Region *r : b->regions)
        free_region(r);
    b->regions.clear();
}

bool find_tracked(const void *p, size_t size, RegionKind *kind, void **base, size_t *region_size)
{
    Region *r = find_region(reinterpret_cast<uintptr_t>(p));
    if (r == nullptr || size > r->hi - reinterpret_cast<uintptr_t>(p))
        return false;
    *kind = r->kind;
    *base = reinterpret_cast<void *>(r->lo);
    *region_size = r->hi - r->lo;
    return true;
}

namespace {

/* Calls FN(region, granule, byte mask) for the checked granules of [P, P+N). */
template <class Fn>
void for_granules(const void *p, size_t n, Fn fn)
{
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    Region *r = find_region(a);
    if (r == nullptr || r->written == nullptr || n == 0)
        return;
    uintptr_t off = a - r->lo;
    n = std::min<size_t>(n, r->hi - a);
    for (uintptr_t g = off / 4; g <= (off + n - 1) / 4; ++g) {
        uintptr_t from = std::max<uintptr_t>(off, g * 4), to = std::min<uintptr_t>(off + n, g * 4 + 4);
        fn(r, g, (uint8_t)(((1u << (to - from)) - 1) << (from - g * 4)));
    }
}

/* Whether the byte at P has been written (true for untracked memory). */
bool byte_written(const void *p)
{
    bool w = true;
    for_granules(p, 1, [&](Region *r, uintptr_t g, uint8_t bytes) { w = r->written[g] & bytes; });
    return w;
}

} // namespace

void mark_written(void *p, size_t n)
{
    for_granules(p, n, [](Region *r, uintptr_t g, uint8_t bytes) {
        r->written[g] |= bytes;
        r->tainted[g] &= (uint8_t)~bytes;
    });
}

void copy_written(void *dst, const void *src, size_t n)
{
    Region *from = find_region(reinterpret_cast<uintptr_t>(src));
    if (from == nullptr || from->written == nullptr) {
        mark_written(dst, n); /* host memory counts as written */
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        bool w = byte_written(static_cast<const char *>(src) + i);
        bool tainted = false;
        for_granules(static_cast<const char *>(src) + i, 1,
                     [&](Region *r, uintptr_t g, uint8_t bytes) { tainted = r->tainted[g] & bytes; });
        for_granules(static_cast<char *>(dst) + i, 1, [&](Region *r, uintptr_t g, uint8_t bytes) {
            r->written[g] = w ? (r->written[g] | bytes) : (r->written[g] & ~bytes);
            r->tainted[g] = tainted ? (r->tainted[g] | bytes) : (r->tainted[g] & ~bytes);
        });
    }
}

bool check_written(const void *p, size_t n, const char *what, const void *pc)
{
    if (!g_check)
        return true;
    size_t first = SIZE_MAX, last = 0, count = 0, tainted = 0, first_tainted = SIZE_MAX;
    const char *c = static_cast<const char *>(p);
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for_granules(p, n, [&](Region *r, uintptr_t g, uint8_t bytes) {
        uint8_t missing = bytes & ~r->written[g];
        uint8_t bad = bytes & r->written[g] & r->tainted[g];
        for (int i = 0; (missing | bad) != 0 && i < 4; ++i) {
            size_t at = r->lo + g * 4 + i - a;
            if (missing >> i & 1) {
                first = std::min(first, at);
                last = at;
                ++count;
            } else if (bad >> i & 1) {
                first_tainted = std::min(first_tainted, at);
                ++tainted;
            }
        }
    });
    if (count == 0 && tainted == 0)
        return true;
    if (count != 0 && ++g_unwritten_reports <= kMaxUninitReports) {
        /* A warning: on a GPU the copy succeeds and the program may never
         * look at those bytes (a buffer sized for the worst case); when it
         * does, the 0xff poison shows in the values. */
        fprintf(stderr, "cuda-emu: warning: %s copies device memory that was never written\n", what);
        report_line("%zu of the %zu bytes copied were never written (the first is %s, the last "
                    "byte offset %zu of the copy), at %s",
                    count, n, describe_memory(c + first, 1).c_str(), last, where(pc).c_str());
        report_line("no kernel, cudaMemcpy or cudaMemset wrote them since the allocation: if the "
                    "program uses them, a kernel skips part of its output (the emulator fills "
                    "fresh allocations with 0xff, so such values show as NaN or -1; a GPU leaves "
                    "whatever was there, so a result may look right by luck)");
        if (g_unwritten_reports == kMaxUninitReports)
            report_line("(further copies of never-written memory are not listed)");
    }
    if (tainted != 0) {
        /* A warning: a thread that read uninitialized bytes may still write
         * correct results (a scan that reads a whole warp's slots and uses a
         * few); the values themselves show the poison when they are wrong. */
        fprintf(stderr, "cuda-emu: warning: %s copies results computed by threads that read "
                        "uninitialized memory\n", what);
        report_line("%zu of the %zu bytes copied were written by such threads (the first is %s), "
                    "at %s",
                    tainted, n, describe_memory(c + first_tainted, 1).c_str(), where(pc).c_str());
        report_line("the first such read: %s; if these results are wrong, initialise that memory "
                    "(cudaMemset, or a kernel that writes before it reads)",
                    g_taint_origin.c_str());
        for_granules(p, n, [](Region *r, uintptr_t g, uint8_t bytes) { r->tainted[g] &= (uint8_t)~bytes; });
    }
    return count == 0;
}

void reset_uninitialized_reports()
{
    g_uninit_reports = 0;
    g_unwritten_reports = 0;
    g_taint_origin.clear();
}

void track_atomic(void *addr, size_t size, bool changed, const void *pc, bool reads_old)
{
    Thread *t = g_thread;
    if (t == nullptr)
        return;
    uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    if (a - reinterpret_cast<uintptr_t>(t->stack.lo) >= t->stack.size && g_check) {
        Region *r = find_region(a);
        if (r != nullptr && r->cells != nullptr)
            check(r, t, a, size, reads_old ? Op::atomic : Op::atomic_exch, pc);
    }
    if (__builtin_expect(g_counting, 0)) {
        const Region *r = find_region(a);
        if (r == nullptr || !is_shared(r))
            count_atomic(a, pc);
    }
    t->last_sync = g_launch->clock.fetch_add(1, std::memory_order_relaxed) + 1;
    t->sync_phase = t->phase;
    /* An atomic that changes nothing (a failed compare-and-swap, an add of 0)
     * is a load for the spin detector; one that changes memory is a store. */
    if (changed)
        note_store(t);
    else
        note_load(t, a, pc);
}

void track_sync()
{
    Thread *t = g_thread;
    if (t == nullptr)
        return;
    t->last_sync = t->last_fence = g_launch->clock.fetch_add(1, std::memory_order_relaxed) + 1;
    t->sync_phase = t->phase;
}

std::string describe_memory(const void *p, size_t n)
{
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    Region *r = find_region(a);
    char buf[512];
    if (r == nullptr) {
        snprintf(buf, sizeof buf, "%zu byte%s at address %p", n, n == 1 ? "" : "s", p);
        return buf;
    }
    size_t off = a - r->lo, size = r->hi - r->lo;
    switch (r->kind) {
    case RegionKind::shared_static:
        snprintf(buf, sizeof buf, "__shared__ %s, element %zu (%zu byte%s at byte offset %zu of %zu)",
                 r->name, off / r->elem_size, n, n == 1 ? "" : "s", off, size);
        break;
    case RegionKind::shared_dynamic:
        snprintf(buf, sizeof buf, "extern __shared__ memory (%zu byte%s at byte offset %zu of %zu)",
                 n, n == 1 ? "" : "s", off, size);
        break;
    case RegionKind::device:
    case RegionKind::managed:
        snprintf(buf, sizeof buf, "%zu byte%s at byte offset %zu of a %zu-byte %s allocation (made at %s)",
                 n, n == 1 ? "" : "s", off, size,
                 r->kind == RegionKind::device ? "cudaMalloc" : "cudaMallocManaged",
                 where(r->alloc_pc).c_str());
        break;
    }
    return buf;
}

} // namespace cuda_emu

/* ---- The hooks ThreadSanitizer's instrumentation calls ---------------------- */

using cuda_emu::access;

/* The frame pointer of a hook's caller: the one saved in the hook's frame
 * (this file is built with frame pointers). */
#define CUDA_EMU_CALLER_FRAME (*static_cast<void **>(__builtin_frame_address(0)))
#define CUDA_EMU_ACCESS(p, size, is_write, is_volatile)                                  \
    access(reinterpret_cast<uintptr_t>(p), size, is_write, __builtin_return_address(0),  \
           CUDA_EMU_CALLER_FRAME, is_volatile)

extern "C" {
#pragma GCC visibility push(default) /* the hooks instrumented code calls */

#define CUDA_EMU_HOOKS(size)                                                             \
    __attribute__((noinline)) void __tsan_read##size(void *p) { CUDA_EMU_ACCESS(p, size, false, false); } \
    __attribute__((noinline)) void __tsan_write##size(void *p) { CUDA_EMU_ACCESS(p, size, true, false); } \
    __attribute__((noinline)) void __tsan_unaligned_read##size(void *p) { CUDA_EMU_ACCESS(p, size, false, false); } \
    __attribute__((noinline)) void __tsan_unaligned_write##size(void *p) { CUDA_EMU_ACCESS(p, size, true, false); } \
    __attribute__((noinline)) void __tsan_volatile_read##size(void *p) { CUDA_EMU_ACCESS(p, size, false, true); } \
    __attribute__((noinline)) void __tsan_volatile_write##size(void *p) { CUDA_EMU_ACCESS(p, size, true, true); }
CUDA_EMU_HOOKS(1)
CUDA_EMU_HOOKS(2)
CUDA_EMU_HOOKS(4)
CUDA_EMU_HOOKS(8)
CUDA_EMU_HOOKS(16)
#undef CUDA_EMU_HOOKS

__attribute__((noinline)) void __tsan_read_range(void *p, size_t n) { CUDA_EMU_ACCESS(p, n, false, false); }
__attribute__((noinline)) void __tsan_write_range(void *p, size_t n) { CUDA_EMU_ACCESS(p, n, true, false); }

/* Annotations the instrumentation may also emit; nothing to do here. */
void __tsan_init() {}
void __tsan_func_entry(void *caller) { (void)caller; }
void __tsan_func_exit() {}
/* A constructor storing an object's vtable pointer, and a virtual call reading it. */
__attribute__((noinline)) void __tsan_vptr_update(void **vptr, void *value)
{
    (void)value;
    CUDA_EMU_ACCESS(vptr, sizeof(void *), true, false);
}
__attribute__((noinline)) void __tsan_vptr_read(void **vptr) { CUDA_EMU_ACCESS(vptr, sizeof(void *), false, false); }

/* C++ atomics (std::atomic, __atomic builtins) in instrumented code: done
 * with the same builtins, sequentially consistent. They are host-side
 * synchronisation, not CUDA atomics, so they are not tracked. */
#define CUDA_EMU_TSAN_ATOMICS(bits, T)                                                   \
    T __tsan_atomic##bits##_load(const volatile void *a, int mo)                         \
    { (void)mo; return __atomic_load_n((const volatile T *)a, __ATOMIC_SEQ_CST); }        \
    void __tsan_atomic##bits##_store(volatile void *a, T v, int mo)                      \
    { (void)mo; __atomic_store_n((volatile T *)a, v, __ATOMIC_SEQ_CST); }                 \
    T __tsan_atomic##bits##_exchange(volatile void *a, T v, int mo)                      \
    { (void)mo; return __atomic_exchange_n((volatile T *)a, v, __ATOMIC_SEQ_CST); }       \
    T __tsan_atomic##bits##_fetch_add(volatile void *a, T v, int mo)                     \
    { (void)mo; return __atomic_fetch_add((volatile T *)a, v, __ATOMIC_SEQ_CST); }        \
    T __tsan_atomic##bits##_fetch_sub(volatile void *a, T v, int mo)                     \
    { (void)mo; return __atomic_fetch_sub((volatile T *)a, v, __ATOMIC_SEQ_CST); }        \
    T __tsan_atomic##bits##_fetch_and(volatile void *a, T v, int mo)                     \
    { (void)mo; return __atomic_fetch_and((volatile T *)a, v, __ATOMIC_SEQ_CST); }        \
    T __tsan_atomic##bits##_fetch_or(volatile void *a, T v, int mo)                      \
    { (void)mo; return __atomic_fetch_or((volatile T *)a, v, __ATOMIC_SEQ_CST); }         \
    T __tsan_atomic##bits##_fetch_xor(volatile void *a, T v, int mo)                     \
    { (void)mo; return __atomic_fetch_xor((volatile T *)a, v, __ATOMIC_SEQ_CST); }        \
    T __tsan_atomic##bits##_fetch_nand(volatile void *a, T v, int mo)                    \
    { (void)mo; return __atomic_fetch_nand((volatile T *)a, v, __ATOMIC_SEQ_CST); }       \
    bool __tsan_atomic##bits##_compare_exchange_strong(volatile void *a, void *expected, T v, \
                                                       int mo, int fail_mo)             \
    {                                                                                   \
        (void)mo, (void)fail_mo;                                                        \
        return __atomic_compare_exchange_n((volatile T *)a, (T *)expected, v, false,     \
                                           __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
    }                                                                                   \
    bool __tsan_atomic##bits##_compare_exchange_weak(volatile void *a, void *expected, T v, \
                                                     int mo, int fail_mo)               \
    {                                                                                   \
        return __tsan_atomic##bits##_compare_exchange_strong(a, expected, v, mo, fail_mo); \
    }                                                                                   \
    T __tsan_atomic##bits##_compare_exchange_val(volatile void *a, T expected, T v, int mo, \
                                                 int fail_mo)                           \
    {                                                                                   \
        __tsan_atomic##bits##_compare_exchange_strong(a, &expected, v, mo, fail_mo);    \
        return expected;                                                                \
    }
CUDA_EMU_TSAN_ATOMICS(8, unsigned char)
CUDA_EMU_TSAN_ATOMICS(16, unsigned short)
CUDA_EMU_TSAN_ATOMICS(32, unsigned int)
CUDA_EMU_TSAN_ATOMICS(64, unsigned long)
#undef CUDA_EMU_TSAN_ATOMICS

void __tsan_atomic_thread_fence(int mo) { (void)mo; __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int mo) { (void)mo; __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#pragma GCC visibility pop
} // extern "C"
