/* banks_untrusted.cu - UNTRUSTED SIDE: lab 02's shim (see grader/shim.h).
 *
 * Entry 0: rolling_max(out, in, steps, series), arguments "ppii". */
#include "shim.h"
#include "banks.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    rolling_max((float *)a[0].p, (const float *)a[1].p, (int)a[2].i, (int)a[3].i, s);
}
