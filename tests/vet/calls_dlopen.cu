/* Loading code at run time. */
#include "coalescing.h"
#include <dlfcn.h>
void coalescing(float *, const float *, const float *, const float *, int, int, cudaStream_t)
{
    dlopen("libsomething.so", RTLD_NOW);
}
