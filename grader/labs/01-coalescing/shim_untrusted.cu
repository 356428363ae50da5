/* coalescing_untrusted.cu - UNTRUSTED SIDE: lab 01's shim (see grader/shim.h). */
#include "shim.h"
#include "coalescing.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    coalescing((float *)a[0].p, (const float *)a[1].p, (const float *)a[2].p,
               (const float *)a[3].p, (int)a[4].i, (int)a[5].i, s);
}
