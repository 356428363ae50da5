/* sgemm_untrusted.cu - UNTRUSTED SIDE: lab 09's shim (see grader/shim.h). One entry point:
 * sgemm(M, N, K, alpha, A, B, beta, C, stream) with arguments "iiifppfp". */
#include "shim.h"
#include "sgemm.h"

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    sgemm((int)a[0].i, (int)a[1].i, (int)a[2].i, (float)a[3].f, (const float *)a[4].p,
          (const float *)a[5].p, (float)a[6].f, (float *)a[7].p, s);
}
