/* no_sanitize.cu -- a kernel compiled without the access hooks would run
 * unchecked: emu-nvcc must refuse the attribute, even pasted by a macro. */
#define QUIET(a, b) a##b

__global__ __attribute__((QUIET(no_, sanitize)("thread"))) void unchecked(int *p)
{
    *p = *p + 1;
}
