/* tail.h - lab 08's contract: what labs/08-tail/tail.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_TAIL_H
#define CONTRACT_TAIL_H

/* The grader's sizing code (plain C, no CUDA) includes this header for its constants alone. */
#ifndef CONTRACT_CONSTANTS_ONLY
#include <cuda_runtime.h>
#endif

#define TAIL_LANES 1024 /* results per work item */

/* One sample: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC 2011; the generator behind curand's Philox) of the counter (lane, round, item, 0) under
 * the key (seed, 0xCA11AB1E), its four output words added. About 60 integer instructions on a
 * GPU (10 rounds of two 32x32->64-bit multiplies and two three-way XORs), no memory traffic:
 * pure arithmetic. Identical on host and device, so the grader can check every bit. */
#if defined(__CUDACC__) || defined(CUDA_EMU)
#define TAIL_HD __host__ __device__
#else
#define TAIL_HD
#endif
static TAIL_HD inline unsigned tail_sample(unsigned seed, unsigned item, unsigned lane,
                                           unsigned round)
{
    unsigned x = lane, y = round, z = item, w = 0u;
    unsigned k0 = seed, k1 = 0xCA11AB1Eu;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < 10; i++) {
        const unsigned long long p0 = 0xD2511F53ull * x, p1 = 0xCD9E8D57ull * z;
        const unsigned hi0 = (unsigned)(p0 >> 32), lo0 = (unsigned)p0;
        const unsigned hi1 = (unsigned)(p1 >> 32), lo1 = (unsigned)p1;
        x = hi1 ^ y ^ k0;
        y = lo1;
        z = hi0 ^ w ^ k1;
        w = lo0;
        k0 += 0x9E3779B9u; /* the Weyl key schedule of Philox */
        k1 += 0xBB67AE85u;
    }
    return x + y + z + w;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Work item `item` (0 <= item < items) owns TAIL_LANES results; each is a sum of `rounds`
 * samples, modulo 2^32 (unsigned arithmetic wraps, so any order of the additions gives the
 * same bits):
 *
 *     out[item * TAIL_LANES + lane] = sum over round < rounds of
 *                                     tail_sample(seeds[item], item, lane, round)
 *
 * for lane < TAIL_LANES. out: items * TAIL_LANES unsigned; seeds: items unsigned. Both are
 * device memory, 256-byte aligned, and do not overlap. items >= 1, rounds >= 1, and
 * items * rounds < 2^31. Every item costs the same. Launch your work on `stream` and return
 * without synchronizing: the grader times the stream. */
#ifndef CONTRACT_CONSTANTS_ONLY
void tail(unsigned *out, const unsigned *seeds, int items, int rounds, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif
#endif
