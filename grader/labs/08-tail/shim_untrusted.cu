/* tail_untrusted.cu - UNTRUSTED SIDE: lab 08's shim (see grader/shim.h). One entry point:
 * tail(out, seeds, items, rounds, stream) with arguments "ppii". */
#include "shim.h"
#include "tail.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    tail((unsigned *)a[0].p, (const unsigned *)a[1].p, (int)a[2].i, (int)a[3].i, s);
}
