/*
 * runtime.cpp -- the CUDA runtime's host API on the CPU: the emulated device,
 * memory, streams, events, kernel attributes and error state.
 *
 * Work runs when it is issued (a copy copies, a launch runs the grid), so
 * every stream is idle and every recorded event complete by the time a call
 * returns; the legacy default stream's implicit synchronisation and
 * cudaStreamWaitEvent hold trivially. Event timestamps are host time at the
 * record, which is after the work issued before it: cudaEventElapsedTime
 * measures that work on the CPU. While counting (count.cpp), every copy,
 * memset, launch, event record and wait, and host wait is also written down
 * with its stream, in issue order: make explain orders them as a GPU's copy
 * engines and SMs would run them.
 *
 * Errors follow CUDA: a bad argument returns its code and becomes the last
 * error (cudaGetLastError returns and clears it); an error found while a
 * kernel runs (a race, a barrier not all threads reach ...) is sticky, like a
 * fault on a GPU: every later call returns it until cudaDeviceReset().
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>
#include <unordered_map>
#include <unordered_set>

#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

#include "../include/cuda_emu/share_fd.h"
#include "../include/cuda_emu/testing.h"
#include "emu_internal.h"

/* The opaque handle types of driver_types.h. */
struct Capture;
/* A stream's id (cudaStreamGetId): unique for the process's life, as on a GPU, where a stream
 * made after another was destroyed may take its handle but never its id. */
static unsigned long long next_stream_id()
{
    static std::atomic<unsigned long long> next{1};
    return next++;
}
struct CUstream_st {
    unsigned flags;   /* cudaStreamDefault or cudaStreamNonBlocking */
    int priority;     /* as created; has no effect here */
    Capture *capture; /* the capture this stream records into, or null (see Graphs) */
    std::vector<cudaGraphNode_t> tail; /* while capturing: what the stream's next work follows */
    unsigned long long id = next_stream_id(); /* cudaStreamGetId's: never one stream's twice */
};
struct CUevent_st {
    unsigned flags;   /* cudaEventDisableTiming ... */
    bool recorded;    /* cudaEventRecord has been called */
    long long ns;     /* host time of the last record, CLOCK_MONOTONIC */
    Capture *capture; /* recorded in this capture (null: recorded outside any) */
    std::vector<cudaGraphNode_t> tail; /* then: the nodes a wait on it follows */
};
/* A graph's node: what it runs (on the lane cudaGraphInstantiate gives it), and what it follows. */
struct CUgraphNode_st {
    cudaGraph_t graph;
    enum cudaGraphNodeType type;
    std::vector<cudaGraphNode_t> deps;                    /* the nodes it runs after */
    std::shared_ptr<std::function<cudaError_t(cudaStream_t)>> run; /* null: an empty node */
};
struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes; /* in the order they were added */
};
/* An instantiated graph: its nodes in an order that keeps every dependency (the engine runs one
 * thing at a time, so any such order is a schedule a GPU may choose), each on a lane: a chain of
 * nodes that follow one another, run on a stream of its own (lane 0 on the launch stream), as a
 * GPU runs a graph's branches side by side. */
struct CUgraphExec_st {
    struct Step {
        std::shared_ptr<std::function<cudaError_t(cudaStream_t)>> run; /* null: an empty node */
        unsigned lane;             /* 0: the launch stream; each other one a stream of the launch */
        std::vector<size_t> waits; /* the steps on other lanes it follows (indexes into steps) */
        bool signals;              /* a step on another lane follows it */
    };
    std::vector<Step> steps;
    unsigned lanes; /* lanes used, the launch stream's included */
};
/* One stream capture: the graph it builds and the stream that began it. */
struct Capture {
    cudaGraph_t graph;
    cudaStream_t origin;
    unsigned long long id;
    bool invalidated; /* an operation failed during capture: cudaStreamEndCapture says so */
};

namespace cuda_emu {
namespace {
/* Graphs (defined below, where the section begins). */
using Step = std::shared_ptr<std::function<cudaError_t(cudaStream_t)>>;
Step step(std::function<cudaError_t(cudaStream_t)> f);
Capture *capture_of(cudaStream_t stream);
bool captured(cudaStream_t stream, enum cudaGraphNodeType type, Step run, cudaError_t *result);
bool waits_on_capture(cudaStream_t stream, const char *call, cudaError_t *result);
} // namespace
} // namespace cuda_emu

namespace cuda_emu {

namespace {

/* An allocation from cudaMalloc or cudaMallocManaged, or a mapping opened
 * with cudaIpcOpenMemHandle. */
struct Allocation {
    size_t size;         /* bytes asked for */
    RegionKind kind;     /* device or managed */
    DeviceMapping *map;  /* the memory behind it (devmem.cpp) */
    bool imported;       /* opened from an IPC handle: cudaIpcCloseMemHandle unmaps it */
};

/* What cudaFuncSetAttribute set for one kernel. */
struct KernelAttributes { /* (as made: nothing set) */
    bool dynamic_set = false;      /* max_dynamic_shared was set (else the default applies) */
    size_t max_dynamic_shared = 0; /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    int carveout = -1;             /* cudaFuncAttributePreferredSharedMemoryCarveout, -1 unset */
    cudaFuncCache cache = cudaFuncCachePreferNone; /* cudaFuncSetCacheConfig: the carveout
                                                    * where none is set */
};

thread_local cudaError_t g_last_error = cudaSuccess; /* what cudaGetLastError returns (per host thread, as in CUDA) */
cudaError_t g_sticky = cudaSuccess;     /* a kernel fault: every call returns it */
size_t g_device_used;                   /* bytes of device memory handed out */
/* The tables below are never destroyed: LeakSanitizer checks after static
 * destructors run, and memory a program did not free before exit (CUDA frees
 * it with the context) must still be reachable from here. */
auto &g_device = *new std::unordered_map<void *, Allocation>();      /* device and managed memory */
auto &g_pinned = *new std::unordered_map<void *, size_t>();          /* cudaMallocHost memory */
auto &g_registered = *new std::unordered_map<void *, size_t>();      /* cudaHostRegister ranges */
auto &g_streams = *new std::unordered_set<cudaStream_t>();           /* live streams */
auto &g_events = *new std::unordered_set<cudaEvent_t>();             /* live events */
auto &g_kernels = *new std::unordered_map<const void *, KernelAttributes>(); /* by kernel address */

/* The environment variable NAME as a number, or FALLBACK if it is unset or
 * not a number (then with a note on stderr). */
size_t env_number(const char *name, size_t fallback)
{
    const char *text = getenv(name);
    if (text == nullptr || *text == '\0')
        return fallback;
    char *end = nullptr;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "cuda-emu: note: %s=%s is not a number; using %zu\n", name, text, fallback);
        return fallback;
    }
    return (size_t)v;
}

/* After a sanitizer report: which device allocation the bad address is next
 * to (AddressSanitizer cannot say: the emulator maps device memory itself),
 * and which CUDA thread made the access. */
void on_sanitizer_death()
{
    uintptr_t a = reinterpret_cast<uintptr_t>(__asan_get_report_address());
    for (auto &d : g_device) {
        const DeviceMapping *m = d.second.map;
        uintptr_t lo = reinterpret_cast<uintptr_t>(m->data), hi = lo + d.second.size;
        uintptr_t map_lo = reinterpret_cast<uintptr_t>(m->base);
        if (a == 0 || a < map_lo || a >= map_lo + m->map_len || (a >= lo && a < hi))
            continue;
        fprintf(stderr, "cuda-emu: the address is %zu bytes %s a %zu-byte %s allocation\n",
                a >= hi ? (size_t)(a - hi) : (size_t)(lo - a),
                a >= hi ? "past the end of" : "before the start of", d.second.size,
                d.second.imported ? "cudaIpcOpenMemHandle"
                : d.second.kind == RegionKind::managed ? "cudaMallocManaged" : "cudaMalloc");
    }
    if (g_thread != nullptr && g_launch != nullptr)
        fprintf(stderr, "cuda-emu: error: the report above is from kernel %s, block %s, thread %s\n",
                g_launch->name, dim_str(g_thread->block->idx).c_str(),
                dim_str(g_thread->idx).c_str());
    /* the channel: a sanitizer's report, the last in the log, ended the process (its text is
     * the sanitizer's own, in the log alone) */
    report_channel("cuda-emu: sanitizer: a sanitizer's report ended the process%s%s%s%s%s%s",
                   g_launch != nullptr ? " in kernel " : "", g_launch != nullptr ? g_launch->name : "",
                   g_thread != nullptr ? ", block " : "",
                   g_thread != nullptr ? dim_str(g_thread->block->idx).c_str() : "",
                   g_thread != nullptr ? ", thread " : "",
                   g_thread != nullptr ? dim_str(g_thread->idx).c_str() : "");
}

/* The device allocation that holds [P, P+N) entirely, or null. */
const Allocation *device_range(const void *p, size_t n)
{
    RegionKind kind;
    void *base = nullptr;
    size_t size = 0;
    if (find_tracked(p, n == 0 ? 1 : n, &kind, &base, &size) &&
        (kind == RegionKind::device || kind == RegionKind::managed)) {
        auto it = g_device.find(base);
        return it == g_device.end() ? nullptr : &it->second;
    }
    /* Allocations too large to check are not tracked; look them up directly. */
    for (auto &a : g_device) {
        const char *lo = static_cast<const char *>(a.first);
        if (p >= lo && static_cast<const char *>(p) + n <= lo + a.second.size)
            return &a.second;
    }
    return nullptr;
}

/* The name of a copy direction, for messages. */
const char *kind_name(cudaMemcpyKind kind)
{
    static const char *const names[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                        "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                        "cudaMemcpyDefault"};
    return (unsigned)kind < 5 ? names[kind] : "an unknown cudaMemcpyKind";
}

/* One contiguous copy of COUNT bytes for the API call WHAT at PC. */
cudaError_t copy(void *dst, const void *src, size_t count, cudaMemcpyKind kind, const char *what,
                 const void *pc)
{
    if (count == 0)
        return cudaSuccess;
    if (dst == nullptr || src == nullptr)
        return record_error(cudaErrorInvalidValue);
    bool dst_dev = device_range(dst, count) != nullptr;
    bool src_dev = device_range(src, count) != nullptr;
    if ((unsigned)kind > cudaMemcpyDefault)
        return record_error(cudaErrorInvalidMemcpyDirection);
    if (kind == cudaMemcpyDefault)
        kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                       : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    bool want_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool want_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((want_dst_dev && !dst_dev) || (want_src_dev && !src_dev)) {
        fprintf(stderr,
                "cuda-emu: %s(%s) of %zu bytes at %s fails: the %s %p is not device memory from "
                "cudaMalloc, or the copy runs past the end of its allocation "
                "(cudaErrorInvalidValue)\n",
                what, kind_name(kind), count, where(pc).c_str(),
                want_dst_dev && !dst_dev ? "destination" : "source",
                want_dst_dev && !dst_dev ? dst : const_cast<void *>(src));
        return record_error(cudaErrorInvalidValue);
    }
    if (src_dev && !dst_dev)
        check_written(src, count, what, pc);
    if (dst_dev)
        copy_written(dst, src, count);
    if (src_dev && dst_dev)
        memmove(dst, src, count); /* within device memory the ranges may overlap */
    else
        memcpy(dst, src, count);
    return cudaSuccess;
}

cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                    size_t height, cudaMemcpyKind kind, const char *what, const void *pc)
{
    if (width > dpitch || width > spitch)
        return record_error(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; ++row) {
        cudaError_t err = copy(static_cast<char *>(dst) + row * dpitch,
                               static_cast<const char *>(src) + row * spitch, width, kind, what, pc);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* cudaMemset of COUNT bytes at P, which must lie in one device allocation;
 * WHAT and PC name the API call in messages. */
cudaError_t fill(void *p, int value, size_t count, const char *what, const void *pc)
{
    if (count == 0)
        return cudaSuccess;
    if (device_range(p, count) == nullptr) {
        fprintf(stderr,
                "cuda-emu: %s of %zu bytes at %s fails: %p is not device memory from cudaMalloc, "
                "or the range runs past the end of its allocation (cudaErrorInvalidValue)\n",
                what, count, where(pc).c_str(), p);
        return record_error(cudaErrorInvalidValue);
    }
    memset(p, value, count);
    mark_written(p, count);
    return cudaSuccess;
}

/* A device (or managed) allocation of SIZE bytes, 256-byte aligned as
 * cudaMalloc's are, poisoned and tracked; PC is where it was asked for. */
cudaError_t allocate(void **ptr, size_t size, RegionKind kind, const void *pc)
{
    if (ptr == nullptr)
        return record_error(cudaErrorInvalidValue);
    *ptr = nullptr;
    if (size == 0)
        return cudaSuccess;
    if (size > kGlobalMem - g_device_used)
        return record_error(cudaErrorMemoryAllocation);
    DeviceMapping *m = new DeviceMapping();
    if (!devmem_create(size, m)) {
        delete m;
        return record_error(cudaErrorMemoryAllocation);
    }
    void *p = m->data;
    /* Fresh memory is poison (NaN as float, -1 as int), so a skipped write shows. */
    memset(p, 0xff, size);
    track_region(p, size, kind, nullptr, 1, pc);
    g_device[p] = Allocation{size, kind, m, false};
    g_device_used += size;
    *ptr = p;
    return cudaSuccess;
}

/* Frees the device allocation (or IPC mapping) that starts at P;
 * cudaErrorInvalidValue if none does. */
cudaError_t release(void *p)
{
    auto it = g_device.find(p);
    if (it == g_device.end())
        return record_error(cudaErrorInvalidValue);
    untrack_region(p);
    if (!it->second.imported)
        g_device_used -= it->second.size;
    DeviceMapping *m = it->second.map;
    g_device.erase(it);
    devmem_release(m);
    delete m;
    return cudaSuccess;
}

/* The start of most API calls: one host thread at a time in the runtime (the
 * lock is held to the end of the call), and the sticky error. */
#define CUDA_EMU_STICKY()                                                               \
    std::lock_guard<std::recursive_mutex> cuda_emu_api_lock(api_mutex());               \
    init_runtime();                                                                     \
    finish_overtaken_launch();                                                          \
    if (g_sticky != cudaSuccess)                                                        \
    return record_error(g_sticky)

/* CUDA's name and message for each error code this runtime returns. */
struct ErrorText {
    cudaError_t code;    /* the error */
    const char *name;    /* what cudaGetErrorName returns */
    const char *message; /* what cudaGetErrorString returns */
};
const ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorProfilerDisabled, "cudaErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorStartupFailure, "cudaErrorStartupFailure", "device not ready"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorMapBufferObjectFailed, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorContextIsDestroyed, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorHardwareStackError, "cudaErrorHardwareStackError", "hardware stack error"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
    {cudaErrorInvalidPc, "cudaErrorInvalidPc", "invalid program counter"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorCapturedEvent, "cudaErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorTimeout, "cudaErrorTimeout", "wait operation timed out"},
    {cudaErrorInvalidClusterSize, "cudaErrorInvalidClusterSize", "invalid cluster size"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

/* The table row of ERR, or null for a code the table does not hold. */
const ErrorText *error_text(cudaError_t err)
{
    for (const ErrorText &e : kErrors)
        if (e.code == err)
            return &e;
    return nullptr;
}

} // namespace

bool host_mapped_span(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    for (const auto *table : {&g_pinned, &g_registered})
        for (const auto &r : *table) {
            uintptr_t b = reinterpret_cast<uintptr_t>(r.first);
            if (a - b < r.second) {
                *lo = b;
                *hi = b + r.second;
                return true;
            }
        }
    return false;
}

/* ---- Called by the headers' templates ------------------------------------- */

cudaError_t symbol_copy(void *symbol, size_t symbol_size, size_t offset, const void *data,
                        size_t count, cudaMemcpyKind kind, bool to_symbol)
{
    CUDA_EMU_STICKY();
    if (symbol == nullptr)
        return record_error(cudaErrorInvalidSymbol);
    if (offset > symbol_size || count > symbol_size - offset)
        return record_error(cudaErrorInvalidValue);
    bool ok_kind = kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
                   kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (!ok_kind)
        return record_error(cudaErrorInvalidMemcpyDirection);
    char *at = static_cast<char *>(symbol) + offset;
    if (to_symbol)
        memcpy(at, data, count);
    else
        memcpy(const_cast<void *>(data), at, count);
    return cudaSuccess;
}

/* ---- Shared with the other parts (emu_internal.h) ------------------------- */

namespace {

/* The settings, read from the environment on first use. */
Settings &mutable_settings()
{
    static Settings s = [] {
        Settings v;
        v.check = env_number("CUDA_EMU_CHECK", 1) != 0;
        v.spin_limit = (unsigned)env_number("CUDA_EMU_SPIN_LIMIT", 20000);
        if (v.spin_limit == 0)
            v.spin_limit = 1;
        v.stack_bytes = env_number("CUDA_EMU_STACK_KB", 256) * 1024;
        if (v.stack_bytes < 64 * 1024)
            v.stack_bytes = 64 * 1024;
        v.check_max = env_number("CUDA_EMU_CHECK_MAX_MB", 256) << 20;
        /* Blocks run on as many host threads as this process has CPUs (at
         * most 8: beyond that the shared bookkeeping's locks cost more). */
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        unsigned ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (unsigned)CPU_COUNT(&cpus) : 1;
        v.workers = (unsigned)env_number("CUDA_EMU_WORKERS", std::min(ncpu, 8u));
        if (v.workers == 0)
            v.workers = 1;
        if (v.workers > 64)
            v.workers = 64;
        v.sms = (int)env_number("CUDA_EMU_SMS", kDefaultSMs);
        if (v.sms < 1 || v.sms > 1024)
            v.sms = kDefaultSMs;
        return v;
    }();
    return s;
}

} // namespace

const Settings &settings() { return mutable_settings(); }

std::recursive_mutex &api_mutex()
{
    static std::recursive_mutex &m = *new std::recursive_mutex();
    return m;
}

bool g_check = true;

void set_checks(bool on) { mutable_settings().check = g_check = on; }

void init_runtime()
{
    static bool done = false;
    if (done)
        return;
    done = true;
    g_check = settings().check;
    report_channel_init();
    init_tracking();
    __sanitizer_set_death_callback(on_sanitizer_death);
    /* UBSan's runtime is a library of its own, with its own list of death
     * callbacks; the call above reached AddressSanitizer's. */
    if (void *ubsan = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD)) {
        auto set = reinterpret_cast<void (*)(void (*)())>(dlsym(ubsan, "__sanitizer_set_death_callback"));
        if (set != nullptr)
            set(on_sanitizer_death);
        dlclose(ubsan);
    }
}

cudaError_t record_error(cudaError_t err)
{
    if (err != cudaSuccess)
        g_last_error = err;
    return err;
}

void set_sticky_error(cudaError_t err)
{
    g_sticky = err;
    g_last_error = err;
}

cudaError_t sticky_error() { return g_sticky; }

bool stream_valid(cudaStream_t s)
{
    return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ||
           g_streams.count(s) != 0;
}

const char *stream_kind(cudaStream_t s)
{
    if (s == nullptr || s == cudaStreamLegacy)
        return "legacy";
    if (s == cudaStreamPerThread)
        return "per-thread";
    return g_streams.count(s) && (s->flags & cudaStreamNonBlocking) ? "non-blocking" : "blocking";
}

namespace {

/* While counting: the copy CALL issued on STREAM, COUNT bytes from SRC to DST, as the engine
 * that runs it on a GPU sees it: its direction, and whether its host side is pinned (the
 * copy engine reads it directly) or pageable (the driver stages it, and the host waits). */
void count_copy(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
                const char *call)
{
    if (!g_counting || count == 0)
        return;
    const bool dst_dev = device_range(dst, 1) != nullptr, src_dev = device_range(src, 1) != nullptr;
    if (kind == cudaMemcpyDefault)
        kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                       : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    const void *host = kind == cudaMemcpyHostToDevice ? src : kind == cudaMemcpyDeviceToHost ? dst : nullptr;
    uintptr_t lo, hi;
    const char *memory = host == nullptr ? "-"
                         : host_mapped_span(reinterpret_cast<uintptr_t>(host), &lo, &hi) ? "pinned"
                                                                                         : "pageable";
    const char *what = kind == cudaMemcpyHostToDevice   ? "h2d"
                       : kind == cudaMemcpyDeviceToHost ? "d2h"
                       : kind == cudaMemcpyDeviceToDevice ? "d2d"
                                                          : "h2h";
    count_op(what, stream, count, memory, call);
}

} // namespace

namespace {

/* Per kernel, what is known of it from outside its runs: its __launch_bounds__ (from its
 * registration or its first run), the figures of nvcc's build of its file (where the file asked
 * for them: register_kernel_resources) and the static shared memory its blocks used. Filled by
 * static initializers and by kernels' first runs on any worker: a lock of its own, a table made
 * on first use. kernel_figures reads it. */
struct Noted {
    int bounds_registers; /* what __launch_bounds__(N, M) leave a thread (0: no M named) */
    int max_threads;      /* __launch_bounds__'s N, or the PTX's .maxntid (0: none) */
    size_t seen_shared;   /* the most static __shared__ bytes a block used */
    bool measured;        /* nvcc's figures below are known */
    int registers;        /* nvcc's: per thread */
    int barriers;         /* nvcc's: named barriers per block */
    size_t shared;        /* nvcc's: static __shared__ bytes per block */
    size_t local_bytes;   /* nvcc's: local memory per thread */
    size_t const_bytes;   /* nvcc's: the file's __constant__ bytes */
};
std::mutex &noted_mutex()
{
    static std::mutex &m = *new std::mutex();
    return m;
}
std::unordered_map<const void *, Noted> &noted_table()
{
    static auto &m = *new std::unordered_map<const void *, Noted>();
    return m;
}

size_t round_up(size_t n, size_t unit)
{
    return (n + unit - 1) / unit * unit;
}

/* The smallest of the SM's shared memory sizes (its carveout choices, compute capability 9.0)
 * that holds BYTES. */
size_t shared_config(size_t bytes)
{
    static const size_t kb[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    for (size_t k : kb)
        if (bytes <= k * 1024)
            return k * 1024;
    return kSharedPerSM;
}

} // namespace

size_t kernel_max_dynamic_shared(const void *kernel)
{
    if (kernel == nullptr)
        return kSharedOptin; /* unknown kernel: only the device limit can be checked */
    auto it = g_kernels.find(kernel);
    if (it != g_kernels.end() && it->second.dynamic_set)
        return it->second.max_dynamic_shared;
    const size_t static_bytes = kernel_figures(kernel).static_shared;
    return static_bytes < kSharedPerBlock ? kSharedPerBlock - static_bytes : 0;
}

int threads_for_registers(int registers)
{
    const int per_warp = (int)round_up((size_t)std::max(registers, 0) * kWarpSize, kRegAllocUnit);
    if (per_warp == 0)
        return kMaxThreadsPerBlock;
    const int warps = kRegsPerBlock / per_warp / kSubPartitions * kSubPartitions;
    return std::min(kMaxThreadsPerBlock, warps * kWarpSize);
}

int blocks_per_sm(const Footprint &f)
{
    if (f.threads <= 0 || f.threads > kMaxThreadsPerBlock || f.registers > kMaxRegsPerThread)
        return 0;
    const int warps = (f.threads + kWarpSize - 1) / kWarpSize;
    const int by_warps = kMaxThreadsPerSM / kWarpSize / warps;
    /* Registers: a warp's come from one of the four register files of the SM. */
    const int per_warp = (int)round_up((size_t)std::max(f.registers, 0) * kWarpSize, kRegAllocUnit);
    if (per_warp * (int)round_up(warps, kSubPartitions) > kRegsPerBlock)
        return 0; /* as the hardware checks a launch: warps rounded up to the four */
    const int by_registers =
        per_warp == 0 ? kMaxBlocksPerSM : kRegsPerSM / kSubPartitions / per_warp * kSubPartitions / warps;
    /* Shared memory: the SM takes the carveout the kernel prefers, or the largest, and a larger
     * one where a block would not fit in it. */
    const size_t block = round_up(f.shared + kReservedSharedPerBlock, kSharedAllocUnit);
    if (block > f.shared_limit + kReservedSharedPerBlock)
        return 0;
    size_t per_sm = f.carveout < 0 ? kSharedPerSM : shared_config(f.carveout * kSharedPerSM / 100);
    if (per_sm < block)
        per_sm = shared_config(block);
    const int by_shared = (int)(per_sm / block);
    /* Named barriers: an SM has two for each block it may hold. */
    const int by_barriers = f.barriers > 0 ? 2 * kMaxBlocksPerSM / f.barriers : kMaxBlocksPerSM;
    return std::min({by_warps, by_registers, by_shared, by_barriers, kMaxBlocksPerSM});
}

Footprint kernel_footprint(const void *kernel, int threads, size_t dynamic)
{
    const KernelFigures k = kernel_figures(kernel);
    auto it = g_kernels.find(kernel);
    const bool optin = it != g_kernels.end() && it->second.dynamic_set &&
                       k.static_shared + kReservedSharedPerBlock + it->second.max_dynamic_shared >
                           kSharedPerBlock;
    /* The carveout the kernel prefers; where it names none, what its cache configuration
     * stands for (as cuda_occupancy.h maps it) */
    int carveout = -1;
    if (it != g_kernels.end()) {
        static const int of_cache[] = {-1, 100, 0, 50}; /* none, shared, L1, equal */
        carveout = it->second.carveout >= 0 ? it->second.carveout : of_cache[it->second.cache];
    }
    return Footprint{threads,
                     k.registers,
                     k.barriers,
                     k.static_shared + dynamic,
                     optin || kernel == nullptr ? kSharedOptin : kSharedPerBlock,
                     carveout};
}

KernelFigures kernel_figures(const void *kernel)
{
    KernelFigures f{kRegsPerThread, kMaxThreadsPerBlock, 0, 0, 0, 0, false};
    {
        std::lock_guard<std::mutex> lock(noted_mutex());
        auto it = noted_table().find(kernel);
        if (it != noted_table().end()) {
            const Noted &n = it->second;
            f.measured = n.measured;
            f.registers = n.measured ? n.registers : n.bounds_registers ? n.bounds_registers : kRegsPerThread;
            f.barriers = n.measured ? n.barriers : 0;
            f.static_shared = n.measured ? n.shared : n.seen_shared;
            f.local_bytes = n.measured ? n.local_bytes : 0;
            f.const_bytes = n.measured ? n.const_bytes : 0;
            if (n.max_threads > 0)
                f.max_threads = std::min(n.max_threads, kMaxThreadsPerBlock);
        }
    }
    f.max_threads = std::min(f.max_threads, threads_for_registers(f.registers));
    return f;
}

void note_launch_bounds(const void *kernel, long long max_threads, long long min_blocks)
{
    if (kernel == nullptr || max_threads <= 0)
        return;
    const int threads = (int)std::min<long long>(max_threads, kMaxThreadsPerBlock);
    int registers = 0;
    if (min_blocks > 0) /* nvcc keeps to what leaves MIN_BLOCKS blocks room on an SM */
        for (registers = kMaxRegsPerThread; registers > 8; registers = (registers - 1) / 8 * 8)
            if (blocks_per_sm(Footprint{threads, registers, 0, 0, kSharedPerBlock, -1}) >= min_blocks)
                break;
    std::lock_guard<std::mutex> lock(noted_mutex());
    Noted &n = noted_table()[kernel];
    n.bounds_registers = registers;
    n.max_threads = n.max_threads > 0 ? std::min(n.max_threads, threads) : threads;
}

void note_static_shared(const void *kernel, size_t bytes)
{
    if (kernel == nullptr || bytes == 0)
        return;
    std::lock_guard<std::mutex> lock(noted_mutex());
    Noted &n = noted_table()[kernel];
    n.seen_shared = std::max(n.seen_shared, bytes);
}

bool register_kernel_bounds(const void *kernel, long long max_threads, long long min_blocks,
                            long long max_blocks_per_cluster)
{
    (void)max_blocks_per_cluster;
    note_launch_bounds(kernel, max_threads, min_blocks);
    return true;
}

bool register_kernel_resources(const KernelResources *table, size_t count)
{
    for (size_t i = 0; table != nullptr && i < count; ++i) {
        const KernelResources &r = table[i];
        /* Figures nvcc could give; any other row is not nvcc's, and left out. */
        if (r.kernel == nullptr || r.registers < 0 || r.registers > kMaxRegsPerThread ||
            r.barriers < 0 || r.barriers > 16 || r.shared_bytes < 0 ||
            (size_t)r.shared_bytes > kSharedPerBlock || r.local_bytes < 0 ||
            r.local_bytes > (1LL << 24) || r.const_bytes < 0 || r.const_bytes > 65536 ||
            r.max_threads < 0 || r.max_threads > kMaxThreadsPerBlock)
            continue;
        std::lock_guard<std::mutex> lock(noted_mutex());
        Noted &n = noted_table()[r.kernel];
        n.measured = true;
        n.registers = r.registers;
        n.barriers = r.barriers;
        n.shared = (size_t)r.shared_bytes;
        n.local_bytes = (size_t)r.local_bytes;
        n.const_bytes = (size_t)r.const_bytes;
        if (r.max_threads > 0)
            n.max_threads = n.max_threads > 0 ? std::min(n.max_threads, r.max_threads) : r.max_threads;
    }
    return true;
}

} // namespace cuda_emu

using namespace cuda_emu;

/* ---- Errors ---------------------------------------------------------------- */

cudaError_t cudaGetLastError(void)
{
    cudaError_t err = g_last_error;
    g_last_error = g_sticky;
    return err;
}

cudaError_t cudaPeekAtLastError(void) { return g_last_error; }

const char *cudaGetErrorString(cudaError_t error)
{
    const ErrorText *e = error_text(error);
    return e ? e->message : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error)
{
    const ErrorText *e = error_text(error);
    return e ? e->name : "cudaErrorUnknown";
}

/* ---- Device ---------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == nullptr)
        return record_error(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (device == nullptr)
        return record_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : record_error(cudaErrorInvalidDevice);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    (void)flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (flags == nullptr)
        return record_error(cudaErrorInvalidValue);
    *flags = cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (value == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (device != 0)
        return record_error(cudaErrorInvalidDevice);
    int v = 0;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = kMaxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = kMaxBlockDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = kMaxBlockDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = kMaxBlockDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = kMaxGridDim[0]; break;
    case cudaDevAttrMaxGridDimY: v = kMaxGridDim[1]; break;
    case cudaDevAttrMaxGridDimZ: v = kMaxGridDim[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)kSharedPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = 65536; break;
    case cudaDevAttrWarpSize: v = kWarpSize; break;
    case cudaDevAttrMaxPitch: v = 2147483647; break;
    case cudaDevAttrMaxRegistersPerBlock: v = kRegsPerBlock; break;
    case cudaDevAttrClockRate: v = 1000000; break;       /* kHz: clock64() counts ns */
    case cudaDevAttrTextureAlignment: v = 512; break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = settings().sms; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = 0; break;
    case cudaDevAttrPciBusId: v = 0; break;
    case cudaDevAttrPciDeviceId: v = 0; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = 1000000; break; /* kHz, nominal */
    case cudaDevAttrGlobalMemoryBusWidth: v = 256; break;
    case cudaDevAttrL2CacheSize: v = kL2Bytes; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = kMaxThreadsPerSM; break;
    case cudaDevAttrAsyncEngineCount: v = 2; break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrPciDomainId: v = 0; break;
    case cudaDevAttrTexturePitchAlignment: v = 32; break;
    case cudaDevAttrComputeCapabilityMajor: v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: v = 0; break;
    case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
    case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)kSharedPerSM; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = kRegsPerSM; break;
    case cudaDevAttrManagedMemory: v = 1; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 1; break;
    case cudaDevAttrComputePreemptionSupported: v = 0; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)kSharedOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = 1; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = kMaxBlocksPerSM; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = kL2Bytes * 3 / 4; break; /* a hint: accepted */
    case cudaDevAttrMaxAccessPolicyWindowSize: v = 128 << 20; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)kReservedSharedPerBlock; break;
    case cudaDevAttrMemoryPoolsSupported: v = 1; break;
    case cudaDevAttrClusterLaunch: v = 0; break;
    default: return record_error(cudaErrorInvalidValue);
    }
    *value = v;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (prop == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (device != 0)
        return record_error(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "CUDA CPU emulator (cuda-emu)");
    /* Every field that has a device attribute reads it, so the two agree. */
    auto attr = [](cudaDeviceAttr a) {
        int v = 0;
        cudaDeviceGetAttribute(&v, a, 0);
        return v;
    };
    prop->totalGlobalMem = kGlobalMem;
    prop->sharedMemPerBlock = kSharedPerBlock;
    prop->regsPerBlock = attr(cudaDevAttrMaxRegistersPerBlock);
    prop->warpSize = kWarpSize;
    prop->memPitch = (size_t)attr(cudaDevAttrMaxPitch);
    prop->maxThreadsPerBlock = kMaxThreadsPerBlock;
    for (int a = 0; a < 3; ++a) {
        prop->maxThreadsDim[a] = kMaxBlockDim[a];
        prop->maxGridSize[a] = kMaxGridDim[a];
    }
    prop->totalConstMem = (size_t)attr(cudaDevAttrTotalConstantMemory);
    prop->major = attr(cudaDevAttrComputeCapabilityMajor);
    prop->minor = attr(cudaDevAttrComputeCapabilityMinor);
    prop->textureAlignment = (size_t)attr(cudaDevAttrTextureAlignment);
    prop->texturePitchAlignment = (size_t)attr(cudaDevAttrTexturePitchAlignment);
    prop->multiProcessorCount = settings().sms;
    prop->canMapHostMemory = attr(cudaDevAttrCanMapHostMemory);
    prop->surfaceAlignment = 512;
    prop->concurrentKernels = attr(cudaDevAttrConcurrentKernels);
    prop->asyncEngineCount = attr(cudaDevAttrAsyncEngineCount);
    prop->unifiedAddressing = attr(cudaDevAttrUnifiedAddressing);
    prop->memoryBusWidth = attr(cudaDevAttrGlobalMemoryBusWidth);
    prop->l2CacheSize = kL2Bytes;
    prop->maxThreadsPerMultiProcessor = kMaxThreadsPerSM;
    prop->streamPrioritiesSupported = attr(cudaDevAttrStreamPrioritiesSupported);
    prop->globalL1CacheSupported = attr(cudaDevAttrGlobalL1CacheSupported);
    prop->localL1CacheSupported = attr(cudaDevAttrLocalL1CacheSupported);
    prop->sharedMemPerMultiprocessor = kSharedPerSM;
    prop->regsPerMultiprocessor = kRegsPerSM;
    prop->managedMemory = attr(cudaDevAttrManagedMemory);
    prop->concurrentManagedAccess = attr(cudaDevAttrConcurrentManagedAccess);
    prop->canUseHostPointerForRegisteredMem = attr(cudaDevAttrCanUseHostPointerForRegisteredMem);
    prop->sharedMemPerBlockOptin = kSharedOptin;
    prop->directManagedMemAccessFromHost = attr(cudaDevAttrDirectManagedMemAccessFromHost);
    prop->maxBlocksPerMultiProcessor = kMaxBlocksPerSM;
    prop->reservedSharedMemPerBlock = kReservedSharedPerBlock;
    prop->hostRegisterSupported = attr(cudaDevAttrHostRegisterSupported);
    prop->memoryPoolsSupported = attr(cudaDevAttrMemoryPoolsSupported);
    prop->cooperativeLaunch = attr(cudaDevAttrCooperativeLaunch);
    prop->persistingL2CacheMaxSize = attr(cudaDevAttrMaxPersistingL2CacheSize);
    prop->accessPolicyMaxWindowSize = attr(cudaDevAttrMaxAccessPolicyWindowSize);
    prop->hostNumaId = -1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

namespace {

/* The device's limits (cudaDeviceSetLimit), by enum cudaLimit: CUDA's defaults until set, and
 * again after cudaDeviceReset. None changes what the emulator does (a kernel's stack, its printf
 * and its malloc are the host's); a program reads back what it set, as on a GPU. */
constexpr std::array<size_t, cudaLimitPersistingL2CacheSize + 1> kDefaultLimits = {1024, 1 << 20, 8 << 20, 2,
                                                                                   2048, 64, 0};
std::array<size_t, kDefaultLimits.size()> g_limits = kDefaultLimits;

} // namespace

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
        return record_error(cudaErrorUnsupportedLimit);
    if ((limit == cudaLimitMaxL2FetchGranularity && value > 128) ||
        (limit == cudaLimitPersistingL2CacheSize && value > (size_t)kL2Bytes * 3 / 4))
        return record_error(cudaErrorInvalidValue);
    g_limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    if (value == nullptr)
        return record_error(cudaErrorInvalidValue);
    if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
        return record_error(cudaErrorUnsupportedLimit);
    *value = g_limits[limit];
    return cudaSuccess;
}

namespace {
cudaFuncCache g_device_cache = cudaFuncCachePreferNone; /* cudaDeviceSetCacheConfig's, read back */
} // namespace

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    if ((unsigned)config > cudaFuncCachePreferEqual)
        return record_error(cudaErrorInvalidValue);
    g_device_cache = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (config == nullptr)
        return record_error(cudaErrorInvalidValue);
    *config = g_device_cache;
    return cudaSuccess;
}

/* The one device is the best match for any properties. */
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (device == nullptr || prop == nullptr)
        return record_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

/* Its PCI domain, bus and device, as cudaDevAttrPciDomainId, ...BusId and ...DeviceId give them. */
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (pciBusId == nullptr || len <= 0)
        return record_error(cudaErrorInvalidValue);
    if (device != 0)
        return record_error(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "0000:00:00.0");
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    CUDA_EMU_STICKY();
    count_host_wait("cudaDeviceSynchronize", nullptr, nullptr);
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    init_runtime();
    {
        std::lock_guard<std::recursive_mutex> lock(api_mutex());
        finish_overtaken_launch();
    }
    while (!g_device.empty())
        release(g_device.begin()->first);
    for (auto &p : g_pinned)
        free(p.first);
    g_pinned.clear();
    g_registered.clear();
    forget_reachable();
    for (cudaStream_t s : g_streams)
        delete s;
    g_streams.clear();
    for (cudaEvent_t e : g_events)
        delete e;
    g_events.clear();
    g_kernels.clear();
    g_limits = kDefaultLimits;
    g_device_cache = cudaFuncCachePreferNone;
    reset_uninitialized_reports();
    g_sticky = cudaSuccess;
    g_last_error = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (driverVersion == nullptr)
        return record_error(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (runtimeVersion == nullptr)
        return record_error(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- Memory ---------------------------------------------------------------- */

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    CUDA_EMU_STICKY();
    return allocate(devPtr, size, RegionKind::device, CUDA_EMU_PC);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    (void)flags;
    CUDA_EMU_STICKY();
    note_host_writable_memory();
    return allocate(devPtr, size, RegionKind::managed, CUDA_EMU_PC);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    CUDA_EMU_STICKY();
    if (pitch == nullptr)
        return record_error(cudaErrorInvalidValue);
    *pitch = (width + 511) / 512 * 512; /* rows start on 512-byte boundaries */
    return allocate(devPtr, *pitch * height, RegionKind::device, CUDA_EMU_PC);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    return allocate(devPtr, size, RegionKind::device, CUDA_EMU_PC);
}

cudaError_t cudaFree(void *devPtr)
{
    CUDA_EMU_STICKY();
    if (devPtr == nullptr)
        return cudaSuccess;
    auto found = g_device.find(devPtr);
    if (found == g_device.end() || found->second.imported) {
        fprintf(stderr,
                "cuda-emu: cudaFree(%p) at %s fails: not a pointer cudaMalloc returned, or "
                "already freed, or opened with cudaIpcOpenMemHandle (close that with "
                "cudaIpcCloseMemHandle) (cudaErrorInvalidValue)\n",
                devPtr, where(CUDA_EMU_PC).c_str());
        return record_error(cudaErrorInvalidValue);
    }
    return release(devPtr);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (devPtr == nullptr)
        return cudaSuccess;
    return release(devPtr);
}

cudaError_t cudaMallocHost(void **ptr, size_t size) { return cudaHostAlloc(ptr, size, 0); }

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if (flags & cudaHostAllocMapped)
        note_host_writable_memory();
    if (pHost == nullptr)
        return record_error(cudaErrorInvalidValue);
    void *p = nullptr;
    if (posix_memalign(&p, 256, size == 0 ? 1 : size) != 0)
        return record_error(cudaErrorMemoryAllocation);
    memset(p, 0xff, size);
    g_pinned[p] = size;
    *pHost = p;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
    CUDA_EMU_STICKY();
    if (ptr == nullptr)
        return cudaSuccess;
    auto it = g_pinned.find(ptr);
    if (it == g_pinned.end()) {
        fprintf(stderr,
                "cuda-emu: cudaFreeHost(%p) at %s fails: not a pointer cudaMallocHost or "
                "cudaHostAlloc returned (cudaErrorInvalidValue)\n",
                ptr, where(CUDA_EMU_PC).c_str());
        return record_error(cudaErrorInvalidValue);
    }
    g_pinned.erase(it);
    forget_reachable();
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if (flags & cudaHostRegisterMapped)
        note_host_writable_memory();
    if (ptr == nullptr || size == 0)
        return record_error(cudaErrorInvalidValue);
    const char *lo = static_cast<const char *>(ptr);
    for (auto &r : g_registered)
        if (lo < static_cast<char *>(r.first) + r.second && static_cast<char *>(r.first) < lo + size)
            return record_error(cudaErrorHostMemoryAlreadyRegistered);
    g_registered[ptr] = size;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    CUDA_EMU_STICKY();
    if (ptr == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (g_registered.erase(ptr) == 0)
        return record_error(cudaErrorHostMemoryNotRegistered);
    forget_reachable();
    return cudaSuccess;
}

/* An event opened from another process's handle: work is done when it is
 * issued, so whatever it marks is complete; it counts as recorded. */
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    CUDA_EMU_STICKY();
    if (handle == nullptr || g_events.count(event) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    if ((event->flags & cudaEventInterprocess) == 0 || (event->flags & cudaEventDisableTiming) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, "cuda-emu event", 14);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    CUDA_EMU_STICKY();
    if (event == nullptr || memcmp(handle.reserved, "cuda-emu event", 14) != 0)
        return record_error(cudaErrorInvalidResourceHandle);
    *event = new CUevent_st{cudaEventDisableTiming | cudaEventInterprocess, true, 0, nullptr, {}};
    g_events.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    (void)length;
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (devPtr == nullptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost &&
                              flags != cudaMemAttachSingle))
        return record_error(cudaErrorInvalidValue);
    return cudaSuccess;
}

/* One device: no peers. */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (canAccessPeer == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        return record_error(cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    (void)peerDevice, (void)flags;
    return record_error(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    (void)peerDevice;
    return record_error(cudaErrorInvalidDevice);
}

/* ---- Managed memory hints and memory pools -------------------------------- */

/* One memory space, work done at issue: a prefetch or advice only checks its arguments. */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    (void)flags;
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (devPtr == nullptr || device_range(devPtr, count) == nullptr ||
        (location.type == cudaMemLocationTypeDevice && location.id != 0))
        return record_error(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location)
{
    (void)advice, (void)location;
    CUDA_EMU_STICKY();
    if (devPtr == nullptr || device_range(devPtr, count) == nullptr)
        return record_error(cudaErrorInvalidValue);
    return cudaSuccess;
}

struct CUmemPoolHandle_st {
    size_t release_threshold; /* cudaMemPoolAttrReleaseThreshold, kept for Get */
    size_t used, used_high;   /* bytes handed out now and at most (not tracked per pool) */
};
namespace {
CUmemPoolHandle_st g_default_pool;
cudaMemPool_t g_current_pool = &g_default_pool;
} // namespace

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (memPool == nullptr || device != 0)
        return record_error(memPool == nullptr ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    *memPool = &g_default_pool;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    if (memPool == nullptr || device != 0)
        return record_error(memPool == nullptr ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    *memPool = g_current_pool;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    if (memPool == nullptr || device != 0)
        return record_error(memPool == nullptr ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    g_current_pool = memPool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    if (memPool == nullptr || poolProps == nullptr)
        return record_error(cudaErrorInvalidValue);
    *memPool = new CUmemPoolHandle_st();
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    if (memPool == nullptr || memPool == &g_default_pool)
        return record_error(cudaErrorInvalidValue);
    if (g_current_pool == memPool)
        g_current_pool = &g_default_pool;
    delete memPool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    if (memPool == nullptr || value == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (attr == cudaMemPoolAttrReleaseThreshold)
        memPool->release_threshold = (size_t) * static_cast<unsigned long long *>(value);
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    if (memPool == nullptr || value == nullptr)
        return record_error(cudaErrorInvalidValue);
    unsigned long long *v = static_cast<unsigned long long *>(value);
    if (attr == cudaMemPoolAttrReleaseThreshold)
        *v = memPool->release_threshold;
    else if (attr >= cudaMemPoolAttrReservedMemCurrent)
        *v = g_device_used;
    else
        *static_cast<int *>(value) = 1;
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    return memPool == nullptr ? record_error(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (memPool == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    return allocate(ptr, size, RegionKind::device, CUDA_EMU_PC);
}

/* ---- Interprocess memory (CUDA IPC) ------------------------------------------ */

namespace {

/* What a cudaIpcMemHandle_t holds here (64 bytes, as CUDA's): where the
 * exporting process keeps the allocation's memfd, /proc/PID/fd/FD. */
struct IpcHandle {
    uint32_t magic;   /* kIpcMagic: a handle this emulator made */
    int32_t pid;      /* the process that made the allocation */
    int32_t fd;       /* its descriptor of the allocation's memfd */
    uint32_t unused;  /* zero */
    uint64_t inode;   /* that memfd's inode: the descriptor number alone may be reused */
    uint64_t size;    /* the allocation's size in bytes */
    uint64_t offset;  /* always 0: a handle names a whole allocation */
    char reserved[24];/* zero */
};
static_assert(sizeof(IpcHandle) == sizeof(cudaIpcMemHandle_t), "a CUDA IPC handle is 64 bytes");
constexpr uint32_t kIpcMagic = 0x43454d56; /* "CEMV": the memfd layout */

/* The device allocation from cudaMalloc that holds P (not one this process
 * opened from another's), made shareable; null, with a note naming WHAT and
 * PC, if there is none or its memory cannot be shared. */
const Allocation *shareable(void *p, const char *what, const void *pc, cudaError_t *err)
{
    RegionKind kind;
    void *base = nullptr;
    size_t size = 0;
    auto it = g_device.end();
    if (p != nullptr && find_tracked(p, 1, &kind, &base, &size))
        it = g_device.find(base);
    if (it == g_device.end() || it->second.imported || it->second.kind != RegionKind::device) {
        fprintf(stderr, "cuda-emu: %s(%p) at %s fails: not memory from cudaMalloc "
                "(cudaErrorInvalidValue)\n", what, p, where(pc).c_str());
        *err = cudaErrorInvalidValue;
        return nullptr;
    }
    char why[256];
    if (!devmem_share(it->second.map, why, sizeof why)) {
        fprintf(stderr, "cuda-emu: %s(%p) at %s fails: %s (cudaErrorMemoryAllocation)\n", what,
                p, where(pc).c_str(), why);
        *err = cudaErrorMemoryAllocation;
        return nullptr;
    }
    /* Another process may write it from now on, which this one's bookkeeping
     * cannot see: count all of it as written. */
    mark_written(it->first, it->second.size);
    return &it->second;
}

/* Tracks the mapping M of another process's SIZE-byte allocation as device
 * memory of this one; its address. */
void *track_imported(DeviceMapping *m, size_t size, const void *pc)
{
    /* Its contents come from the other process: count them as written. */
    track_region(m->data, size, RegionKind::device, nullptr, 1, pc);
    mark_written(m->data, size);
    g_device[m->data] = Allocation{size, RegionKind::device, m, true};
    return m->data;
}

} // namespace

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    CUDA_EMU_STICKY();
    if (handle == nullptr || devPtr == nullptr)
        return record_error(cudaErrorInvalidValue);
    cudaError_t err = cudaSuccess;
    const Allocation *a = shareable(devPtr, "cudaIpcGetMemHandle", CUDA_EMU_PC, &err);
    if (a == nullptr)
        return record_error(err);
    struct stat st;
    if (fstat(a->map->fd, &st) != 0)
        return record_error(cudaErrorMemoryAllocation);
    IpcHandle h;
    memset(&h, 0, sizeof h);
    h.magic = kIpcMagic;
    h.pid = (int32_t)getpid();
    h.fd = a->map->fd;
    h.inode = (uint64_t)st.st_ino;
    h.size = a->size;
    h.offset = 0;
    memcpy(handle, &h, sizeof h);
    return cudaSuccess;
}

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if (devPtr == nullptr || (flags & ~cudaIpcMemLazyEnablePeerAccess) != 0)
        return record_error(cudaErrorInvalidValue);
    *devPtr = nullptr;
    IpcHandle h;
    memcpy(&h, &handle, sizeof h);
    if (h.magic != kIpcMagic || h.pid <= 0 || h.fd < 0 || h.offset != 0)
        return record_error(cudaErrorInvalidResourceHandle);
    if (h.pid == (int32_t)getpid()) /* as CUDA: a process cannot open its own handle */
        return record_error(cudaErrorDeviceUninitialized);
    DeviceMapping *m = new DeviceMapping();
    if (!devmem_open_shared(h.pid, h.fd, h.inode, h.size, m)) {
        delete m;
        fprintf(stderr, "cuda-emu: cudaIpcOpenMemHandle at %s fails: the allocation of process "
                "%d is gone (freed, or its process ended), or this process may not inspect that "
                "one (/proc/%d/fd/%d) (cudaErrorMapBufferObjectFailed)\n",
                where(CUDA_EMU_PC).c_str(), (int)h.pid, (int)h.pid, (int)h.fd);
        return record_error(cudaErrorMapBufferObjectFailed);
    }
    *devPtr = track_imported(m, h.size, CUDA_EMU_PC);
    return cudaSuccess;
}

namespace cuda_emu {

cudaError_t export_fd(int *fd, void *dev_ptr)
{
    CUDA_EMU_STICKY();
    if (fd == nullptr)
        return record_error(cudaErrorInvalidValue);
    *fd = -1;
    cudaError_t err = cudaSuccess;
    const Allocation *a = shareable(dev_ptr, "cuda_emu::export_fd", CUDA_EMU_PC, &err);
    if (a == nullptr)
        return record_error(err);
    *fd = fcntl(a->map->fd, F_DUPFD_CLOEXEC, 0);
    return *fd < 0 ? record_error(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t import_fd(void **dev_ptr, int fd, size_t size)
{
    CUDA_EMU_STICKY();
    if (dev_ptr == nullptr || size == 0)
        return record_error(cudaErrorInvalidValue);
    *dev_ptr = nullptr;
    DeviceMapping *m = new DeviceMapping();
    if (!devmem_import(fd, size, m)) {
        delete m;
        fprintf(stderr, "cuda-emu: cuda_emu::import_fd(%d, %zu) at %s fails: not a descriptor "
                "of %zu bytes of shared memory (cudaErrorMapBufferObjectFailed)\n", fd, size,
                where(CUDA_EMU_PC).c_str(), size);
        return record_error(cudaErrorMapBufferObjectFailed);
    }
    *dev_ptr = track_imported(m, size, CUDA_EMU_PC);
    return cudaSuccess;
}

} // namespace cuda_emu

cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    CUDA_EMU_STICKY();
    auto it = g_device.find(devPtr);
    if (it == g_device.end() || !it->second.imported)
        return record_error(cudaErrorInvalidValue);
    return release(devPtr);
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    (void)flags;
    if (pDevice == nullptr || pHost == nullptr)
        return record_error(cudaErrorInvalidValue);
    *pDevice = pHost; /* one address space */
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    CUDA_EMU_STICKY();
    if (free)
        *free = kGlobalMem - g_device_used;
    if (total)
        *total = kGlobalMem;
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    if (attributes == nullptr)
        return record_error(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    attributes->device = 0;
    void *p = const_cast<void *>(ptr);
    if (const Allocation *a = device_range(ptr, 1)) {
        attributes->type = a->kind == RegionKind::managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
        attributes->devicePointer = p;
        attributes->hostPointer = a->kind == RegionKind::managed ? p : nullptr;
        return cudaSuccess;
    }
    for (auto &h : g_registered)
        if (ptr >= h.first && static_cast<const char *>(ptr) < static_cast<char *>(h.first) + h.second) {
            attributes->type = cudaMemoryTypeHost;
            attributes->devicePointer = p;
            attributes->hostPointer = p;
            return cudaSuccess;
        }
    for (auto &h : g_pinned)
        if (ptr >= h.first && static_cast<const char *>(ptr) < static_cast<char *>(h.first) + h.second) {
            attributes->type = cudaMemoryTypeHost;
            attributes->devicePointer = p;
            attributes->hostPointer = p;
            return cudaSuccess;
        }
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = cudaInvalidDeviceId;
    return cudaSuccess;
}

/* The synchronous calls (no Async) run on the legacy default stream (0): a GPU starts them
 * after the work queued there, and the copies return once done (count_copy records them). */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    CUDA_EMU_STICKY();
    const cudaError_t err = copy(dst, src, count, kind, "cudaMemcpy", CUDA_EMU_PC);
    if (err == cudaSuccess)
        count_copy(dst, src, count, kind, nullptr, "cudaMemcpy");
    return err;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (captured(stream, cudaGraphNodeTypeMemcpy, step([=](cudaStream_t s) {
                     return cudaMemcpyAsync(dst, src, count, kind, s);
                 }), &captured_err))
        return captured_err;
    const cudaError_t err = copy(dst, src, count, kind, "cudaMemcpyAsync", CUDA_EMU_PC);
    if (err == cudaSuccess)
        count_copy(dst, src, count, kind, stream, "cudaMemcpyAsync");
    return err;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    CUDA_EMU_STICKY();
    const cudaError_t err =
        copy_2d(dst, dpitch, src, spitch, width, height, kind, "cudaMemcpy2D", CUDA_EMU_PC);
    if (err == cudaSuccess)
        count_copy(dst, src, width * height, kind, nullptr, "cudaMemcpy2D");
    return err;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (captured(stream, cudaGraphNodeTypeMemcpy, step([=](cudaStream_t s) {
                     return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, s);
                 }), &captured_err))
        return captured_err;
    const cudaError_t err = copy_2d(dst, dpitch, src, spitch, width, height, kind,
                                    "cudaMemcpy2DAsync", CUDA_EMU_PC);
    if (err == cudaSuccess)
        count_copy(dst, src, width * height, kind, stream, "cudaMemcpy2DAsync");
    return err;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    CUDA_EMU_STICKY();
    const cudaError_t err = fill(devPtr, value, count, "cudaMemset", CUDA_EMU_PC);
    if (err == cudaSuccess && count > 0)
        count_op("memset", nullptr, count, "-", "cudaMemset");
    return err;
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (captured(stream, cudaGraphNodeTypeMemset, step([=](cudaStream_t s) {
                     return cudaMemsetAsync(devPtr, value, count, s);
                 }), &captured_err))
        return captured_err;
    const cudaError_t err = fill(devPtr, value, count, "cudaMemsetAsync", CUDA_EMU_PC);
    if (err == cudaSuccess && count > 0)
        count_op("memset", stream, count, "-", "cudaMemsetAsync");
    return err;
}

/* The rows of a 2D memset, WIDTH bytes at each PITCH, counted as one operation on STREAM. */
static cudaError_t fill_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                           cudaStream_t stream, const char *name, const void *pc)
{
    if (width > pitch)
        return record_error(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; ++row) {
        cudaError_t err = fill(static_cast<char *>(devPtr) + row * pitch, value, width, name, pc);
        if (err != cudaSuccess)
            return err;
    }
    if (width * height > 0)
        count_op("memset", stream, width * height, "-", name);
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    CUDA_EMU_STICKY();
    return fill_2d(devPtr, pitch, value, width, height, nullptr, "cudaMemset2D", CUDA_EMU_PC);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (captured(stream, cudaGraphNodeTypeMemset, step([=](cudaStream_t s) {
                     return cudaMemset2DAsync(devPtr, pitch, value, width, height, s);
                 }), &captured_err))
        return captured_err;
    return fill_2d(devPtr, pitch, value, width, height, stream, "cudaMemset2DAsync", CUDA_EMU_PC);
}

/* ---- Streams ---------------------------------------------------------------- */

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    CUDA_EMU_STICKY();
    if (pStream == nullptr || flags > cudaStreamNonBlocking)
        return record_error(cudaErrorInvalidValue);
    *pStream = new CUstream_st{flags, priority, nullptr, {}};
    g_streams.insert(*pStream);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (g_streams.erase(stream) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    count_forget(stream);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (waits_on_capture(stream, "cudaStreamSynchronize", &captured_err))
        return captured_err;
    count_host_wait("cudaStreamSynchronize", &stream, nullptr);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (overtaken_launch_running()) /* a kernel still polls what the host is to write */
        return cudaErrorNotReady;
    CUDA_EMU_STICKY();
    cudaError_t captured_err;
    if (waits_on_capture(stream, "cudaStreamQuery", &captured_err))
        return captured_err;
    return stream_valid(stream) ? cudaSuccess : record_error(cudaErrorInvalidResourceHandle);
}

/* Stream attributes are hints for the GPU's caches and scheduler: kept, so a
 * program reads back what it set, and without effect. */
namespace {
std::unordered_map<cudaStream_t, std::unordered_map<int, cudaStreamAttrValue>> &g_stream_attrs =
    *new std::unordered_map<cudaStream_t, std::unordered_map<int, cudaStreamAttrValue>>();
} // namespace

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (value == nullptr)
        return record_error(cudaErrorInvalidValue);
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    g_stream_attrs[stream][(int)attr] = *value;
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (value == nullptr)
        return record_error(cudaErrorInvalidValue);
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    auto s = g_stream_attrs.find(stream);
    auto a = s == g_stream_attrs.end() ? decltype(s->second.end())() : s->second.find((int)attr);
    if (s != g_stream_attrs.end() && a != s->second.end())
        *value = a->second;
    else
        memset(value, 0, sizeof *value);
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    CUDA_EMU_STICKY();
    return cudaSuccess;
}

/* The bank width: four bytes on every GPU since Maxwell, and here. */
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    CUDA_EMU_STICKY();
    if (pConfig == nullptr)
        return record_error(cudaErrorInvalidValue);
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    CUDA_EMU_STICKY();
    return (unsigned)config <= cudaSharedMemBankSizeEightByte ? cudaSuccess
                                                               : record_error(cudaErrorInvalidValue);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    (void)func;
    return cudaDeviceSetSharedMemConfig(config);
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice,
                                      int dstDevice)
{
    (void)attr;
    CUDA_EMU_STICKY();
    if (value == nullptr)
        return record_error(cudaErrorInvalidValue);
    /* One device: there is no pair to ask about. */
    (void)srcDevice, (void)dstDevice;
    return record_error(cudaErrorInvalidDevice);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    CUDA_EMU_STICKY();
    if (!stream_valid(stream) || g_events.count(event) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    if (Capture *c = event->capture) { /* a fork into STREAM, or a join of two tails */
        Capture *mine = capture_of(stream);
        if (mine != nullptr && mine != c)
            return record_error(cudaErrorStreamCaptureMerge);
        if (mine == nullptr) {
            if (g_streams.count(stream) == 0) {
                std::fprintf(stderr, "cuda-emu: cudaStreamWaitEvent: a default stream waits on "
                             "an event recorded during a capture (cudaErrorStreamCaptureImplicit)\n");
                return record_error(cudaErrorStreamCaptureImplicit);
            }
            stream->capture = c;
            stream->tail = event->tail;
        } else {
            for (cudaGraphNode_t n : event->tail)
                if (std::find(stream->tail.begin(), stream->tail.end(), n) == stream->tail.end())
                    stream->tail.push_back(n);
        }
        return cudaSuccess;
    }
    count_event_op("wait", stream, event, "cudaStreamWaitEvent");
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
    if (flags == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    *flags = g_streams.count(stream) ? stream->flags : cudaStreamDefault;
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long *streamId)
{
    if (streamId == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    *streamId = g_streams.count(stream) ? stream->id : 0; /* (0: a default stream's) */
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
    if (priority == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    *priority = g_streams.count(stream) ? stream->priority : 0;
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    (void)flags;
    CUDA_EMU_STICKY();
    if (callback == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    callback(stream, cudaSuccess, userData); /* everything before it is done */
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    CUDA_EMU_STICKY();
    if (fn == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    cudaError_t captured_err;
    if (captured(stream, cudaGraphNodeTypeHost, step([=](cudaStream_t s) {
                     return cudaLaunchHostFunc(s, fn, userData);
                 }), &captured_err))
        return captured_err;
    fn(userData);
    return cudaSuccess;
}

/* ---- Graphs ---------------------------------------------------------------------
 * A stream being captured records its work as nodes of a graph instead of running it: each
 * operation issued to it becomes a node that follows the stream's tail (the nodes its next work
 * follows), and becomes the tail. An event recorded in a capturing stream carries that tail;
 * another stream that waits on it joins the capture with it as its own tail (a fork), and the
 * origin stream waiting on an event of the forked stream joins the two tails again.
 * cudaStreamEndCapture, on the stream that began the capture, wants every node to be an
 * ancestor of its tail (every fork joined). cudaGraphInstantiate orders the nodes so that every
 * dependency is kept, and puts them on lanes: chains of nodes that follow one another, a new lane
 * where a node forks off one already taken. cudaGraphLaunch runs them in that order (work here
 * runs one thing at a time) on the lanes' streams: lane 0 is the launch stream, each other lane a
 * non-blocking stream of the launch's own that waits for the launch stream's earlier work; a
 * node that follows one of another lane waits for an event recorded after it, and the launch
 * stream waits for every lane at the end. So the op lines (count.cpp) keep the graph's forks and
 * joins, and make explain's timeline runs its branches side by side, as a GPU does. */

namespace cuda_emu {

namespace {

int g_captures = 0;                      /* captures under way */
unsigned long long g_capture_ids = 0;    /* the last capture's id */
thread_local Step *t_node_target = nullptr; /* cudaGraphAddKernelNode: where the launch goes */
thread_local enum cudaStreamCaptureMode t_capture_mode = cudaStreamCaptureModeGlobal;

bool is_graph_node(cudaGraphNode_t n)
{
    return n != nullptr && n->graph != nullptr;
}

/* A new node of GRAPH after DEPS[0..N). */
cudaGraphNode_t add_node(cudaGraph_t graph, enum cudaGraphNodeType type,
                         const cudaGraphNode_t *deps, size_t n, Step run)
{
    graph->nodes.emplace_back(new CUgraphNode_st{graph, type, {}, std::move(run)});
    cudaGraphNode_t node = graph->nodes.back().get();
    node->deps.assign(deps, deps + n);
    return node;
}

/* The capture STREAM records into, or null (the default streams are never captured). */
Capture *capture_of(cudaStream_t stream)
{
    if (g_captures == 0 || stream == nullptr || stream == cudaStreamLegacy ||
        stream == cudaStreamPerThread || g_streams.count(stream) == 0)
        return nullptr;
    return stream->capture;
}

/* If STREAM is being captured: records RUN as a node of TYPE after its tail and returns true
 * (*RESULT is the call's result); otherwise false, and the caller runs the work. */
bool captured(cudaStream_t stream, enum cudaGraphNodeType type, Step run, cudaError_t *result)
{
    Capture *c = capture_of(stream);
    if (c == nullptr)
        return false;
    if (c->invalidated) {
        *result = record_error(cudaErrorStreamCaptureInvalidated);
        return true;
    }
    cudaGraphNode_t node = add_node(c->graph, type, stream->tail.data(), stream->tail.size(),
                                    std::move(run));
    stream->tail.assign(1, node);
    *result = cudaSuccess;
    return true;
}

/* A call that must wait for STREAM's work while it is being captured (a GPU's too: the work
 * does not exist yet): CUDA's error, and the capture is invalidated. */
bool waits_on_capture(cudaStream_t stream, const char *call, cudaError_t *result)
{
    Capture *c = capture_of(stream);
    if (c == nullptr)
        return false;
    std::fprintf(stderr, "cuda-emu: %s on a stream being captured into a CUDA graph: its work "
                 "runs only when the graph is launched; the capture is invalidated "
                 "(cudaErrorStreamCaptureUnsupported)\n", call);
    c->invalidated = true;
    *result = record_error(cudaErrorStreamCaptureUnsupported);
    return true;
}

Step step(std::function<cudaError_t(cudaStream_t)> f)
{
    return std::make_shared<std::function<cudaError_t(cudaStream_t)>>(std::move(f));
}

} // namespace

bool capture_pending(cudaStream_t stream)
{
    if (t_node_target != nullptr)
        return true;
    if (g_captures == 0)
        return false;
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    return capture_of(stream) != nullptr;
}

cudaError_t capture_launch(const void *kernel, const char *name, const LaunchConfig &cfg,
                           void (*invoke)(void *), void *ctx, size_t ctx_size,
                           void (*free)(void *))
{
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    std::shared_ptr<void> args(ctx, free);
    Step run = step([=](cudaStream_t s) {
        LaunchConfig c = cfg;
        c.stream = s;
        return launch_erased(kernel, name, c, invoke, args.get(), ctx_size);
    });
    if (t_node_target != nullptr) {
        *t_node_target = run;
        return cudaSuccess;
    }
    cudaError_t result = cudaSuccess;
    if (!captured(cfg.stream, cudaGraphNodeTypeKernel, run, &result))
        return launch_erased(kernel, name, cfg, invoke, ctx, ctx_size); /* capture just ended */
    return result;
}

} // namespace cuda_emu

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    CUDA_EMU_STICKY();
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
        return record_error(cudaErrorInvalidValue);
    if (g_streams.count(stream) == 0) {
        std::fprintf(stderr, "cuda-emu: cudaStreamBeginCapture on a default stream: capture a "
                     "stream made with cudaStreamCreate (cudaErrorStreamCaptureUnsupported)\n");
        return record_error(cudaErrorStreamCaptureUnsupported);
    }
    if (stream->capture != nullptr)
        return record_error(cudaErrorIllegalState);
    cudaGraph_t graph = new CUgraph_st{};
    stream->capture = new Capture{graph, stream, ++g_capture_ids, false};
    stream->tail.clear();
    ++g_captures;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    CUDA_EMU_STICKY();
    if (pGraph == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    Capture *c = capture_of(stream);
    if (c == nullptr)
        return record_error(cudaErrorIllegalState);
    if (c->origin != stream)
        return record_error(cudaErrorStreamCaptureUnmatched);
    /* Every node must lead to the origin's tail: a forked stream left unjoined is an error. */
    std::unordered_set<cudaGraphNode_t> joined;
    std::vector<cudaGraphNode_t> todo(stream->tail);
    while (!todo.empty()) {
        cudaGraphNode_t n = todo.back();
        todo.pop_back();
        if (joined.insert(n).second)
            todo.insert(todo.end(), n->deps.begin(), n->deps.end());
    }
    const bool unjoined = joined.size() != c->graph->nodes.size();
    for (cudaStream_t s : g_streams)
        if (s->capture == c) {
            s->capture = nullptr;
            s->tail.clear();
        }
    for (cudaEvent_t e : g_events)
        if (e->capture == c) {
            e->capture = nullptr;
            e->tail.clear();
        }
    --g_captures;
    const bool invalidated = c->invalidated;
    cudaGraph_t graph = c->graph;
    delete c;
    *pGraph = nullptr;
    if (invalidated || unjoined) {
        if (unjoined)
            std::fprintf(stderr, "cuda-emu: cudaStreamEndCapture: a stream forked from the "
                         "capture (by waiting on an event recorded in it) has work the "
                         "capturing stream never waited for: record an event after it and "
                         "cudaStreamWaitEvent on the capturing stream before ending the "
                         "capture (cudaErrorStreamCaptureUnjoined)\n");
        delete graph;
        return record_error(invalidated ? cudaErrorStreamCaptureInvalidated
                                        : cudaErrorStreamCaptureUnjoined);
    }
    *pGraph = graph;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    CUDA_EMU_STICKY();
    if (pCaptureStatus == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    Capture *c = capture_of(stream);
    *pCaptureStatus = c == nullptr ? cudaStreamCaptureStatusNone
                      : c->invalidated ? cudaStreamCaptureStatusInvalidated
                                       : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    cudaError_t err = cudaStreamIsCapturing(stream, captureStatus_out);
    if (err != cudaSuccess)
        return err;
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    Capture *c = capture_of(stream);
    if (id_out)
        *id_out = c ? c->id : 0;
    if (graph_out)
        *graph_out = c ? c->graph : nullptr;
    if (dependencies_out)
        *dependencies_out = c && !stream->tail.empty() ? stream->tail.data() : nullptr;
    if (edgeData_out)
        *edgeData_out = nullptr; /* every edge is a full dependency */
    if (numDependencies_out)
        *numDependencies_out = c ? stream->tail.size() : 0;
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (mode == nullptr || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
        return record_error(cudaErrorInvalidValue);
    std::swap(*mode, t_capture_mode);
    return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if (pGraph == nullptr || flags != 0)
        return record_error(cudaErrorInvalidValue);
    *pGraph = new CUgraph_st{};
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    CUDA_EMU_STICKY();
    if (graph == nullptr)
        return record_error(cudaErrorInvalidValue);
    delete graph;
    return cudaSuccess;
}

namespace {

/* The checks every cudaGraphAdd*Node makes of its common arguments. */
cudaError_t node_args(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                      const cudaGraphNode_t *deps, size_t n)
{
    if (pGraphNode == nullptr || graph == nullptr || (n > 0 && deps == nullptr))
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; ++i)
        if (!is_graph_node(deps[i]) || deps[i]->graph != graph)
            return cudaErrorInvalidValue;
    return cudaSuccess;
}

} // namespace

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *p)
{
    CUDA_EMU_STICKY();
    if (cudaError_t err = node_args(pGraphNode, graph, pDependencies, numDependencies))
        return record_error(err);
    if (p == nullptr || p->func == nullptr || p->extra != nullptr || p->kernelParams == nullptr)
        return record_error(cudaErrorInvalidValue);
    /* The kernel's launch, made with the node as its target, copies the arguments now (as
     * CUDA reads kernelParams when the node is added) and gives back the work to run. */
    Step run;
    t_node_target = &run;
    const cudaError_t err = launch_registered(p->func, config(p->gridDim, p->blockDim,
                                                              p->sharedMemBytes, nullptr),
                                              p->kernelParams);
    t_node_target = nullptr;
    if (err != cudaSuccess)
        return err;
    if (!run)
        return record_error(cudaErrorInvalidDeviceFunction);
    *pGraphNode = add_node(graph, cudaGraphNodeTypeKernel, pDependencies, numDependencies, run);
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    CUDA_EMU_STICKY();
    if (cudaError_t err = node_args(pGraphNode, graph, pDependencies, numDependencies))
        return record_error(err);
    *pGraphNode = add_node(graph, cudaGraphNodeTypeMemcpy, pDependencies, numDependencies,
                           step([=](cudaStream_t s) {
                               return cudaMemcpyAsync(dst, src, count, kind, s);
                           }));
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *p)
{
    CUDA_EMU_STICKY();
    if (cudaError_t err = node_args(pGraphNode, graph, pDependencies, numDependencies))
        return record_error(err);
    if (p == nullptr || p->dst == nullptr ||
        (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return record_error(cudaErrorInvalidValue);
    const struct cudaMemsetParams m = *p;
    *pGraphNode = add_node(graph, cudaGraphNodeTypeMemset, pDependencies, numDependencies,
                           step([m](cudaStream_t s) {
        /* Each element gets the low elementSize bytes of value, in the device's order. */
        std::vector<unsigned char> row(m.width * m.elementSize);
        for (size_t i = 0; i < m.width; ++i)
            std::memcpy(&row[i * m.elementSize], &m.value, m.elementSize);
        for (size_t r = 0; r < (m.height ? m.height : 1); ++r) {
            cudaError_t err = cudaMemcpyAsync(static_cast<char *>(m.dst) + r * m.pitch, row.data(),
                                              row.size(), cudaMemcpyHostToDevice, s);
            if (err != cudaSuccess)
                return err;
        }
        return cudaSuccess;
    }));
    return cudaSuccess;
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *p)
{
    CUDA_EMU_STICKY();
    if (cudaError_t err = node_args(pGraphNode, graph, pDependencies, numDependencies))
        return record_error(err);
    if (p == nullptr || p->fn == nullptr)
        return record_error(cudaErrorInvalidValue);
    const cudaHostFn_t fn = p->fn;
    void *data = p->userData;
    *pGraphNode = add_node(graph, cudaGraphNodeTypeHost, pDependencies, numDependencies,
                           step([fn, data](cudaStream_t s) { return cudaLaunchHostFunc(s, fn, data); }));
    return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    CUDA_EMU_STICKY();
    if (cudaError_t err = node_args(pGraphNode, graph, pDependencies, numDependencies))
        return record_error(err);
    *pGraphNode = add_node(graph, cudaGraphNodeTypeEmpty, pDependencies, numDependencies, nullptr);
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    CUDA_EMU_STICKY();
    if (graph == nullptr || (numDependencies > 0 && (from == nullptr || to == nullptr)))
        return record_error(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; ++i) {
        if (!is_graph_node(from[i]) || !is_graph_node(to[i]) || from[i]->graph != graph ||
            to[i]->graph != graph || from[i] == to[i])
            return record_error(cudaErrorInvalidValue);
        /* Ports other than the default (programmatic edges) are a GPU's overlap, kept here
         * as full dependencies. */
        (void)edgeData;
        to[i]->deps.push_back(from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    CUDA_EMU_STICKY();
    if (graph == nullptr || numNodes == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (nodes != nullptr)
        for (size_t i = 0; i < *numNodes && i < graph->nodes.size(); ++i)
            nodes[i] = graph->nodes[i].get();
    *numNodes = graph->nodes.size();
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    if (!is_graph_node(node) || pType == nullptr)
        return record_error(cudaErrorInvalidValue);
    *pType = node->type;
    return cudaSuccess;
}

namespace {

/* NODE's step, placed after the steps before it (STEP_OF: each placed node's step; LANE_LAST:
 * each lane's last step): on the lane of the first node it follows that is still its lane's last
 * (a chain goes on), or on a new lane (a root, or a fork); it waits for the nodes it follows on
 * other lanes. */
CUgraphExec_st::Step lane_step(CUgraphExec_st *exec, cudaGraphNode_t node,
                               const std::unordered_map<cudaGraphNode_t, size_t> &index,
                               const std::vector<size_t> &step_of, std::vector<size_t> &lane_last)
{
    const size_t here = exec->steps.size();
    CUgraphExec_st::Step st{node->run, (unsigned)lane_last.size(), {}, false};
    for (cudaGraphNode_t d : node->deps) {
        const size_t s = step_of[index.at(d)];
        if (st.lane == lane_last.size() && lane_last[exec->steps[s].lane] == s)
            st.lane = exec->steps[s].lane;
    }
    if (st.lane == lane_last.size())
        lane_last.push_back(here);
    lane_last[st.lane] = here;
    for (cudaGraphNode_t d : node->deps) {
        const size_t s = step_of[index.at(d)];
        if (exec->steps[s].lane != st.lane) {
            st.waits.push_back(s);
            exec->steps[s].signals = true;
        }
    }
    return st;
}

} // namespace

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    CUDA_EMU_STICKY();
    (void)flags; /* upload, auto-free, priorities: nothing to do where work runs at once */
    if (pGraphExec == nullptr || graph == nullptr)
        return record_error(cudaErrorInvalidValue);
    /* Kahn's order, ties in the order the nodes were added (the order they were issued). */
    const size_t n = graph->nodes.size();
    std::unordered_map<cudaGraphNode_t, size_t> index;
    for (size_t i = 0; i < n; ++i)
        index[graph->nodes[i].get()] = i;
    std::vector<size_t> waiting(n);
    std::vector<std::vector<size_t>> after(n);
    for (size_t i = 0; i < n; ++i)
        for (cudaGraphNode_t d : graph->nodes[i]->deps) {
            ++waiting[i];
            after[index.at(d)].push_back(i);
        }
    auto exec = std::make_unique<CUgraphExec_st>();
    std::vector<bool> done(n);
    std::vector<size_t> step_of(n);  /* node -> its place in exec->steps */
    std::vector<size_t> lane_last;   /* lane -> the step last put on it */
    for (size_t placed = 0; placed < n;) {
        size_t next = n;
        for (size_t i = 0; i < n && next == n; ++i)
            if (!done[i] && waiting[i] == 0)
                next = i;
        if (next == n) {
            std::fprintf(stderr, "cuda-emu: cudaGraphInstantiate: the graph's dependencies form "
                         "a cycle (cudaErrorInvalidValue)\n");
            return record_error(cudaErrorInvalidValue);
        }
        done[next] = true;
        ++placed;
        for (size_t j : after[next])
            --waiting[j];
        step_of[next] = exec->steps.size();
        exec->steps.push_back(lane_step(exec.get(), graph->nodes[next].get(), index, step_of, lane_last));
    }
    exec->lanes = (unsigned)lane_last.size();
    *pGraphExec = exec.release();
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (graphExec == nullptr)
        return record_error(cudaErrorInvalidValue);
    return stream_valid(stream) ? cudaSuccess : record_error(cudaErrorInvalidResourceHandle);
}

namespace {

/* Runs EXEC's steps in order, each on its lane's stream (lane 0: STREAM; the others streams of
 * this launch, gone when it returns), and writes the lanes' forks and joins down as event
 * records and waits on events of the launch's own (marks, which the program never sees), as a
 * GPU orders the branches of the graph. */
cudaError_t run_graph(cudaGraphExec_t exec, cudaStream_t stream)
{
    std::vector<cudaStream_t> lanes(std::max(exec->lanes, 1u), stream);
    for (unsigned l = 1; l < lanes.size(); ++l) {
        lanes[l] = new CUstream_st{cudaStreamNonBlocking, 0, nullptr, {}};
        g_streams.insert(lanes[l]);
    }
    /* marks[k]: step k's event; marks[steps]: the launch's start; then each lane's end */
    std::vector<CUevent_st> marks(exec->steps.size() + lanes.size());
    CUevent_st *start = &marks[exec->steps.size()];
    if (lanes.size() > 1)
        count_event_op("record", stream, start, "cudaGraphLaunch");
    for (unsigned l = 1; l < lanes.size(); ++l)
        count_event_op("wait", lanes[l], start, "cudaGraphLaunch");
    cudaError_t err = cudaSuccess;
    for (size_t k = 0; k < exec->steps.size() && err == cudaSuccess; ++k) {
        const CUgraphExec_st::Step &node = exec->steps[k];
        for (size_t w : node.waits)
            count_event_op("wait", lanes[node.lane], &marks[w], "cudaGraphLaunch");
        if (node.run)
            err = (*node.run)(lanes[node.lane]);
        if (node.signals)
            count_event_op("record", lanes[node.lane], &marks[k], "cudaGraphLaunch");
    }
    for (unsigned l = 1; l < lanes.size(); ++l) {
        if (err == cudaSuccess) {
            count_event_op("record", lanes[l], start + l, "cudaGraphLaunch");
            count_event_op("wait", stream, start + l, "cudaGraphLaunch");
        }
        g_streams.erase(lanes[l]);
        count_forget(lanes[l]);
        delete lanes[l];
    }
    for (CUevent_st &m : marks)
        count_forget(&m);
    return err;
}

} // namespace

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (graphExec == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (!stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (capture_of(stream) != nullptr)
        refuse_at_run_time("cudaGraphLaunch into a stream being captured (a graph inside a graph)",
                           CUDA_EMU_PC);
    return run_graph(graphExec, stream);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    CUDA_EMU_STICKY();
    if (graphExec == nullptr)
        return record_error(cudaErrorInvalidValue);
    delete graphExec;
    return cudaSuccess;
}

/* ---- cudaLaunchKernelEx -------------------------------------------------------- */

namespace cuda_emu {

cudaError_t launch_ex_config(const cudaLaunchConfig_t *c, LaunchConfig *out)
{
    if (c == nullptr || (c->numAttrs > 0 && c->attrs == nullptr))
        return record_error(cudaErrorInvalidValue);
    *out = config(c->gridDim, c->blockDim, c->dynamicSmemBytes, c->stream);
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const cudaLaunchAttribute &a = c->attrs[i];
        switch (a.id) {
        case cudaLaunchAttributeCooperative:
            out->cooperative = a.val.cooperative != 0;
            break;
        case cudaLaunchAttributeClusterDimension: {
            /* The blocks of a cluster run as ordinary blocks (nothing here shares distributed
             * shared memory); the shape must still fit the grid, as on a GPU. */
            const unsigned x = a.val.clusterDim.x, y = a.val.clusterDim.y, z = a.val.clusterDim.z;
            if (x == 0 || y == 0 || z == 0 || c->gridDim.x % x || c->gridDim.y % y ||
                c->gridDim.z % z || x * y * z > 16) {
                std::fprintf(stderr, "cuda-emu: cudaLaunchKernelEx: a cluster of %u x %u x %u "
                             "blocks does not divide the grid of %u x %u x %u, or has more than 16 "
                             "blocks (cudaErrorInvalidClusterSize)\n", x, y, z, c->gridDim.x,
                             c->gridDim.y, c->gridDim.z);
                return record_error(cudaErrorInvalidClusterSize);
            }
            break;
        }
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeSynchronizationPolicy:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributeProgrammaticEvent:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain:
        case cudaLaunchAttributePreferredClusterDimension:
        case cudaLaunchAttributeLaunchCompletionEvent:
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
            break; /* orders or hints a launch that runs to its end already meets */
        default:
            std::fprintf(stderr, "cuda-emu: cudaLaunchKernelEx: launch attribute %d is not one "
                         "a launch takes (cudaErrorInvalidValue)\n", (int)a.id);
            return record_error(cudaErrorInvalidValue);
        }
    }
    return cudaSuccess;
}

void launch_ex_done(const cudaLaunchConfig_t *c)
{
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const cudaLaunchAttribute &a = c->attrs[i];
        if (a.id == cudaLaunchAttributeProgrammaticEvent && a.val.programmaticEvent.event)
            cudaEventRecord(a.val.programmaticEvent.event, c->stream);
        if (a.id == cudaLaunchAttributeLaunchCompletionEvent && a.val.launchCompletionEvent.event)
            cudaEventRecord(a.val.launchCompletionEvent.event, c->stream);
    }
}

} // namespace cuda_emu

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    cuda_emu::LaunchConfig cfg;
    cudaError_t err = cuda_emu::launch_ex_config(config, &cfg);
    if (err != cudaSuccess)
        return err;
    err = cuda_emu::launch_registered(func, cfg, args);
    if (err == cudaSuccess)
        cuda_emu::launch_ex_done(config);
    return err;
}

/* ---- Events ---------------------------------------------------------------- */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if (event == nullptr || (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming |
                                                 cudaEventInterprocess)) != 0)
        return record_error(cudaErrorInvalidValue);
    *event = new CUevent_st{flags, false, 0, nullptr, {}};
    g_events.insert(*event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    CUDA_EMU_STICKY();
    if (g_events.count(event) == 0 || !stream_valid(stream))
        return record_error(cudaErrorInvalidResourceHandle);
    if (Capture *c = capture_of(stream)) { /* an edge of the graph, for whoever waits on it */
        event->capture = c;
        event->tail = stream->tail;
        return cudaSuccess;
    }
    event->capture = nullptr;
    event->tail.clear();
    event->recorded = true;
    event->ns = clock_ticks();
    count_event_op("record", stream, event, "cudaEventRecord");
    return cudaSuccess;
}

/* Outside a capture, cudaEventRecordExternal records as the default does. Inside one it makes
 * the record an event node of the graph (recorded each time the graph runs), which the
 * emulator's captures (a record there is only an edge) do not keep: refused at run time. */
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    CUDA_EMU_STICKY();
    if ((flags & ~cudaEventRecordExternal) != 0)
        return record_error(cudaErrorInvalidValue);
    if ((flags & cudaEventRecordExternal) && stream_valid(stream) && capture_of(stream))
        refuse_at_run_time("cudaEventRecordWithFlags(cudaEventRecordExternal) in a stream being "
                           "captured (an event node of a graph)",
                           CUDA_EMU_PC);
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (overtaken_launch_running())
        return cudaErrorNotReady;
    CUDA_EMU_STICKY();
    return g_events.count(event) ? cudaSuccess : record_error(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    CUDA_EMU_STICKY();
    if (g_events.count(event) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    count_host_wait("cudaEventSynchronize", nullptr, event);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    CUDA_EMU_STICKY();
    if (ms == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (g_events.count(start) == 0 || g_events.count(end) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    /* CUDA: both must be recorded, and neither created with cudaEventDisableTiming. */
    if (!start->recorded || !end->recorded || (start->flags & cudaEventDisableTiming) ||
        (end->flags & cudaEventDisableTiming))
        return record_error(cudaErrorInvalidResourceHandle);
    *ms = (float)((double)(end->ns - start->ns) / 1e6);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    CUDA_EMU_STICKY();
    if (g_events.erase(event) == 0)
        return record_error(cudaErrorInvalidResourceHandle);
    count_forget(event);
    delete event;
    return cudaSuccess;
}

/* ---- Kernels ---------------------------------------------------------------- */

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    CUDA_EMU_STICKY();
    if (attr == nullptr)
        return record_error(cudaErrorInvalidValue);
    if (func == nullptr)
        return record_error(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    /* As a GPU reports them (kernel_figures says what is known of them, and whence) */
    const KernelFigures k = kernel_figures(func);
    attr->maxThreadsPerBlock = k.max_threads;
    attr->numRegs = k.registers;
    attr->sharedSizeBytes = k.static_shared;
    attr->localSizeBytes = k.local_bytes;
    attr->constSizeBytes = k.const_bytes;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = (int)kernel_max_dynamic_shared(func);
    auto it = g_kernels.find(func);
    attr->preferredShmemCarveout = it == g_kernels.end() ? -1 : it->second.carveout;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CUDA_EMU_STICKY();
    if (func == nullptr)
        return record_error(cudaErrorInvalidDeviceFunction);
    KernelAttributes &k = g_kernels[func];
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        /* a block's static and dynamic shared memory together within the opt-in maximum */
        if (value < 0 || (size_t)value + kernel_figures(func).static_shared > kSharedOptin)
            return record_error(cudaErrorInvalidValue);
        k.dynamic_set = true;
        k.max_dynamic_shared = (size_t)value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return record_error(cudaErrorInvalidValue);
        k.carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        refuse_at_run_time("cudaFuncSetAttribute of a cluster attribute (thread block clusters)",
                           CUDA_EMU_PC);
    default:
        return record_error(cudaErrorInvalidValue);
    }
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    CUDA_EMU_STICKY();
    if (func == nullptr)
        return record_error(cudaErrorInvalidDeviceFunction);
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        return record_error(cudaErrorInvalidValue);
    g_kernels[func].cache = cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags)
{
    (void)flags;
    CUDA_EMU_STICKY();
    if (numBlocks == nullptr || blockSize <= 0)
        return record_error(cudaErrorInvalidValue);
    if (func == nullptr)
        return record_error(cudaErrorInvalidDeviceFunction);
    /* A block larger than the kernel may have (its __launch_bounds__, its registers) cannot run
     * at all, nor one that asks more dynamic shared memory than it may: none fit. */
    *numBlocks = blockSize > kernel_figures(func).max_threads ||
                         dynamicSMemSize > kernel_max_dynamic_shared(func)
                     ? 0
                     : blocks_per_sm(kernel_footprint(func, blockSize, dynamicSMemSize));
    return cudaSuccess;
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                     int numBlocks, int blockSize)
{
    CUDA_EMU_STICKY();
    if (dynamicSmemSize == nullptr || numBlocks <= 0 || blockSize <= 0)
        return record_error(cudaErrorInvalidValue);
    if (func == nullptr)
        return record_error(cudaErrorInvalidDeviceFunction);
    /* The most dynamic shared memory with which NUMBLOCKS blocks still fit on an SM (0 where they
     * do not fit even without it): the occupancy falls as the bytes grow. */
    size_t lo = 0, hi = kernel_max_dynamic_shared(func);
    auto fits = [&](size_t bytes) {
        return blockSize <= kernel_figures(func).max_threads &&
               blocks_per_sm(kernel_footprint(func, blockSize, bytes)) >= numBlocks;
    };
    if (!fits(0)) {
        *dynamicSmemSize = 0;
        return cudaSuccess;
    }
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    *dynamicSmemSize = lo;
    return cudaSuccess;
}

/* ---- Symbols ---------------------------------------------------------------- */

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    return symbol_copy(const_cast<void *>(symbol), SIZE_MAX, offset, src, count, kind, true);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return symbol_copy(const_cast<void *>(symbol), SIZE_MAX, offset, dst, count, kind, false);
}

/* No profiler here; with CUDA_EMU_COUNT set, a range of counted memory
 * requests (count.cpp). Kernels run when launched, so the range holds exactly
 * the kernels launched inside it once the program synchronised before Stop. */
cudaError_t cudaProfilerStart(void)
{
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    if (!cuda_emu::g_grader_counting)
        cuda_emu::count_start();
    return cudaSuccess;
}
cudaError_t cudaProfilerStop(void)
{
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    if (!cuda_emu::g_grader_counting)
        cuda_emu::count_stop();
    return cudaSuccess;
}

/* The grader's own range (cuda_emu/count.h): the code it counts calls
 * cudaProfilerStart and cudaProfilerStop as it likes (a range of its own for
 * a profiler, or one that leaves work out of the count), and neither ends,
 * restarts or splits it. */
std::atomic<bool> cuda_emu::g_grader_counting{false};

extern "C" CUDA_EMU_EXPORT int cuda_emu_count(int on)
{
    if (!cuda_emu::called_by_program_or_loop(__builtin_return_address(0)))
        return -1;
    std::lock_guard<std::recursive_mutex> lock(api_mutex());
    if (on) {
        cuda_emu::count_start();
        cuda_emu::g_grader_counting = true;
    } else {
        cuda_emu::g_grader_counting = false;
        cuda_emu::count_stop();
    }
    return 0;
}

/* Sanitizer defaults for emulated programs: a UBSan report with its stack. */
extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1"; }

/* Host memory a program never frees is a warning, as it is on a GPU build
 * (where nothing checks): LeakSanitizer's own check at exit, which fails the
 * run, is off; the one below reports and lets the exit status stand. */
/* Leaks are a warning (below); new[] freed with delete is no CUDA error, and
 * harmless for the types programs use it on: not reported. */
extern "C" const char *__asan_default_options()
{
    return "leak_check_at_exit=0:alloc_dealloc_mismatch=0";
}
extern "C" int __lsan_do_recoverable_leak_check();

namespace {

void leak_warning()
{
    /* Counting (make explain, and make grade's hint, which counts inside the sandbox) needs
     * no leak report, and under Landlock LeakSanitizer cannot read /proc/PID/task: its check
     * would end the count with a fatal error. */
    if (getenv("CUDA_EMU_COUNT") != nullptr)
        return;
    if (__lsan_do_recoverable_leak_check() != 0)
        fprintf(stderr, "cuda-emu: warning: the program leaks the host memory listed above "
                        "(a warning: the run's result stands)\n");
}

const bool g_leak_check_registered = [] { return atexit(leak_warning) == 0; }();

} // namespace

/* clock() in a kernel reads the SM's clock (here: clock_ticks(), 1 GHz
 * nominal); in host code, the process's CPU time, as libc's clock(). One
 * symbol serves both, so it decides by whether a CUDA thread is running. */
extern "C" clock_t clock(void) __THROW
{
    if (cuda_emu::g_thread != nullptr)
        return (clock_t)(int)(unsigned)cuda_emu::clock_ticks();
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return (clock_t)-1;
    return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}
