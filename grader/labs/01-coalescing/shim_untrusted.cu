/* shim_untrusted.cu - UNTRUSTED SIDE: lab 01's shim (see grader/worker/shim.h). */
#include "../../worker/shim.h"
#include "lab_manifest.h" /* the contract and the call, from the table */

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    LAB_SHIM_CALL_coalescing(a, s);
}
