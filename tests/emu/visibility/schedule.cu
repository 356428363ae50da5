/* schedule.cu -- the order of the grids is the command loop's to set (a
 * function named shim_serve, as the grader's), never the code under test's:
 * returns 0 when the loop's call is taken and the other function's refused. */
#include <cuda_emu/schedule.h>

extern "C" __attribute__((noinline)) int code_under_test(void)
{
    return cuda_emu_schedule(0);
}

extern "C" int shim_serve(int)
{
    const int loop = cuda_emu_schedule(6);
    const int other = code_under_test();
    return (loop == 0 ? 0 : 10) + (other == -1 ? 0 : 1);
}
