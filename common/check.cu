/* check.cu - CUDA error reporting behind CUDA_CHECK. See check.h. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

static cuda_fail_hook fail_hook;

void cuda_set_fail_hook(cuda_fail_hook hook) { fail_hook = hook; }

void cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    cuda_report(err, call, file, line);
    if (fail_hook) {
        cuda_fail_hook hook = fail_hook;
        fail_hook = NULL; /* a hook that itself fails must not recurse */
        hook(err, call, file, line);
    }
    exit(CUDA_EXIT_STATUS);
}
