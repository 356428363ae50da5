/* Cheat: answer right, then write into the input array (pinned host memory, read-only by the
 * lab's contract) in the timed calls alone (the largest correctness size is 4194311 elements).
 * The round's first hash of the input is taken from the device copy the harness made it from,
 * and the hash after the call reads the host array itself: the change is seen, and the speed
 * check fails saying so.
 * lab: streams
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL
 * expect: message=modified an input */
#include "streams.h"
#include "cheat_common.cuh"

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    honest_streams(h_out, h_in, d_out, d_in, n, process);
    if (n > ((size_t)1 << 23))
        ((float *)h_in)[n / 2] = 0.25f; /* after the copy-in: the output stays right */
}
