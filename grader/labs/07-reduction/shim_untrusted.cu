/* reduction_untrusted.cu - UNTRUSTED SIDE: lab 07's shim (see grader/shim.h).
 *
 * Entry 0: reduction(result, in, n, scratch), arguments "pplp". */
#include "shim.h"
#include "reduction.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    reduction((float *)a[0].p, (const float *)a[1].p, (long long)a[2].i, (float *)a[3].p, s);
}
