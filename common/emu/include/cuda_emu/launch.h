/*
 * cuda_emu/launch.h -- what the emu-rewrite step turns launches and __shared__
 * declarations into.
 *
 *   k<T, 4><<<grid, block, smem, stream>>>(a, b);
 * becomes
 *   ::cuda_emu::launch(CUDA_EMU_KERNEL_PTR(k<T, 4>), "k<T, 4>",
 *                      ::cuda_emu::config(grid, block, smem, stream),
 *                      [&](auto... cuda_emu_a) { k<T, 4>(cuda_emu_a...); }, a, b);
 *
 * The arguments are evaluated once, at the launch, as in CUDA; every CUDA
 * thread then calls the kernel with its own copy of them, so a kernel that
 * modifies a parameter modifies only its own. The lambda lets C++ deduce the
 * template arguments of a kernel launched as k<<<...>>>(x) just as nvcc does;
 * the kernel's address, when it has a single one, identifies it to
 * cudaFuncSetAttribute.
 *
 *   __shared__ float tile[32][33];
 * becomes (inside a function)
 *   struct cuda_emu_sh_12_0 { float tile[32][33]; };
 *   auto &tile = ::cuda_emu::shared_var<decltype(cuda_emu_sh_12_0::tile)>(
 *       &::cuda_emu::shared_key<cuda_emu_sh_12_0>, 0, "tile");
 * The local struct only names the declared type; the storage is allocated by
 * the runtime once per block, on the first thread to reach the declaration.
 */
#ifndef CUDA_EMU_LAUNCH_H
#define CUDA_EMU_LAUNCH_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../cuda_runtime_api.h"

namespace cuda_emu {

/* The four values between <<< and >>>. */
struct LaunchConfig {
    dim3 grid;           /* blocks in the grid */
    dim3 block;          /* threads per block */
    size_t smem;         /* dynamic shared memory per block, bytes */
    cudaStream_t stream; /* stream the launch is issued to (0: legacy default) */
    bool cooperative;    /* cudaLaunchCooperativeKernel: all blocks resident, grid.sync() */
};

/* A file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM defined before the runtime's headers
 * (nvcc --default-stream per-thread) launches on the host thread's own default stream where
 * it names stream 0 (cuda_runtime.h: its API calls too). The template argument keeps such
 * files' config apart from the others' in one program. */
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define CUDA_EMU_PER_THREAD_DEFAULT true
#else
#define CUDA_EMU_PER_THREAD_DEFAULT false
#endif
template <bool PerThread = CUDA_EMU_PER_THREAD_DEFAULT>
inline LaunchConfig config(dim3 grid, dim3 block, size_t smem = 0, cudaStream_t stream = 0)
{
    if (PerThread && stream == nullptr)
        stream = cudaStreamPerThread;
    return LaunchConfig{grid, block, smem, stream, false};
}

/* Runs INVOKE(CTX) once per CUDA thread of the grid described by CFG, or
 * records CUDA's error for a bad configuration. KERNEL (may be null when the
 * kernel's address is not known) and NAME identify the kernel in error
 * messages and to cudaFuncSetAttribute. CTX_SIZE is the size of *CTX (the
 * arguments, which every thread copies: those reads are not checked).
 * Returns when the grid has finished, with the launch's own result (a bad
 * configuration's error; a fault in the kernel is sticky and reported by the
 * next call, as on a GPU). */
cudaError_t launch_erased(const void *kernel, const char *name, const LaunchConfig &cfg,
                          void (*invoke)(void *), void *ctx, size_t ctx_size);

/* While CFG.stream is being captured into a CUDA graph, or a kernel node is being added
 * (cudaGraphAddKernelNode), a launch is recorded, not run: capture_launch takes a copy of
 * its context CTX (which FREE deletes) and makes it a node; launch_erased runs it each
 * time the graph is launched. */
bool capture_pending(cudaStream_t stream);
cudaError_t capture_launch(const void *kernel, const char *name, const LaunchConfig &cfg,
                           void (*invoke)(void *), void *ctx, size_t ctx_size,
                           void (*free)(void *));

/* The arguments are taken by value, as a kernel takes them: a constant of the
 * enclosing function named in a lambda that does not capture it stays usable
 * (a copy is no odr-use; a reference would be).
 *
 * FN is the kernel when the launch names exactly one function (a kernel, or a
 * variable holding a pointer to one), else null (std::nullptr_t: a template
 * whose arguments come from the call, an overload set). When it can take the
 * arguments as they are, every thread calls it through the copy in the
 * launch's context, as a GPU evaluates the kernel expression once; BODY, which
 * names the kernel again, would read a pointer variable of the host code from
 * every CUDA thread. */
template <class Fn, class Body, class... Args>
cudaError_t launch(Fn fn, const char *name, const LaunchConfig &cfg, Body body, Args... args)
{
    constexpr bool direct = std::is_pointer_v<Fn> && std::is_invocable_v<Fn, Args &...>;
    using Callee = std::conditional_t<direct, Fn, Body>;
    struct Context {
        Callee callee;              /* the kernel, or BODY calling it */
        std::tuple<Args...> args;   /* the arguments, evaluated at the launch */
    };
    Context ctx{[&]() -> Callee {
                    if constexpr (direct)
                        return fn;
                    else
                        return body;
                }(),
                std::tuple<Args...>(std::move(args)...)};
    const void *kernel = nullptr;
    if constexpr (std::is_pointer_v<Fn>)
        kernel = reinterpret_cast<const void *>(fn);
    void (*invoke)(void *) = [](void *p) {
        Context *c = static_cast<Context *>(p);
        std::apply(c->callee, c->args); /* each thread's own copies */
    };
    if constexpr (std::is_copy_constructible_v<Context>)
        if (capture_pending(cfg.stream))
            return capture_launch(kernel, name, cfg, invoke, new Context(ctx), sizeof ctx,
                                  [](void *p) { delete static_cast<Context *>(p); });
    return launch_erased(kernel, name, cfg, invoke, &ctx, sizeof ctx);
}

/* The kernel when EXPR names exactly one function, else null (nullptr_t):
 * kernel_address<Tag> only deduces from a single function, and the Tag makes
 * the probe lambda's return type dependent, so an overload set or a template
 * whose arguments come from the call is a substitution failure, not an error. */
template <class Tag, class R, class... P>
auto kernel_address(R (*fn)(P...))
{
    return fn;
}
template <class Probe>
auto kernel_address_or_null(Probe probe)
{
    if constexpr (std::is_invocable_v<Probe, int>)
        return probe(0);
    else
        return nullptr;
}

/* cudaLaunchKernelEx's configuration C as the emulator launches it, into *OUT: the cooperative
 * attribute sets cooperative; a cluster shape must divide the grid (else
 * cudaErrorInvalidClusterSize) and its blocks then run as ordinary blocks; programmatic
 * serialization and the hints (priority, access policy, carveout, domains) change nothing
 * here, where a launch starts only once the one before it on its stream has ended. A null C,
 * attributes missing or an unknown attribute: cudaErrorInvalidValue. */
cudaError_t launch_ex_config(const cudaLaunchConfig_t *c, LaunchConfig *out);

/* After a launch made with C: records the events its attributes name (the programmatic event
 * and the launch-completion event) on its stream; the launch has ended, so both have fired. */
void launch_ex_done(const cudaLaunchConfig_t *c);

/* cudaLaunchKernel's argument array, unpacked into the parameter types of FN. */
template <class... P, size_t... I>
cudaError_t launch_with_array(void (*fn)(P...), const char *name, const LaunchConfig &cfg, void **args,
                       std::index_sequence<I...>)
{
    return launch(fn, name, cfg, [fn](auto... a) { fn(a...); },
                  *static_cast<std::decay_t<P> *>(args[I])...);
}

/* ---- Kernels by address ---------------------------------------------------
 * cudaLaunchKernel((void *)k, ...) and cudaLaunchCooperativeKernel name a
 * kernel by address only, with its arguments as an array of pointers: to
 * unpack them the emulator must know the kernel's parameter types. emu-rewrite
 * registers every __global__ function defined at namespace scope that is not
 * a template (an overloaded name is skipped), right after its body. */
using ArrayLauncher = cudaError_t (*)(const void *fn, const char *name, const LaunchConfig &cfg,
                               void **args);

template <class... P>
cudaError_t launch_from_array(const void *fn, const char *name, const LaunchConfig &cfg, void **args)
{
    return launch_with_array(reinterpret_cast<void (*)(P...)>(const_cast<void *>(fn)), name, cfg, args,
                      std::index_sequence_for<P...>{});
}

struct KernelRegistration {
    const void *fn;
    ArrayLauncher launcher;
};
template <class Tag, class... P>
KernelRegistration kernel_registration(void (*fn)(P...))
{
    return KernelRegistration{reinterpret_cast<const void *>(fn), &launch_from_array<P...>};
}

/* Records what launches the kernel at FN.fn from an argument array. */
bool register_kernel(KernelRegistration fn, const char *name);
template <class Probe>
bool register_kernel_or_skip(Probe probe, const char *name)
{
    if constexpr (std::is_invocable_v<Probe, int>)
        return register_kernel(probe(0), name);
    else
        return false;
}

/* Records FN unless it is recorded already (any host thread may call it). */
bool register_kernel_once(KernelRegistration fn, const char *name);

/* emu-rewrite wraps the operand of (void *)kernel, (const void *)kernel and
 * reinterpret_cast<const void *>(kernel), for any name declared __global__ in
 * the file: the kernel, a template's instantiation included, is registered
 * when its address is taken, and the operand comes back unchanged. Anything
 * that is not a function returning void (a variable of the same name in
 * another scope) passes through untouched. */
template <class F>
struct is_kernel_function : std::false_type {};
template <class... P>
struct is_kernel_function<void(P...)> : std::true_type {};

struct KernelPtrTag {};

template <class T>
inline T &&kernel_ptr(T &&x, const char *name)
{
    using D = std::remove_reference_t<T>;
    if constexpr (is_kernel_function<D>::value)
        register_kernel_once(kernel_registration<KernelPtrTag>(&x), name);
    else if constexpr (std::is_pointer_v<std::decay_t<D>> &&
                       is_kernel_function<std::remove_pointer_t<std::decay_t<D>>>::value)
        register_kernel_once(kernel_registration<KernelPtrTag>(x), name);
    return static_cast<T &&>(x);
}

/* Launches the registered kernel at FN with the argument array ARGS; the
 * launch's result, or cudaErrorInvalidDeviceFunction (with a message) if FN
 * is not a registered kernel. */
cudaError_t launch_registered(const void *fn, const LaunchConfig &cfg, void **args);

/* ---- Shared memory ------------------------------------------------------- */

/* One address per __shared__ declaration (per instantiation of its function,
 * since each instantiation has its own local struct S). */
template <class S>
inline const char shared_key = 0;

/* The running block's copy of the INDEX-th variable declared with KEY, SIZE
 * bytes aligned to ALIGN, allocated (and filled with the 0xff poison) when
 * the first thread of the block gets here. NAME and ELEM_SIZE are for
 * messages. */
void *shared_static(const void *key, unsigned index, size_t size, size_t align, const char *name,
                    size_t elem_size);

template <class T>
T &shared_var(const void *key, unsigned index, const char *name)
{
    return *static_cast<T *>(shared_static(key, index, sizeof(T), alignof(T), name,
                                           sizeof(std::remove_all_extents_t<T>)));
}

/* The running block's dynamic shared memory (the smem bytes of the launch). */
void *shared_dynamic();

template <class T>
T *dynamic_shared()
{
    return static_cast<T *>(shared_dynamic());
}

/* An extern __shared__ array at file scope is a pointer the runtime points at
 * the running block's dynamic shared memory whenever it switches blocks; SET
 * stores its argument into that pointer. Returns true (for a static initializer). */
bool register_dynamic_shared_alias(void (*set)(void *));

/* A __shared__ variable at file scope is a thread_local object of its host
 * thread; whenever the runtime switches that thread to another block, it
 * saves the variable's contents for the block it leaves and loads those of
 * the block it runs (fresh: the 0xff poison). ADDRESS returns the calling
 * host thread's object, of SIZE bytes; NAME and ELEM_SIZE are for messages.
 * Returns true (for a static initializer). */
bool register_file_shared(void *(*address)(), size_t size, const char *name, size_t elem_size);

/* The check __launch_bounds__(MAX_THREADS, ...) stands for: a launch with more
 * threads per block fails with cudaErrorLaunchOutOfResources, as on a GPU.
 * The rewrite puts this call first in the kernel's body. */
void kernel_launch_bounds(long long max_threads, long long min_blocks = 0,
                          long long max_blocks_per_cluster = 0);

/* The same bounds, told to the runtime before the kernel first runs (the
 * rewrite registers them after a kernel's body): a kernel that names a
 * minimum of blocks per SM is taken to use the registers that allows, which
 * the occupancy API then counts. Returns true (for a static initializer). */
bool register_kernel_bounds(const void *kernel, long long max_threads, long long min_blocks = 0,
                            long long max_blocks_per_cluster = 0);

/* What nvcc's build of a file for the emulated device says one of its kernels uses, as a GPU
 * knows it from the compiled kernel before any launch. emu-nvcc compiles a file that asks
 * (cudaFuncGetAttributes, the occupancy API, a cooperative launch, cudaFuncSetAttribute) with
 * nvcc too, and appends a table of these that registers itself as the program starts
 * (rewrite/figures.h); cudaFuncGetAttributes, the occupancy API and the launch's checks then
 * answer with them. A row the runtime could not get from nvcc (a figure out of range) is left
 * out. */
struct KernelResources {
    const void *kernel;     /* the kernel; null where g++ made no such function (left out) */
    int registers;          /* per thread */
    int barriers;           /* named barriers a block uses */
    long long shared_bytes; /* static __shared__ bytes per block */
    long long local_bytes;  /* local memory per thread: its stack frame and spills */
    long long const_bytes;  /* the file's __constant__ bytes */
    int max_threads;        /* the PTX's .maxntid (__launch_bounds__): threads; 0: none */
};
/* Records the COUNT rows of TABLE. Returns true (for a static initializer). */
bool register_kernel_resources(const KernelResources *table, size_t count);

/* CUDA_EMU_KERNEL_BOUNDS' registration, through the probe kernel_address_or_null uses: a name
 * with no one address (an overload set, a template) registers nothing here. */
template <class Probe>
bool register_bounds_or_skip(Probe probe, long long max_threads, long long min_blocks = 0,
                             long long max_blocks_per_cluster = 0)
{
    if constexpr (std::is_invocable_v<Probe, int>)
        return register_kernel_bounds(reinterpret_cast<const void *>(probe(0)), max_threads,
                                      min_blocks, max_blocks_per_cluster);
    else
        return false;
}

/* ---- Symbols -------------------------------------------------------------- */

/* cudaMemcpyToSymbol (TO_SYMBOL) or cudaMemcpyFromSymbol: COUNT bytes between
 * SYMBOL + OFFSET (a variable of SYMBOL_SIZE bytes) and DATA, with CUDA's
 * checks and error codes. */
cudaError_t symbol_copy(void *symbol, size_t symbol_size, size_t offset, const void *data,
                        size_t count, cudaMemcpyKind kind, bool to_symbol);

} // namespace cuda_emu

/* Each registration's flag has a name of its own: kernels may share a name (overloads). */
#define CUDA_EMU_CONCAT_(a, b) a##b
#define CUDA_EMU_CONCAT(a, b) CUDA_EMU_CONCAT_(a, b)
#define CUDA_EMU_UNIQUE(prefix) CUDA_EMU_CONCAT(prefix, __COUNTER__)

#define CUDA_EMU_REGISTER_KERNEL(name)                                                  \
    [[maybe_unused]] static const bool CUDA_EMU_UNIQUE(cuda_emu_registered_) =         \
        ::cuda_emu::register_kernel_or_skip(                                            \
            [](auto cuda_emu_tag)                                                       \
                -> decltype(::cuda_emu::kernel_registration<decltype(cuda_emu_tag)>(name)) { \
                return ::cuda_emu::kernel_registration<decltype(cuda_emu_tag)>(name);   \
            },                                                                          \
            #name);

/* The same probe for the bounds: a name that is overloaded, or a template's, has no one address
 * here, and its bounds are noted at its first launch instead. */
#define CUDA_EMU_KERNEL_BOUNDS(name, ...)                                               \
    [[maybe_unused]] static const bool CUDA_EMU_UNIQUE(cuda_emu_bounds_) =             \
        ::cuda_emu::register_bounds_or_skip(                                            \
            [](auto cuda_emu_tag)                                                       \
                -> decltype(::cuda_emu::kernel_address<decltype(cuda_emu_tag)>(name)) {  \
                return ::cuda_emu::kernel_address<decltype(cuda_emu_tag)>(name);        \
            },                                                                          \
            __VA_ARGS__);

/* The kernel a launch names, or null (see kernel_address_or_null). The probe
 * sits in a generic lambda of its own: in a lambda that is not generic, in a
 * function that is not a template, g++ 12 stops with an internal compiler
 * error (in gimplify_var_or_parm_decl) when a constant of the enclosing
 * function that the lambda captures by reference (a tile size) appears in
 * both the probe's return type and its body:
 *     constexpr int BM = 64; auto go = [&]() { k<BM><<<g, b>>>(x); };    */
#define CUDA_EMU_KERNEL_PTR(...)                                                        \
    [&](auto) {                                                                         \
        return ::cuda_emu::kernel_address_or_null(                                      \
            [&](auto cuda_emu_tag)                                                      \
                -> decltype(::cuda_emu::kernel_address<decltype(cuda_emu_tag)>(__VA_ARGS__)) { \
                return ::cuda_emu::kernel_address<decltype(cuda_emu_tag)>(__VA_ARGS__); \
            });                                                                         \
    }(0)

#pragma GCC visibility pop
#endif /* CUDA_EMU_LAUNCH_H */
