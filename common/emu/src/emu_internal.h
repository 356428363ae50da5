/*
 * emu_internal.h -- the emulator runtime's shared state, between its parts:
 *
 *   runtime.cpp  the CUDA host API: devices, memory, streams, events, errors
 *   exec.cpp     launches: blocks, fibers, barriers, shared memory, spin-waits
 *   warp.cpp     warp collectives (shuffles, votes, __syncwarp ...)
 *   atomics.cpp  atomics and fences
 *   track.cpp    the memory-access hooks: race and uninitialized-read checks
 *   count.cpp    memory requests per warp and source line, for make explain
 *   report.cpp   error messages with kernel, block, thread and source line
 *
 * One host thread at a time calls the API (api_mutex). A launch runs its
 * blocks on that thread and, when there are several CPUs, on worker threads
 * too (exec.cpp): each runs whole blocks, whose CUDA threads are fibers it
 * switches itself. What a block owns (its threads, shared memory and their
 * bookkeeping) is only touched by the worker running it; what blocks share
 * (device memory's bookkeeping, atomics, the launch's error) is locked or
 * atomic, and the rest is per worker (thread_local).
 *
 * What compiled CUDA code may call is the API the public headers declare
 * (include/, under "#pragma GCC visibility push(default)") and the hooks
 * marked CUDA_EMU_EXPORT below: the library is compiled with
 * -fvisibility=hidden, so everything else here (the settings, the scheduler,
 * the race checker's state, cuda_emu/testing.h's switches) stays inside the
 * program that links the library, and a shared object the program loads (a
 * student's code in the grader's worker) cannot name it (emu.mk writes the
 * exported list, libcudaemu.dynlist, and the hidden one, libcudaemu.internal).
 */
#ifndef CUDA_EMU_INTERNAL_H
#define CUDA_EMU_INTERNAL_H

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "../include/cuda_runtime.h"
#include "fiber.h"

/* A symbol compiled code reaches without a public header declaring it: the
 * ThreadSanitizer hooks, C library functions a kernel gets the GPU's version
 * of, the sanitizers' default options (read from the program by name). */
#define CUDA_EMU_EXPORT __attribute__((visibility("default")))
extern "C" {
CUDA_EMU_EXPORT clock_t clock(void) noexcept;
CUDA_EMU_EXPORT void __assert_fail(const char *assertion, const char *file, unsigned int line,
                                   const char *function) noexcept;
CUDA_EMU_EXPORT const char *__asan_default_options();
CUDA_EMU_EXPORT const char *__ubsan_default_options();
}

#define CUDA_EMU_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
/* Where the running API function or device function was called from. */
#define CUDA_EMU_PC __builtin_return_address(0)

namespace cuda_emu {

/* ---- The emulated device (documented in common/emu/README.md) ------------ */

constexpr int kDefaultSMs = 4;                   /* streaming multiprocessors, unless
                                                    CUDA_EMU_SMS says otherwise (settings().sms) */
constexpr int kWarpSize = 32;                    /* lanes per warp */
constexpr int kMaxThreadsPerBlock = 1024;        /* threads per block */
constexpr int kMaxBlockDim[3] = {1024, 1024, 64};/* block extent per axis */
constexpr int kMaxGridDim[3] = {2147483647, 65535, 65535}; /* grid extent per axis */
constexpr int kMaxThreadsPerSM = 2048;           /* resident threads per SM */
constexpr int kMaxBlocksPerSM = 32;              /* resident blocks per SM */
constexpr size_t kSharedPerBlock = 48 * 1024;    /* shared memory per block without opt-in */
constexpr size_t kSharedOptin = 227 * 1024;      /* shared memory per block with opt-in */
constexpr size_t kSharedPerSM = 228 * 1024;      /* shared memory per SM */
constexpr size_t kReservedSharedPerBlock = 1024; /* shared memory the driver keeps per block */
constexpr int kRegsPerSM = 65536;                /* 32-bit registers per SM */
constexpr int kRegsPerBlock = 65536;             /* 32-bit registers a block may have */
constexpr int kMaxRegsPerThread = 255;           /* what ptxas gives a thread at most */
constexpr int kRegAllocUnit = 256;               /* registers are given a warp in these */
constexpr int kSubPartitions = 4;                /* an SM's register file is four, one per
                                                    scheduler: a warp's registers come from one */
constexpr size_t kSharedAllocUnit = 128;         /* shared memory is given a block in these */
constexpr int kRegsPerThread = 32;               /* registers per thread where nvcc's count is
                                                    not known (see kernel_figures) */
constexpr int kL2Bytes = 4 * 1024 * 1024;        /* L2 cache */
constexpr size_t kGlobalMem = (size_t)2 << 30;   /* device memory cudaMalloc may hand out */

/* What a block takes of an SM, as the CUDA occupancy calculator weighs it (blocks_per_sm). */
struct Footprint {
    int threads;         /* per block */
    int registers;       /* per thread */
    int barriers;        /* named barriers a block uses (0: counts for nothing) */
    size_t shared;       /* static plus dynamic shared memory per block, bytes */
    size_t shared_limit; /* the most a block may have: kSharedPerBlock, or kSharedOptin where
                            cudaFuncSetAttribute raised the kernel's dynamic limit beyond it */
    int carveout;        /* the kernel's preferred shared memory carveout, percent; -1: none */
};

/* ---- Settings read once from the environment ---------------------------- */

struct Settings {
    bool check;           /* CUDA_EMU_CHECK: race and uninitialized-read checks (default on) */
    unsigned spin_limit;  /* CUDA_EMU_SPIN_LIMIT: scheduling rounds without progress before a
                             spin-wait is reported as a hang */
    size_t stack_bytes;   /* CUDA_EMU_STACK_KB: stack per CUDA thread */
    size_t check_max;     /* CUDA_EMU_CHECK_MAX_MB: device memory checked for races and
                             uninitialized reads, at most (first come, first checked) */
    unsigned workers;     /* CUDA_EMU_WORKERS: host threads that run a launch's blocks
                             (default: the CPUs this process may use, at most 8) */
    int sms;              /* CUDA_EMU_SMS: the emulated device's SMs (default 4; make explain
                             sets a real GPU's count to show its waves) */
};
const Settings &settings();
/* The check switch, read on every memory access; settings().check, cached. */
extern bool g_check;

/* ---- Launches, blocks and threads ----------------------------------------- */

enum class ThreadState : uint8_t {
    ready,      /* may run */
    at_barrier, /* waits at __syncthreads() */
    at_warp_op, /* waits for the other lanes of a warp collective */
    at_tile_barrier, /* waits at the sync() of a cooperative-groups tile wider than a warp */
    at_grid_barrier, /* waits at grid.sync() (a cooperative launch) */
    spinning,   /* gave the CPU back because it seemed to poll memory */
    exited      /* returned from the kernel */
};

struct Block;
struct Region; /* a tracked range of memory (track.cpp) */

/* A lane's part in a pending warp collective (see warp.cpp). */
struct WarpOp {
    int kind;           /* WarpOpKind */
    unsigned mask;      /* the lanes it names */
    uint64_t value;     /* its operand */
    int b;              /* lane, delta or lane mask operand */
    int c;              /* PTX shfl clamp/segment operand */
    uint64_t result;    /* filled in when the collective completes */
    void *dst;          /* op_exchange: where every lane's value goes (value points at
                           this lane's, b is its size) */
};

/* A cp.async (or __pipeline_memcpy_async) in flight: its bytes, read from global memory when
 * it was issued, land in shared memory when a wait covers its group (exec.cpp). */
struct AsyncCopy {
    uintptr_t dst;            /* where in the block's shared memory */
    unsigned bytes;           /* 4, 8 or 16 */
    unsigned group;           /* the commit group: the thread's commits before it */
    const void *pc;           /* where it was issued */
    alignas(16) unsigned char data[16];
};

struct Thread {
    Context ctx;              /* saved registers while it does not run */
    Stack stack;              /* its stack, from the pool */
    Block *block;             /* the block it belongs to */
    uint3 idx;                /* threadIdx */
    unsigned tid;             /* linear index in the block: x + y*X + z*X*Y */
    ThreadState state;        /* what it waits for, if anything */
    const void *wait_pc;      /* where it waits: barrier, collective or spin site */
    WarpOp op;                /* its pending warp collective, valid in at_warp_op */
    uint32_t phase;           /* block barriers passed in this launch */
    uint32_t wsync;           /* __syncwarp rendezvous joined since the last barrier */
    uint32_t last_sync;       /* launch clock at its last atomic or fence; 0 = none */
    uint32_t sync_phase;      /* phase of that atomic or fence */
    uint32_t last_fence;      /* launch clock at its last fence (or a barrier after another
                                 thread's, or grid.sync()); 0 = none: what orders two writes of
                                 one word (an atomic alone orders no other memory in CUDA) */
    const void *shfl_pc;      /* the last shuffle it took part in (call site) */
    uint64_t shfl_value;      /* and the operand it gave there: its register, as far as a
                                 shuffle from outside its mask can know it */
    std::vector<AsyncCopy> *async; /* those copies, oldest first; null until its first */
    /* From here on: set when it first runs (resume, clear_on_first_run), read of this thread
     * alone. Above: set when its block starts (start_block), as other threads read them (its
     * state, collective and shuffle operands) or a barrier or sync() changes them before it
     * first runs (phase, last_sync ...). */
    int bar_kind;             /* 0 plain, 1 count, 2 and, 3 or: the __syncthreads variant */
    int bar_pred;             /* its predicate for the __syncthreads_* variants */
    int bar_result;           /* the variant's result, set when the barrier opens */
    uint32_t run_loads;       /* global loads since its last store, while counting (count.cpp) */
    uint32_t run_bytes;       /* their bytes */
    const void *copy_pc;      /* its last access, when a store with no load before it: a
                                 load hooked right after it is that copy's */
    uintptr_t last_end;       /* its last counted global access: where it ended, and */
    int last_kind;            /* 1 a 4-byte load, 2 a 4-byte store, 0 anything else */
    unsigned tile_first;      /* at_tile_barrier: the tile's first thread (linear index) */
    unsigned tile_count;      /* and its size */
    bool tainted;             /* it read uninitialized data (directly or through memory
                                 other tainted threads wrote): what it writes is tainted */
    uint32_t spin_addrs;      /* how many of spin_addr are in use */
    uint32_t spin_count;      /* loads in that run: no store, no new address beyond 4 */
    const void *spin_pc;      /* where the run's last load is */
    uint32_t ww_count;        /* entries of ww in use */
    uint32_t async_pending;   /* its cp.async copies in flight (the access hooks check them) */
    uint32_t async_groups;    /* its cp.async.commit_group count */
    /* From here on: read only up to a count above (spin_addrs, ww_count), never cleared. */
    uintptr_t spin_addr[4];   /* the few addresses its latest run of loads read */
    struct {
        uintptr_t granule;    /* a 4-byte granule it is writing that another thread wrote
                                 with nothing ordering the two (track.cpp, settle_writes) */
        uint8_t bytes;        /* the bytes both writes cover */
        uint8_t before[4];    /* those bytes as the other thread left them */
        bool shared;          /* shared memory (else device memory) */
        uint32_t other_block; /* the other write: linear block, */
        uint16_t other_thread;/* thread in it, */
        int32_t other_pc;     /* and source location (track.cpp's pc_offset) */
        const void *pc;       /* this write's source location */
    } ww[4];                  /* writes whose value decides whether they race */
};

/* One __shared__ variable of one block. */
struct SharedVar {
    const void *key;    /* identifies the declaration (see launch.h) */
    unsigned index;     /* declarator index within it */
    void *ptr;          /* this block's copy */
    size_t size;        /* bytes */
};

struct Block {
    uint3 idx;                        /* blockIdx */
    unsigned long long linear;        /* linear block index: x + y*X + z*X*Y */
    uint32_t serial;                  /* its launch's block_base + linear (mod 2^32): unique
                                         among all blocks run so far; tags the race checker's
                                         records */
    uint32_t phase_clock;             /* the launch clock when its threads' phase last changed
                                         (a barrier, a tile's or the grid's sync); 0 before */
    std::vector<Thread> threads;      /* its CUDA threads, by tid */
    unsigned nwarps;                  /* warps, the last possibly partial */
    unsigned exited;                  /* threads that returned */
    unsigned at_barrier;              /* threads waiting at __syncthreads() */
    unsigned at_tile;                 /* threads waiting at a wide tile's sync() */
    unsigned at_grid;                 /* threads waiting at grid.sync() */
    unsigned cursor;                  /* where the round-robin search resumes */
    size_t stack_bytes;               /* a thread's stack (settings, read once a block) */
    std::vector<SharedVar> shared;    /* static __shared__ variables, by first use */
    size_t static_shared;             /* their total size, bytes */
    void *dynamic_shared;             /* the launch's dynamic shared memory, for this block */
    std::vector<uint8_t> warp_waiting; /* per warp: lanes waiting at a collective (0: nothing
                                         for warp_progress to do) */
    std::vector<uint32_t> warp_clock; /* [warp][lane][other]: the launch clock of OTHER's
                                         latest __syncwarp that LANE has synchronised with;
                                         empty until the block's first __syncwarp */
    std::vector<Region *> regions;    /* its shared memory's tracked regions (track.cpp) */
    struct WindowSpan {
        uintptr_t lo, hi;             /* a shared allocation of the block */
        unsigned long long base;      /* where it sits in the block's shared window */
    };
    std::vector<WindowSpan> window;   /* its shared allocations that __cvta_generic_to_shared
                                         has placed in its window, by first use (exec.cpp) */
    std::vector<void *> file_shared;  /* its copies of file-scope __shared__ variables, by
                                         registration; null until it first runs */
    struct CountState *count = nullptr; /* its warps' memory requests while counting
                                         (count.cpp); null otherwise */
    /* A race between two lanes of one warp, held until the block's next barrier or its end
     * (track.cpp): reported then with __syncwarp()'s advice, or at once with __syncthreads()'s
     * when a thread of another warp meets a race on the same memory before that. */
    struct WarpRace {
        const Thread *t = nullptr;    /* the thread that met it; null: none held */
        const void *region = nullptr; /* the tracked memory it is in */
        bool shared = false;          /* shared memory (else device memory) */
        unsigned warp = 0;            /* the warp of both threads */
        std::string lines[2];         /* its report's lines, the advice left out */
    } warp_race;
};

struct Launch {
    const void *kernel;          /* kernel address, or null if not known */
    const char *name;            /* kernel as written at the launch */
    dim3 grid;                   /* grid shape */
    dim3 block;                  /* block shape */
    size_t smem;                 /* dynamic shared memory per block */
    void (*invoke)(void *);      /* runs the kernel for the current thread */
    void *ctx;                   /* its argument: the kernel's arguments */
    size_t ctx_size;             /* its size (reads of it are not checked) */
    uint32_t serial;             /* distinguishes this launch from the others; never 0 */
    uint32_t block_base;         /* the serial of its block 0 (block_serials): its blocks'
                                    serials are block_base + linear index, never 0 */
    unsigned threads_per_block;  /* block.x * block.y * block.z */
    unsigned long long nblocks;  /* grid.x * grid.y * grid.z */
    std::atomic<uint32_t> clock; /* ticks at every atomic and fence, barrier opening and
                                    __syncwarp rendezvous (race checker) */
    std::atomic<int> error;      /* first error (a cudaError_t), cudaSuccess while all is well */
    std::atomic<bool> rejected;  /* error is a launch failure, not sticky (launch bounds) */
    std::atomic<bool> stop;      /* abandon the rest of the grid */
    std::atomic<bool> reported;  /* an error report was printed: later ones are not */
    bool parallel;               /* its blocks run on several host threads at once */
    bool cooperative;            /* cudaLaunchCooperativeKernel: every block resident, grid.sync() */
    std::atomic<bool> overtaken; /* its launch call returned to the host while it runs */
    std::atomic<bool> bounds_noted; /* its __launch_bounds__ went to note_launch_bounds */
    Footprint footprint;         /* a block's, as the launch was issued (kernel_footprint): what
                                    the occupancy calculation weighs (the resident blocks, the
                                    cooperative launch's check, the counted launch line) */
    std::atomic<size_t> static_shared; /* the most static __shared__ bytes a block used (known
                                          once blocks have run) */
    struct Overtaken *async;     /* run on the launcher thread, so the host may go on while it
                                    polls host-writable memory (exec.cpp); null: on the host's */
    /* The schedule (exec.cpp, set_schedule): the order blocks are taken in and a block's
     * warps are resumed in. Empty order and block_mul 0: in index order. */
    std::vector<uint32_t> order;    /* position in the block's round -> tid */
    std::vector<uint32_t> position; /* tid -> position */
    unsigned long long block_mul;   /* the k-th block taken is (block_mul * k' + block_add) % */
    unsigned long long block_add;   /* nblocks, k' = k or (reversed) nblocks - 1 - k */
    bool block_reverse;
};

/* The schedule of the launches to come: 0 runs blocks and warps in index order;
 * any other value, a permutation of the warps of every block and of the blocks
 * of every grid drawn from it, its lowest bit reversing both (so that W and
 * W ^ 1 put the warps that run first and last the other way round). Set by the
 * program itself (the grader's harness, or its worker through
 * cuda_emu_schedule). */
void set_schedule(uint64_t word);
/* 1 if CALLER (a return address) is in the program itself (the module the
 * emulator is linked into) or in the grader's command loop, shim_serve, of the
 * shared object it loaded: the calls that the code under test, which shares
 * that object, may not make (cuda_emu_schedule, cuda_emu_count). */
bool called_by_program_or_loop(const void *caller);

/* Per host thread, so that host threads of the program (a CPU reference
 * computed in parallel) never take their accesses for a kernel's. */
/* (__thread, not thread_local: a pointer needs no initialisation, so a use needs no call of a
 * TLS wrapper or its test, on every memory access of a kernel) */
extern __thread Thread *g_thread; /* the running CUDA thread, null while host code runs */
extern __thread Launch *g_launch; /* the launch in progress, null between launches */

/* The (x,y,z) index of linear index I in a grid or block of SHAPE. */
uint3 unflatten(unsigned long long i, dim3 shape);

/* T's writes that raced with another thread's write of the same bytes, once
 * they are done: reported (and the launch failed) if T wrote a different
 * value, forgotten if it wrote the same one (track.cpp). Called before T waits
 * or ends, and at its next memory access. */
void settle_writes(Thread *t);

/* Whether the thread (BLOCK, TID) of the running launch is running on some
 * worker right now, between two waits (exec.cpp): a write its hook recorded
 * may not be in memory yet. */
bool thread_running(unsigned long long block, unsigned tid);

/* A feature of valid CUDA that the emulator meets only at run time and cannot run (a graph
 * launched into a capture, cluster attributes): prints "cuda-emu: refused: FEATURE at line N
 * of FILE; a GPU grades it" (the line emu-nvcc prints for a refusal at build time, which the
 * grader reads from the check's log) for the call at PC, and ends the process with status
 * kRefusedStatus (report.cpp). */
constexpr int kRefusedStatus = 86;
[[noreturn]] void refuse_at_run_time(const char *feature, const void *pc);

/* T touches N bytes at A (WRITE or not) at PC while copies of its own are in flight: an
 * error if one of them is still to land there (exec.cpp). */
void async_copy_touch(Thread *t, uintptr_t a, size_t n, bool write, const void *pc);

/* The race check and record of T's write of N bytes of shared memory at A by a copy issued
 * at PC, counted as a store there when COUNT (track.cpp): cp.async writes without a store
 * of the thread's own. */
void async_copy_access(Thread *t, uintptr_t a, size_t n, const void *pc, bool count);

/* From a running fiber: wait in state S at call site PC until the scheduler
 * resumes this thread. */
void wait_here(ThreadState s, const void *pc);

/* From a running fiber: end the launch with ERR (already reported) and never
 * return. */
[[noreturn]] void fail_from_fiber(cudaError_t err);

/* From the scheduler: end the launch with ERR (already reported). */
void fail_launch(cudaError_t err);

/* From the scheduler, at B's barrier or end: the race between lanes of one warp that B holds
 * (Block::warp_race), if any, reported with __syncwarp()'s advice (no thread of another warp
 * met a race on that memory before it) and the launch failed. 1 if one was held. */
bool warp_race_end(Block *b);

/* Warp collectives (warp.cpp): try to complete what the lanes of WARP wait
 * for, after a lane of it changed state. */
void warp_progress(Block *b, unsigned warp);

/* Describes what lanes of B that are stuck at warp collectives wait for. */
void warp_describe_stuck(Block *b);

/* ---- Runtime state shared with the host API (runtime.cpp) ----------------- */

/* Records ERR as the result of an API call: it becomes the last error. */
cudaError_t record_error(cudaError_t err);

/* Makes ERR sticky, as a fault in a kernel is on a GPU: every later call
 * returns it until cudaDeviceReset(). */
void set_sticky_error(cudaError_t err);
/* Host memory a kernel may poll while the host writes it exists (managed memory,
 * cudaHostAlloc with cudaHostAllocMapped, cudaHostRegister with
 * cudaHostRegisterMapped): from now on a launch runs on the launcher thread,
 * and returns early if it only polls such memory (exec.cpp). */
void note_host_writable_memory();
/* Waits for a launch the host went on beside (called by the API with the API
 * lock held); its error, if any, becomes sticky. */
void finish_overtaken_launch();
/* Whether such a launch is still running (cudaStreamQuery, cudaEventQuery). */
bool overtaken_launch_running();
cudaError_t sticky_error();

/* Checks a stream handle: 0, the two default streams and live streams are valid. */
bool stream_valid(cudaStream_t s);

/* The most dynamic shared memory a launch of KERNEL may ask: what cudaFuncSetAttribute allowed
 * it, else the 48 KB a block may have less its static shared memory (where known: see
 * kernel_figures); kSharedOptin for an unknown (null) kernel. */
size_t kernel_max_dynamic_shared(const void *kernel);

/* Blocks of footprint F that fit on one SM at once (0 if none does), as the CUDA occupancy
 * calculator (the toolkit's cuda_occupancy.h) counts them for compute capability 9.0: warps;
 * registers given a warp in units of 256, each warp's from one of the SM's four register files,
 * and a block refused whose warps, rounded up to four, need more than a block may have; shared
 * memory given in units of 128 bytes plus the 1 KB reserved a block, from the carveout chosen
 * (the kernel's preference, or the largest); blocks; barriers. */
int blocks_per_sm(const Footprint &f);
/* The footprint of a block of KERNEL (null: unknown) with THREADS threads and DYNAMIC bytes of
 * dynamic shared memory. The caller holds api_mutex (it reads cudaFuncSetAttribute's settings). */
Footprint kernel_footprint(const void *kernel, int threads, size_t dynamic);
/* The most threads a block may have (a multiple of 32) when each uses REGISTERS registers:
 * what a block's warps, rounded up to four, may take of the kRegsPerBlock. */
int threads_for_registers(int registers);

/* What KERNEL uses, as a GPU knows it from the compiled kernel before any launch. Where the
 * file asked (emu-nvcc compiled it with nvcc too: register_kernel_resources), nvcc's figures;
 * otherwise what the emulator can tell: registers from __launch_bounds__(N, M) (the most that
 * leave M blocks of N threads room on an SM, a multiple of 8), else kRegsPerThread, and the
 * static shared memory of the blocks run so far (0 before the first). */
struct KernelFigures {
    int registers;        /* per thread */
    int max_threads;      /* the most threads a block may have: 1024, __launch_bounds__ (or the
                             PTX's .maxntid) and what its registers allow, the least of them */
    int barriers;         /* named barriers a block uses; 0 where not known */
    size_t static_shared; /* static __shared__ bytes per block */
    size_t local_bytes;   /* local memory per thread (stack frame, spills); 0 where not known */
    size_t const_bytes;   /* the file's __constant__ bytes; 0 where not known */
    bool measured;        /* the figures are nvcc's */
};
KernelFigures kernel_figures(const void *kernel);
/* The static __shared__ bytes a block of KERNEL used (exec.cpp, at the end of each launch): the
 * most any block used, for kernel_figures where nvcc's are not known. */
void note_static_shared(const void *kernel, size_t bytes);

/* Records KERNEL's __launch_bounds__(MAX_THREADS, MIN_BLOCKS) for kernel_figures (from the
 * kernel's registration, or its first run). */
void note_launch_bounds(const void *kernel, long long max_threads, long long min_blocks);

/* Held by a host thread for the length of an API call or a launch: CUDA may
 * be called from several host threads, one at a time in here. */
std::recursive_mutex &api_mutex();

/* Makes sure the runtime is initialised (settings, sanitizer callbacks). */
void init_runtime();

/* ---- Memory tracking (track.cpp) --------------------------------------- */

enum class RegionKind : uint8_t {
    device,         /* cudaMalloc */
    managed,        /* cudaMallocManaged: also written by the host, so not init-checked */
    shared_static,  /* a block's __shared__ variable */
    shared_dynamic  /* a block's dynamic shared memory */
};

/* Starts tracking [P, P+SIZE). NAME and ELEM_SIZE describe shared variables
 * in messages; ALLOC_PC is where a device allocation was made. Shared memory
 * (the shared kinds) belongs to BLOCK and is only looked up by its threads;
 * the other kinds are tracked for everyone (host API calls, between launches). */
void track_region(void *p, size_t size, RegionKind kind, const char *name, size_t elem_size,
                  const void *alloc_pc, Block *block = nullptr);
/* Stops tracking the device region that starts at P. */
void untrack_region(void *p);
/* The kind of the tracked region that holds [P, P+SIZE) entirely, in *KIND;
 * false if there is none. BASE and REGION_SIZE describe it. */
bool find_tracked(const void *p, size_t size, RegionKind *kind, void **base,
                  size_t *region_size);
/* Host writes: [P, P+N) now holds defined data. */
void mark_written(void *p, size_t n);
/* Host copies: DST gets SRC's written/unwritten state. */
void copy_written(void *dst, const void *src, size_t n);
/* Warns of host reads of never-written device memory in [P, P+N), and of
 * results computed from uninitialized reads, by the API call WHAT at PC;
 * returns false if there were never-written bytes. */
bool check_written(const void *p, size_t n, const char *what, const void *pc);
/* Forgets the uninitialized reads reported so far (cudaDeviceReset). */
void reset_uninitialized_reports();
/* An atomic access of SIZE bytes at ADDR that CHANGED memory or not;
 * READS_OLD: its result depends on the old value (all but atomicExch). */
void track_atomic(void *addr, size_t size, bool changed, const void *pc, bool reads_old = true);
/* A fence, or an atomic: everything this thread did before is ordered
 * before what other threads do after they synchronise with it. */
void track_sync();
/* The serials of a new launch's NBLOCKS blocks: the first, block_base (the launch's block k
 * has block_base + k). Serials are never handed out twice: when they would run out, every
 * record the race checker holds is forgotten first. Called with api_mutex held, no launch
 * running. */
uint32_t block_serials(unsigned long long nblocks);
/* Forgets the regions of B's shared memory (at block end). */
void untrack_block(Block *b);
/* Installs the allocator hooks that tell memory kernels allocate themselves
 * (malloc or new in device code) from the host's. */
void init_tracking();
/* Held while the runtime allocates on a CUDA thread's behalf (its block's
 * shared memory, bookkeeping): what it allocates is not the kernel's heap. */
extern thread_local unsigned tl_runtime_allocating;
struct RuntimeAllocating {
    RuntimeAllocating() { ++tl_runtime_allocating; }
    ~RuntimeAllocating() { --tl_runtime_allocating; }
    RuntimeAllocating(const RuntimeAllocating &) = delete;
    RuntimeAllocating &operator=(const RuntimeAllocating &) = delete;
};
/* Host memory that kernels could reach stops being reachable (cudaFreeHost,
 * cudaHostUnregister): forgets what the access check cached. */
void forget_reachable();
/* The host memory a kernel may use (cudaHostAlloc, cudaHostRegister) that
 * holds A, as [*LO, *HI); false if none. Called during a launch, while the
 * host API cannot change it (runtime.cpp). */
bool host_mapped_span(uintptr_t a, uintptr_t *lo, uintptr_t *hi);

/* ---- Counting memory requests (count.cpp) -------------------------------- */
/* Counting is on (between cudaProfilerStart and cudaProfilerStop, with
 * CUDA_EMU_COUNT set): every access of a kernel is also recorded. */
extern bool g_counting;
/* Records thread T's access of N bytes at A (in shared memory or not; through a volatile
 * lvalue or not) at PC. */
void count_access(Thread *t, uintptr_t a, size_t n, bool write, const void *pc, bool shared,
                  bool is_volatile);
/* Records an atomic operation of a kernel on global memory at A (not shared: the estimate
 * counts a block's own memory's atomics as nothing) issued at PC: the atomics line. */
void count_atomic(uintptr_t a, const void *pc);
/* Records a call whose cost on a GPU no count holds, made by a kernel's thread at PC: a
 * printf of AMOUNT bytes, or a __nanosleep of AMOUNT ns (the printf and sleep lines). */
enum class Unseen { print, sleep };
void count_unseen(Unseen kind, const void *pc, unsigned long long amount);
/* Every lane of B met at a barrier: its requests so far are complete. */
void count_flush(Block *b);
/* B ends: adds what it counted to the totals and frees its bookkeeping. */
void count_block_end(Block *b);
/* L ran to its end while counting: records its grid for the waves it makes. */
void count_launch(const Launch &L);
/* While counting, the stream-ordered operations in issue order, for the copy
 * and compute engines' timeline (the op lines of count.cpp): KIND (h2d, d2h,
 * d2d, h2h, memset, kernel) issued on STREAM by CALL, AMOUNT bytes or threads,
 * DETAIL pinned / pageable / the kernel's name; */
void count_op(const char *kind, cudaStream_t stream, unsigned long long amount, const char *detail,
              const char *call);
/* an event recorded on STREAM or waited for there (KIND record or wait); */
void count_event_op(const char *kind, cudaStream_t stream, cudaEvent_t event, const char *call);
/* the host waiting for *STREAM, for EVENT, or (both null) for the whole device; */
void count_host_wait(const char *call, const cudaStream_t *stream, cudaEvent_t event);
/* a stream or event destroyed: a later one at the same address is numbered anew. */
void count_forget(const void *handle);
/* How STREAM orders its work against the others: "legacy" (0, cudaStreamLegacy),
 * "per-thread" (cudaStreamPerThread), "blocking" or "non-blocking" (its creation
 * flags). STREAM is live (runtime.cpp). */
const char *stream_kind(cudaStream_t stream);
/* cudaProfilerStart and cudaProfilerStop: a range of counting; stop appends
 * its totals to the CUDA_EMU_COUNT file. While the grader counts (its worker's
 * cuda_emu_count), the program's own calls of either change nothing. */
void count_start();
void count_stop();
extern std::atomic<bool> g_grader_counting;
/* ---- Device memory (devmem.cpp) ------------------------------------------ */

/* A device allocation's memory: anonymous memory of this process, or a memfd
 * once it is shared with another (CUDA IPC, a descriptor), mapped between
 * guard pages. Nothing has a name: it ends with the processes that map it. */
struct DeviceMapping {
    char *base;       /* the whole mapping: [guard page][data][guard page] */
    size_t map_len;   /* its length */
    char *data;       /* the allocation, page-aligned */
    size_t size;      /* bytes asked for; the rest of the mapping is a red zone */
    int fd;           /* the memfd behind data once this process shared it (closed with the
                         mapping); -1 while it is anonymous, and for another's, imported */
};
/* Maps SIZE bytes of new anonymous memory; false if the system refuses. */
bool devmem_create(size_t size, DeviceMapping *m);
/* Makes M's memory a memfd, contents and address kept, so that another process
 * can map it (M->fd); true at once if it is one already. False, with the reason
 * in WHY, if the system refuses (RLIMIT_FSIZE applies to sizing a memfd). */
bool devmem_share(DeviceMapping *m, char *why, size_t why_len);
/* Maps the memfd FD (another process's allocation, at least SIZE bytes, its
 * size sealed) into M; the caller closes FD (the mapping keeps the memory). */
bool devmem_import(int fd, size_t size, DeviceMapping *m);
/* Maps the shared allocation that process PID holds as descriptor FD, if that
 * is still the emulator's memfd with inode INODE (/proc/PID/fd/FD: needs the
 * right to inspect that process, as ptrace does). */
bool devmem_open_shared(int pid, int fd, uint64_t inode, size_t size, DeviceMapping *m);
/* Unmaps M and closes its memfd. */
void devmem_release(DeviceMapping *m);

/* ---- Reports (report.cpp) ---------------------------------------------- */

/* "file.cu:LINE" for a return address inside the program, or "pc 0x...". */
std::string where(const void *pc);
/* The same, past frames of the C++ library, the sanitizers and the C library
 * too (the line of an allocation in the program); "" if every frame is one. */
std::string where(const void *pc, bool skip_libraries);
/* "(x,y,z)" */
std::string dim_str(uint3 v);
/* The threads of B listed in TIDS, compactly: "(0,0,0)..(15,0,0), (20,0,0)". */
std::string thread_list(const Block *b, const std::vector<unsigned> &tids);
/* Prints "cuda-emu: error: WHAT in kernel K, block (..), thread (..)" (the
 * thread part only when T is not null) to stderr, and to the report channel
 * (report_channel) as report_line does its lines (a warning's lines not). In a launch only the first
 * error is reported (blocks running on other workers may fail too, once the
 * launch stops): a later report_head and its lines print nothing. */
void report_head(const char *what, const Block *b, const Thread *t);
/* Prints one indented detail line. */
void report_line(const char *fmt, ...) CUDA_EMU_PRINTF(1, 2);
/* A line (its newline added) to the emulator's own channel for its fault reports alone, not to
 * stderr: the fd CUDA_EMU_REPORT_FD names (a grader's worker gets one, where every report_head
 * and report_line goes too, so that the report it shows is the emulator's, never text of the
 * same form that the program printed); nothing without one. */
void report_channel(const char *fmt, ...) CUDA_EMU_PRINTF(1, 2);
/* Reads CUDA_EMU_REPORT_FD once, at start-up (init_runtime), and takes it out of the
 * environment. */
void report_channel_init();
/* Whether this host thread may print a warning in the running launch (none
 * once an error was reported); takes the lock that keeps reports whole,
 * released by report_done(). */
bool report_begin_warning();
void report_done();
/* A new launch starts on this host thread: its reports are not muted. */
void report_reset();
/* Describes the memory at [P, P+N) for a message: which allocation or
 * __shared__ variable, at what offset. */
std::string describe_memory(const void *p, size_t n);

} // namespace cuda_emu

#endif /* CUDA_EMU_INTERNAL_H */
