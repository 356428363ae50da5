/* rng.h - the one seeded random generator behind every input, size and hidden case.
 *
 * SplitMix64: tiny, fast, and the same sequence on every machine, so `SEED=...` reproduces
 * a grading run exactly. Not for cryptography. */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rng {
    uint64_t state; /* advanced by a fixed odd constant per draw */
} rng;

/* Start a stream from `seed`; equal seeds give equal streams. */
void rng_seed(rng *r, uint64_t seed);

/* Derive an independent seed from a parent seed and a label (for example the check index),
 * so each case's inputs do not depend on which other cases ran. */
uint64_t rng_derive(uint64_t parent, uint64_t label);

uint64_t rng_u64(rng *r);
/* Uniform integer in [lo, hi], both included; lo <= hi. */
long long rng_range(rng *r, long long lo, long long hi);
/* Uniform double in [0, 1). */
double rng_unit(rng *r);

/* Fill x[0..n) with floats uniform in [lo, hi) drawn from `seed`. */
void fill_uniform_f32(float *x, size_t n, uint64_t seed, float lo, float hi);

#ifdef __cplusplus
}
#endif
#endif
