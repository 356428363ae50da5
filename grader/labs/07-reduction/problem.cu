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
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "reduction.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/parallel.h"
#include "../common/util.h"

#if !defined(CUDA_EMU)
#include <cub/device/device_reduce.cuh>
#endif

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_reduction; /* the table, table.c */

typedef struct problem {
    long long n;         /* elements */
    float *h_in;         /* host copy of the input */
    double expected;     /* sum of the inputs in double precision */
    double abs_sum;      /* sum of |input|: the scale of the rounding error */
    double tol;          /* allowed |error| / abs_sum (see the bound above) */
    float h_got;         /* the downloaded result */
    size_t scratch_bytes;/* reduction_scratch_floats(n) floats */
    dbuf in, result, scratch; /* device buffers, guarded */
    void *cub_temp;      /* CUB's temporary storage for the ceiling (not in emulation) */
    size_t cub_bytes;    /* its size */
    double dev_abs_sum;  /* speed checks: sum of |input| of this round's input, taken on the
                            device once per refresh (outputs()), or < 0 until then */
} problem;

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
    p->dev_abs_sum = -1;
    p->n = size[0];
    const size_t bytes = (size_t)p->n * sizeof(float);
    p->tol = 4.0 * 0x1p-24 * (ceil_log2(p->n) + 2);
    p->scratch_bytes = (size_t)reduction_scratch_floats(p->n) * sizeof(float);
    dbuf_alloc(&p->in, bytes);
    dbuf_alloc(&p->result, sizeof(float));
    dbuf_alloc(&p->scratch, p->scratch_bytes);
#if !defined(CUDA_EMU)
    /* CUB's temporary storage, sized by CUB itself and allocated here, outside any timing
     * (a speed check's problem needs it too: the ceiling is timed on it). */
    if (p->n <= INT_MAX)
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, (const float *)p->in.data,
                                          (float *)p->result.data, (int)p->n));
    else
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, p->cub_bytes, (const float *)p->in.data,
                                          (float *)p->result.data, p->n));
    CUDA_CHECK(cudaMalloc(&p->cub_temp, p->cub_bytes ? p->cub_bytes : 1));
#endif
    if (harness_device_only) /* a speed check's problem: refresh() makes the inputs */
        return p;
    p->h_in = (float *)xmalloc(bytes);
    /* The input and its sums, chunk by chunk on the CPU's cores (see input_chunk); the chunks'
     * sums are added in order, so the answer is the same whatever the number of cores. */
    const size_t chunks = ((size_t)p->n + INPUT_CHUNK - 1) / INPUT_CHUNK;
    input_job job = {p->h_in, (size_t)p->n, rng_derive(seed, 1),
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
    p->expected = sum;
    p->abs_sum = abs_sum;
    dbuf_upload(&p->in, p->h_in, bytes);
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->result);
    dbuf_free(&p->scratch);
    if (p->cub_temp)
        CUDA_CHECK(cudaFree(p->cub_temp));
    free(p->h_in);
    free(p);
}

static void prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    problem *p = (problem *)vp;
    dbuf_poison(&p->result, s);
    /* The contract promises zeroed scratch (a one-pass kernel keeps a counter there). */
    CUDA_CHECK(cudaMemsetAsync(p->scratch.data, 0, p->scratch_bytes, s));
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
#if !defined(CUDA_EMU)
    if (impl == IMPL_CEILING) { /* the library's best: CUB, the same bytes read */
        const float *in = (const float *)p->in.data;
        float *result = (float *)p->result.data;
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
    harness_call(impl, s, LAB_ENTRY_reduction, LAB_WIRE_reduction, p->result.data, p->in.data, p->n, p->scratch.data);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    harness_check_close(&p->result, &p->expected, &p->abs_sum, 1, p->tol, 0.0, &p->h_got, v);
    long long at = 0;
    if (!dbuf_guards_intact(&p->scratch, &at))
        snprintf(v->problem, sizeof v->problem,
                 "wrote outside the scratch buffer (byte %lld of %zu): it holds "
                 "reduction_scratch_floats(n) floats",
                 at, p->scratch_bytes);
    harness_check_input(&p->in, p->h_in, (size_t)p->n * sizeof(float), v);
}

static double work(const void *vp)
{
    const long long size[LAB_MAX_DIMS] = {((const problem *)vp)->n};
    lab_footprint f;
    lab_reduction.footprint(0, size, &f);
    return f.work;
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

static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    /* as create(): uniform in [-0.5, 1). The scratch is cleared in prepare(), before every
     * call. */
    dev_fill_f32((float *)p->in.data, (size_t)p->n, rng_derive(seed, 1), -0.5f, 1.0f, 0.f, s);
    p->dev_abs_sum = -1;
}

static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max;
    problem *p = (problem *)vp;
    /* each side within tol * sum|x| of the exact sum (see verify): twice that apart. The
     * bound depends on this round's inputs, so sum|x| is taken on the device, once per
     * input (the harness asks up to three times a call; the input may not change, and a
     * call that changes it fails for that). */
    if (!(p->dev_abs_sum >= 0))
        p->dev_abs_sum = dev_abs_sum_f32((const float *)p->in.data, (size_t)p->n, s);
    out[0] = (lab_output){p->result.data, 1, DEV_F32, 0, 2 * p->tol * p->dev_abs_sum, &p->result};
    out[1] = (lab_output){p->scratch.data, 0, DEV_F32, 0, 0, &p->scratch}; /* guards only */
    return 2;
}

static int inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    problem *p = (problem *)vp;
    in[0] = (lab_input){p->in.data, (size_t)p->n * sizeof(float)}; /* not the scratch */
    return 1;
}

const lab_info *const harness_lab = &lab_reduction;
const lab_task harness_tasks[] = {
    {.name = "reduction", .unit = "GB/s", .ceiling = "CUB DeviceReduce::Sum", .create = create,
     .destroy = destroy, .prepare = prepare, .run = run, .verify = verify, .work = work,
     .describe = describe, .hidden_size = hidden_size,
     .refresh = refresh, .outputs = outputs, .inputs = inputs},
};
const int harness_n_tasks = 1;
