/* transpose_untrusted.cu - UNTRUSTED SIDE: lab 06's shim (see grader/shim.h).
 *
 * Entry 0: transpose(out, in, rows, cols), arguments "ppii". */
#include "shim.h"
#include "transpose.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    transpose((float *)a[0].p, (const float *)a[1].p, (int)a[2].i, (int)a[3].i, s);
}
