/* shim.h - what each lab's shim gives the worker: how to call its entry points.
 *
 * A shim is the untrusted side's only lab-specific code (grader/labs/NN-name/shim_untrusted.cu). It
 * is linked into the same shared object as the implementation it calls (the student's file
 * or the reference), and turns a list of arguments into one call of an entry point with the
 * contract's signature. The harness never trusts what a shim reports: `problem` only lets a
 * rule the shim can see (a leaked stream, a launch of the wrong shape) reach the report. */
#ifndef GRADER_SHIM_H
#define GRADER_SHIM_H

#include <stddef.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One argument, already translated into this process's address space. */
typedef struct shim_arg {
    void *p;     /* a pointer argument (device, or registered host memory) */
    long long i; /* an integer argument */
    double f;    /* a floating-point argument */
} shim_arg;

/* Call entry point `entry` with `n` arguments on `stream`. Asynchronous: the caller
 * synchronizes. A broken rule goes into problem (at most len bytes, "" if none). */
void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t stream, char *problem,
                   size_t len);

/* Serve proto.h commands on socket `sock` until PROTO_QUIT or end of input; returns the exit
 * status for the worker, or PROTO_SERVE_LOAD after a PROTO_LOAD it accepted, with the object to
 * load in next[0..len) (unanswered: the worker's main loads it, answers, and calls that object's
 * shim_serve). Defined once, in grader/worker/worker_loop_untrusted.cu. */
int shim_serve(int sock, char *next, size_t len);

#ifdef __cplusplus
}
#endif
#endif
