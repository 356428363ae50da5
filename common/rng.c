/* rng.c - SplitMix64 and the input fillers built on it. See rng.h. */
#include "rng.h"

void rng_seed(rng *r, uint64_t seed) { r->state = seed; }

uint64_t rng_u64(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t rng_derive(uint64_t parent, uint64_t label)
{
    rng r;
    rng_seed(&r, parent ^ (label * 0xD1B54A32D192ED03ull));
    rng_u64(&r);
    return rng_u64(&r);
}

long long rng_range(rng *r, long long lo, long long hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1u;
    if (span == 0) /* the whole 64-bit range */
        return (long long)rng_u64(r);
    return lo + (long long)(rng_u64(r) % span);
}

double rng_unit(rng *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }

void fill_uniform_f32(float *x, size_t n, uint64_t seed, float lo, float hi)
{
    rng r;
    rng_seed(&r, seed);
    const float span = hi - lo;
    for (size_t i = 0; i < n; i++) {
        /* 24 random bits: every float in [0,1) that has an exact 24-bit mantissa */
        float u = (float)(rng_u64(&r) >> 40) * 0x1.0p-24f;
        x[i] = lo + span * u;
    }
}
