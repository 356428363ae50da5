/* devcheck.h - inputs made and outputs checked on the device, for problems too large for the
 * host (the speed checks): every timed call gets fresh inputs, and every timed output is
 * compared in full, without a copy to the host.
 *
 * Inputs are a pure function of (seed, index), so the same seed gives the same data on every
 * GPU. Hashes are order-independent (an XOR of a mix of each pair of words with its place),
 * so any changed word, or two differing words that trade places, changes the hash. Each
 * kernel here takes its data 16 bytes at a time where it is so aligned, so that it runs at
 * the memory's pace, not the arithmetic's (tests/devcheck/devcheck_test.cu --rate measures
 * that on a GPU). */
#ifndef COMMON_DEVCHECK_H
#define COMMON_DEVCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] uniform in [lo, hi), rounded to a multiple of `step` when step > 0. */
void dev_fill_f32(float *x, size_t n, uint64_t seed, float lo, float hi, float step,
                  cudaStream_t s);
/* x[i] uniform 32-bit words. */
void dev_fill_u32(unsigned *x, size_t n, uint64_t seed, cudaStream_t s);
/* x[i] drawn from values[0..count), uniformly (count <= 16). */
void dev_fill_choice_f32(float *x, size_t n, uint64_t seed, const float *values, int count,
                         cudaStream_t s);

/* Order-independent 64-bit hash of `bytes` bytes (a multiple of 4) at p; synchronizes s. */
uint64_t dev_hash(const void *p, size_t bytes, cudaStream_t s);
/* h[i] = dev_hash(p[i], bytes[i]) for the n buffers, with one synchronization of s. */
void dev_hash_many(const void *const *p, const size_t *bytes, int n, uint64_t *h, cudaStream_t s);

/* Sum of |x[i]| in double; synchronizes s. */
double dev_abs_sum_f32(const float *x, size_t n, cudaStream_t s);

typedef enum dev_elem { DEV_F32, DEV_U32 } dev_elem;

/* What a comparison found. first_bad, got and want are meaningful only if n_bad > 0. */
typedef struct dev_compare_result {
    unsigned long long n_bad;  /* elements outside the bound */
    unsigned long long first_bad; /* smallest bad index */
    double got, want;          /* the values there */
} dev_compare_result;

/* Compare got[0..n) with want[0..n): bit for bit when rel == 0 and abs == 0, otherwise
 * |got - want| <= rel * max(|got|, |want|) + abs (NaN or infinity in got never passes unless
 * want is the same infinity). Synchronizes s. */
void dev_compare(const void *got, const void *want, size_t n, dev_elem type, double rel,
                 double abs, dev_compare_result *r, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
