/* shim_untrusted.cu - UNTRUSTED SIDE: lab 04's shim (see grader/worker/shim.h).
 *
 * Entry 0: ilp_memory(out, in, a, n, blocks, threads), arguments "ppfiii".
 * Entry 1: ilp_arith(out, in, n, blocks, threads), arguments "ppiii".
 *
 * The launch is fixed (grader/labs/04-ilp/ilp.h): one kernel <<<blocks, threads>>> on the stream
 * given, nothing else. The shim records the entry point's call into a CUDA graph (global
 * capture mode: a synchronizing or allocating call inside it fails the capture), checks that
 * the graph is one kernel node with gridDim = (blocks, 1, 1) and blockDim = (threads, 1, 1),
 * synchronizes the device (whatever escaped to another stream during the recording is done),
 * overwrites the output (so nothing that ran while recording can pass for a result), and
 * launches the graph on the stream. What runs is exactly what was checked. A broken rule goes
 * into `problem` and nothing is launched (the harness's poisoned output stays).
 *
 * The instantiated graph is kept per argument list (the harness calls the same problems
 * again and again with fresh inputs in the same buffers): a later call with the same
 * arguments replays it without recording again, so a timed call costs one graph launch.
 * Before the first recording of an entry point it is called once directly, so that loading
 * its module (lazy loading) happens outside a capture.
 *
 * Under the CPU emulator there are no graphs: the entry point is called directly. */
#include "../../worker/shim.h"
#include "lab_manifest.h" /* the contract and the call, from the table */
#include "../../wire/proto.h"        /* PROTO_MAX_CALLS: the most calls in a timed unit */

#include <stdio.h>
#include <string.h>

static void call_entry(int entry, const shim_arg *a, cudaStream_t s)
{
    if (entry == 0)
        LAB_SHIM_CALL_ilp_memory(a, s);
    else
        LAB_SHIM_CALL_ilp_arith(a, s);
}

#if defined(CUDA_EMU)

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)n, (void)problem, (void)len;
    call_entry(entry, a, s);
}

#else

#define N_ARGS 6   /* the most arguments of an entry point */
/* Recorded calls kept: every problem of a timed unit (up to PROTO_MAX_CALLS) for both entry
 * points. Fewer, and a unit of more problems than slots (48 on an H200, where 32 were kept)
 * evicts each recording before its next use: every timed call recorded again, and the
 * recording's synchronisation and output overwrite were timed with it. */
#define CACHED (2 * PROTO_MAX_CALLS)

typedef struct recorded {
    int used;                 /* 1 if this slot holds a graph */
    int entry;                /* which entry point */
    shim_arg args[N_ARGS];    /* its arguments, the cache key */
    cudaGraphExec_t exec;     /* the checked launch */
} recorded;

static recorded cache[CACHED];
static int next_slot;
static cudaStream_t capture; /* private stream the calls are recorded on */
static int warmed[2];

static int same_args(const shim_arg *x, const shim_arg *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i].p != y[i].p || x[i].i != y[i].i || memcmp(&x[i].f, &y[i].f, sizeof x[i].f))
            return 0;
    return 1;
}

static const char *node_type_name(cudaGraphNodeType t)
{
    switch (t) {
    case cudaGraphNodeTypeKernel: return "a kernel";
    case cudaGraphNodeTypeMemcpy: return "a memory copy";
    case cudaGraphNodeTypeMemset: return "a memset";
    case cudaGraphNodeTypeHost: return "a host function";
    case cudaGraphNodeTypeGraph: return "a child graph";
    case cudaGraphNodeTypeEmpty: return "an empty node";
    default: return "an operation";
    }
}

/* Record one call and check its shape. Returns the instantiated graph, or NULL with the
 * reason in problem. */
static cudaGraphExec_t record(int entry, const shim_arg *a, int blocks, int threads,
                              cudaStream_t s, char *problem, size_t len)
{
    const char *fn = entry == 0 ? "ilp_memory" : "ilp_arith";
    cudaGraphExec_t exec = NULL;
    if (cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal) != cudaSuccess) {
        snprintf(problem, len, "the grader could not record the launch of %s", fn);
        return NULL;
    }
    call_entry(entry, a, capture);
    cudaGraph_t g = NULL;
    const cudaError_t e = cudaStreamEndCapture(capture, &g);
    (void)cudaGetLastError(); /* a call the capture refused must not fail the worker */
    size_t nodes = 0;
    if (e == cudaSuccess && g && cudaGraphGetNodes(g, NULL, &nodes) != cudaSuccess)
        nodes = 0;
    if (e != cudaSuccess || !g) {
        snprintf(problem, len,
                 "%s made a call that is not allowed while its launch is recorded (%s): "
                 "launch one kernel and return; no synchronizing, no allocation",
                 fn, cudaGetErrorString(e));
    } else if (nodes != 1) {
        snprintf(problem, len,
                 "%s put %zu operations on its stream; it must launch exactly one kernel "
                 "<<<%d, %d>>> on the stream it is given%s",
                 fn, nodes, blocks, threads,
                 nodes == 0 ? " (did the launch go to another stream?)" : "");
    } else {
        cudaGraphNode_t node;
        cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
        cudaKernelNodeParams k = {};
        if (cudaGraphGetNodes(g, &node, &nodes) != cudaSuccess ||
            cudaGraphNodeGetType(node, &type) != cudaSuccess) {
            snprintf(problem, len, "the grader could not read the launch of %s", fn);
        } else if (type != cudaGraphNodeTypeKernel) {
            snprintf(problem, len, "%s launched %s; it must launch one kernel <<<%d, %d>>>",
                     fn, node_type_name(type), blocks, threads);
        } else if (cudaGraphKernelNodeGetParams(node, &k) != cudaSuccess) {
            snprintf(problem, len, "the grader could not read the kernel %s launched", fn);
        } else if (k.gridDim.x != (unsigned)blocks || k.gridDim.y != 1 || k.gridDim.z != 1 ||
                   k.blockDim.x != (unsigned)threads || k.blockDim.y != 1 ||
                   k.blockDim.z != 1) {
            snprintf(problem, len,
                     "%s launched <<<(%u,%u,%u), (%u,%u,%u)>>>; the launch is fixed: "
                     "<<<%d, %d>>> exactly (change the work per thread, not the grid)",
                     fn, k.gridDim.x, k.gridDim.y, k.gridDim.z, k.blockDim.x, k.blockDim.y,
                     k.blockDim.z, blocks, threads);
        }
    }
    if (!problem[0] && (cudaGraphInstantiateWithFlags(&exec, g, 0) != cudaSuccess ||
                        cudaGraphUpload(exec, s) != cudaSuccess)) {
        snprintf(problem, len, "the launch %s recorded could not be replayed", fn);
        if (exec)
            cudaGraphExecDestroy(exec);
        exec = NULL;
    }
    if (g)
        cudaGraphDestroy(g);
    /* Anything the call started outside the recording finishes now, and the output it may
     * have written is overwritten below (on s, before the replay). */
    cudaDeviceSynchronize();
    (void)cudaGetLastError();
    return exec;
}

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    entry = entry == 0 ? 0 : 1;
    if (n > N_ARGS)
        n = N_ARGS;
    const int blocks = (int)a[n - 2].i, threads = (int)a[n - 1].i;
    const int count = entry == 0 ? (int)a[3].i : (int)a[2].i;
    for (int i = 0; i < CACHED; i++)
        if (cache[i].used && cache[i].entry == entry && same_args(cache[i].args, a, n)) {
            cudaGraphLaunch(cache[i].exec, s);
            return;
        }
    if (!capture && cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking) != cudaSuccess)
        return; /* the worker reports the CUDA error */
    if (!warmed[entry]) { /* module loading outside the recording */
        call_entry(entry, a, capture);
        if (cudaDeviceSynchronize() != cudaSuccess)
            return; /* a fault: the worker reports it */
        warmed[entry] = 1;
    }
    const cudaGraphExec_t exec = record(entry, a, blocks, threads, s, problem, len);
    if (count > 0)
        cudaMemsetAsync(a[0].p, 0xFF, (size_t)count * sizeof(float), s);
    if (!exec)
        return;
    recorded *r = &cache[next_slot];
    next_slot = (next_slot + 1) % CACHED;
    if (r->used)
        cudaGraphExecDestroy(r->exec);
    r->used = 1;
    r->entry = entry;
    memset(r->args, 0, sizeof r->args);
    memcpy(r->args, a, (size_t)n * sizeof *a);
    r->exec = exec;
    cudaGraphLaunch(exec, s);
}

#endif
