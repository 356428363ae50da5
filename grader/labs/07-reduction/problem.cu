/* problem.cu - lab 07's problem for the harness: inputs, calls, verification, sizes
 * and the CUB ceiling (trusted code, in the harness: the student's file and the reference run
 * in worker processes, behind grader/labs/07-reduction/shim_untrusted.cu).
 *
 * *result = in[0] + ... + in[n-1]. Inputs are uniform in [-0.5, 1): mixed signs, and a mean of
 * 0.25 so that the sum grows with n (with a zero mean the sum is a random walk near 0 and a
 * relative check says little). Verified against a double-precision sum with the bound below.
 *
 * The error bound. Any order of float additions is a binary tree over the n inputs; if no
 * input passes through more than d additions, |computed - exact| <= d u sum|x_i| to first
 * order, u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2). A
 * pure tree has d = ceil(log2 n). GPU reductions are trees of serial chains (each thread
 * accumulates its own elements, then warp, block and grid trees), so their worst case d is
 * larger, but rounding errors of such chains are close to independent and grow like sqrt(d),
 * not d (Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019). The grader allows
 *
 *     |got - exact| <= 4 u (ceil(log2 n) + 2) sum|x_i|
 *
 * The orders of the skeleton, of the reference (H200 grid) and of one serial accumulator per
 * thread for 1024 or 40960 threads, replayed in float32 on the CPU on these inputs (n = 33,
 * 65537, 2^24 + 43, 2^28 + 3), land at 1e-4 to 3e-2 of the bound; most of that is the final
 * rounding of the sum to a float. A single serial chain passes up to n = 2^24 (0.4 of the
 * bound) and fails at 2^28 (a float accumulator near 6.7e7 can no longer add 0.25). A dropped
 * or doubled element fails it while the element is larger than the bound: the bound is about
 * 0.0003 at n = 257 and 0.12 at n = 65537 (there one input in six is smaller and would pass),
 * above 2 from n = 2^20 on (no single element is seen); a dropped block of 256 fails it at
 * n = 2^24 (a bound near 45), and 1% of the input at any size. No float32 check can see one
 * element among 10^8: the sum's own rounding (half an ulp of 6.7e7 is 4) is larger. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "reduction.h"
#include "../lab_io.h"
#include "../common/parallel.h"

#if !defined(CUDA_EMU)
#include <cub/device/device_reduce.cuh>
#endif

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_reduction; /* the table, table.c */

typedef struct problem {
    lab_io io;           /* first: the lab_io hooks take the problem as its lab_io */
    lab_io_buf bufs[3];  /* the buffers below, the result's bound this n's (tol) */
    long long n;         /* elements */
    double abs_sum;      /* sum of |input|: the scale of the rounding error (the result's
                            lab_io scale) */
    double tol;          /* allowed |error| / abs_sum (see the bound above) */
    void *cub_temp;      /* CUB's temporary storage for the ceiling (not in emulation) */
    size_t cub_bytes;    /* its size */
    double dev_abs_sum;  /* speed checks: sum of |input| of this round's input, taken on the
                            device once per refresh (outputs()), or < 0 until then */
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

/* in, drawn by the lab (input_chunk below; on the device from stream 1 of the seed); the
 * result, within tol * sum|x| of the double-precision sum (its rel set per problem, its scale
 * sum|x|); the scratch the contract promises zeroed */
enum { IN, RESULT, SCRATCH };
static const lab_io_buf bufs[] = {LAB_IO_IN_OWN(1, -0.5f, 1.0f, 0.f), LAB_IO_OUT_CLOSE(0.0, 0.0),
                                  LAB_IO_SCRATCH_ZEROED("reduction_scratch_floats(n) floats")};

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                    */

static int ceil_log2(long long n)
{
    int k = 0;
    while ((1ll << k) < n)
        k++;
    return k;
}

/* A correctness input and the CPU's answer for it, made in chunks of INPUT_CHUNK elements,
 * each from a seed of its own (so that the chunks can be made at once), uniform in
 * [-0.5, 1). Each chunk's sum and sum of |x| in double precision, in blocks of 1024 (the block
 * sums are added in double again): its own error is about 1e-13 of sum|x|, a millionth of the
 * tolerance. */
#define INPUT_CHUNK ((size_t)1 << 20)

typedef struct input_job {
    float *x;
    size_t n;
    uint64_t seed;
    double *sum, *abs_sum; /* per chunk */
} input_job;

static void input_chunk(void *ctx, size_t c)
{
    const input_job *j = (const input_job *)ctx;
    const size_t begin = c * INPUT_CHUNK;
    const size_t end = begin + INPUT_CHUNK < j->n ? begin + INPUT_CHUNK : j->n;
    fill_uniform_f32(j->x + begin, end - begin, rng_derive(j->seed, c), -0.5f, 1.0f);
    double sum = 0.0, abs_sum = 0.0;
    for (size_t b = begin; b < end; b += 1024) {
        const size_t e = b + 1024 < end ? b + 1024 : end;
        double s = 0.0, a = 0.0;
        for (size_t i = b; i < e; i++) {
            s += j->x[i];
            a += fabs((double)j->x[i]);
        }
        sum += s;
        abs_sum += a;
    }
    j->sum[c] = sum;
    j->abs_sum[c] = abs_sum;
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_reduction, 0, size);
    p->dev_abs_sum = -1;
    p->n = size[0];
    p->tol = 4.0 * 0x1p-24 * (ceil_log2(p->n) + 2);
    memcpy(p->bufs, bufs, sizeof bufs);
    p->bufs[RESULT].rel = p->tol;
    const size_t count[] = {(size_t)p->n, 1, (size_t)reduction_scratch_floats(p->n)};
    const int host = lab_io_create(&p->io, p->bufs, 3, count, seed);
#if !defined(CUDA_EMU)
    /* CUB's temporary storage, sized by CUB itself and allocated here, outside any timing
     * (a speed check's problem needs it too: the ceiling is timed on it). */
    const float *in = (const float *)lab_io_dev(&p->io, IN);
    float *result = (float *)lab_io_dev(&p->io, RESULT);
    if (p->n <= INT_MAX)
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, in, result, (int)p->n));
    else
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, in, result, p->n));
    CUDA_CHECK(cudaMalloc(&p->cub_temp, p->cub_bytes ? p->cub_bytes : 1));
#endif
    if (!host) /* a speed check's problem: refresh() makes the inputs */
        return p;
    /* The input and its sums, chunk by chunk on the CPU's cores (see input_chunk); the chunks'
     * sums are added in order, so the answer is the same whatever the number of cores. */
    const size_t chunks = ((size_t)p->n + INPUT_CHUNK - 1) / INPUT_CHUNK;
    input_job job = {lab_io_in(&p->io, IN), (size_t)p->n, rng_derive(seed, 1),
                     (double *)xmalloc(chunks * sizeof(double)),
                     (double *)xmalloc(chunks * sizeof(double))};
    parallel_for(chunks, HARNESS_CPU_THREADS, input_chunk, &job);
    double sum = 0.0, abs_sum = 0.0;
    for (size_t c = 0; c < chunks; c++) {
        sum += job.sum[c];
        abs_sum += job.abs_sum[c];
    }
    free(job.sum);
    free(job.abs_sum);
    lab_io_expected_d(&p->io, RESULT)[0] = sum;
    p->abs_sum = abs_sum;
    p->io.scale[RESULT] = &p->abs_sum;
    lab_io_upload(&p->io);
    return p;
}

/* lab_io's buffers, and CUB's storage. */
static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    if (p->cub_temp)
        CUDA_CHECK(cudaFree(p->cub_temp));
    lab_io_hook_destroy(vp);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (impl == IMPL_CEILING) { /* the library's best: CUB, the same bytes read */
        const float *in = (const float *)lab_io_dev(&p->io, IN);
        float *result = (float *)lab_io_dev(&p->io, RESULT);
        if (p->n <= INT_MAX)
            CUDA_CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_bytes, in, result, (int)p->n, s));
        else
            CUDA_CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_bytes, in, result, p->n, s));
        return;
    }
#else
    if (impl == IMPL_CEILING)
        fatal("lab reduction: no CUB ceiling under the CPU emulator");
#endif
    harness_call(impl, s, LAB_ENTRY_reduction, LAB_WIRE_reduction, lab_io_dev(&p->io, RESULT),
                 lab_io_dev(&p->io, IN), p->n, lab_io_dev(&p->io, SCRATCH));
}

/* The result within tol * sum|x| of the double-precision sum, the scratch's guards, the input
 * unchanged (lab_io_verify). */
static void verify(void *vp, verify_result *v)
{
    lab_io_verify(&((problem *)vp)->io, 0, v);
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    if (p->n >= (1ll << 20))
        snprintf(buf, len, "n=%lld (%.0f MiB)", p->n, p->n * 4.0 / (1 << 20));
    else
        snprintf(buf, len, "n=%lld", p->n);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    long long n;
    switch (rng_range(r, 0, 3)) {
    case 0: /* tiny: less than a few warps */
        n = rng_range(r, 1, 100);
        break;
    case 1: /* a power of two, or one off it */
        n = (1ll << rng_range(r, 5, 24)) + rng_range(r, -1, 1);
        break;
    case 2: /* a multiple of a block, a few off it */
        n = 256 * rng_range(r, 1, 40000) + rng_range(r, -3, 3);
        break;
    default:
        n = rng_range(r, 1, 1ll << 24);
    }
    size[0] = n < 1 ? 1 : n;
}

/* As create(): uniform in [-0.5, 1) (lab_io_refresh; the scratch is zeroed before every call),
 * and this round's sum|x| not taken yet. */
static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    lab_io_refresh(&p->io, seed, s);
    p->dev_abs_sum = -1;
}

/* The result and the scratch (its guards only) as lab_io lists them, with the result's bound
 * this round's: each side within tol * sum|x| of the exact sum (see verify), twice that apart.
 * The bound depends on this round's inputs, so sum|x| is taken on the device, once per input
 * (the harness asks up to three times a call; the input may not change, and a call that
 * changes it fails for that). */
static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (!(p->dev_abs_sum >= 0))
        p->dev_abs_sum = dev_abs_sum_f32((const float *)lab_io_dev(&p->io, IN), (size_t)p->n, s);
    const int k = lab_io_outputs(&p->io, out, max);
    out[0].rel = 0; /* the result, listed first */
    out[0].abs = 2 * p->tol * p->dev_abs_sum;
    return k;
}

const lab_info *const harness_lab = &lab_reduction;
const lab_task harness_tasks[] = {
    {.name = "reduction", .unit = "GB/s", .ceiling = "CUB DeviceReduce::Sum", .create = create,
     .destroy = destroy, .prepare = lab_io_hook_prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size,
     .refresh = refresh, .outputs = outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
