/* Cheat: in the timed calls alone (the largest correctness size is 4194311 elements), look at
 * the output array first and, when it already holds numbers (not the grader's NaN poison),
 * return at once: a grader that left the reference's answer (or this process's own answer
 * from an earlier round) in place would time a call that does nothing. Every call of the
 * student's finds its output poisoned, and each round's input is new, so what it keeps is
 * wrong and the speed check fails on the comparison.
 * lab: streams
 * where: gpu
 * expect: all-correct=OK
 * expect: speed=FAIL */
#include "streams.h"
#include "cheat_common.cuh"

static int holds_numbers(const float *h_out, size_t n)
{
    const size_t probe[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; i++)
        if (h_out[probe[i]] != h_out[probe[i]]) /* NaN: poisoned */
            return 0;
    return 1;
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    if (n > ((size_t)1 << 23) && holds_numbers(h_out, n))
        return;
    honest_streams(h_out, h_in, d_out, d_in, n, process);
}
