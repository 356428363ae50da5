/* problem.cu - lab 01's problem for the harness: inputs, calls, verification, sizes.
 *
 * out[r][c] = in[r][c] * scale[r] + bias[r] on a row-major matrix. Verified against a
 * double-precision CPU result with a bound of about one float rounding (fused or unfused
 * multiply-add both pass; a wrong element is off by far more). */
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "coalescing.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_coalescing; /* the table, table.c */

typedef struct problem {
    int rows, cols;     /* matrix shape */
    size_t n;           /* rows * cols */
    float *h_in;        /* host copy of the input matrix */
    float *h_scale;     /* host copy of the per-row gains */
    float *h_bias;      /* host copy of the per-row offsets */
    double *h_expected; /* CPU result in double precision */
    float *h_got;       /* scratch for the downloaded output */
    dbuf in, scale, bias, out; /* device buffers, guarded */
} problem;

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    p->n = (size_t)p->rows * p->cols;
    dbuf_alloc(&p->in, p->n * sizeof(float));
    dbuf_alloc(&p->scale, p->rows * sizeof(float));
    dbuf_alloc(&p->bias, p->rows * sizeof(float));
    dbuf_alloc(&p->out, p->n * sizeof(float));
    if (harness_device_only) /* a speed check's problem: refresh() makes the inputs */
        return p;
    p->h_in = (float *)xmalloc(p->n * sizeof(float));
    p->h_scale = (float *)xmalloc(p->rows * sizeof(float));
    p->h_bias = (float *)xmalloc(p->rows * sizeof(float));
    p->h_expected = (double *)xmalloc(p->n * sizeof(double));
    p->h_got = (float *)xmalloc(p->n * sizeof(float));
    fill_uniform_f32(p->h_in, p->n, rng_derive(seed, 1), -1.f, 1.f);
    fill_uniform_f32(p->h_scale, p->rows, rng_derive(seed, 2), 0.5f, 2.f);
    fill_uniform_f32(p->h_bias, p->rows, rng_derive(seed, 3), -1.f, 1.f);
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            const size_t i = (size_t)r * p->cols + c;
            p->h_expected[i] = (double)p->h_in[i] * p->h_scale[r] + p->h_bias[r];
        }
    dbuf_upload(&p->in, p->h_in, p->n * sizeof(float));
    dbuf_upload(&p->scale, p->h_scale, p->rows * sizeof(float));
    dbuf_upload(&p->bias, p->h_bias, p->rows * sizeof(float));
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->scale);
    dbuf_free(&p->bias);
    dbuf_free(&p->out);
    free(p->h_in);
    free(p->h_scale);
    free(p->h_bias);
    free(p->h_expected);
    free(p->h_got);
    free(p);
}

static void prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    dbuf_poison(&((problem *)vp)->out, s);
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) /* the same bytes read and written, by the copy engine's best path */
        CUDA_CHECK(cudaMemcpyAsync(p->out.data, p->in.data, p->n * sizeof(float),
                                   cudaMemcpyDeviceToDevice, s));
    else
        harness_call(impl, s, LAB_ENTRY_coalescing, LAB_WIRE_coalescing, p->out.data, p->in.data, p->scale.data, p->bias.data,
                     p->rows, p->cols);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    /* |error| <= 2^-23 |expected| + 1e-6: one rounding of a product below 2 plus a sum below 3 */
    harness_check_close(&p->out, p->h_expected, NULL, p->n, 0x1p-23, 1e-6, p->h_got, v);
    v->cols = (size_t)p->cols;
    harness_check_input(&p->in, p->h_in, p->n * sizeof(float), v);
    harness_check_input(&p->scale, p->h_scale, p->rows * sizeof(float), v);
    harness_check_input(&p->bias, p->h_bias, p->rows * sizeof(float), v);
}

static double work(const void *vp)
{
    const problem *p = (const problem *)vp;
    const long long size[LAB_MAX_DIMS] = {p->rows, p->cols};
    lab_footprint f;
    lab_coalescing.footprint(0, size, &f);
    return f.work;
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d x %d", p->rows, p->cols);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 600);
    size[1] = rng_range(r, 1, 1500);
    if (rng_range(r, 0, 1)) /* one warp's worth plus or minus one */
        size[1] = 32 * rng_range(r, 1, 40) + (rng_range(r, 0, 1) ? 1 : -1);
}

static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    dev_fill_f32((float *)p->in.data, p->n, rng_derive(seed, 1), -1.f, 1.f, 0.f, s);
    dev_fill_f32((float *)p->scale.data, p->rows, rng_derive(seed, 2), 0.5f, 2.f, 0.f, s);
    dev_fill_f32((float *)p->bias.data, p->rows, rng_derive(seed, 3), -1.f, 1.f, 0.f, s);
}

static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max, (void)s;
    problem *p = (problem *)vp;
    /* each side within one rounding of the exact value (see verify): twice that apart */
    out[0] = (lab_output){p->out.data, p->n, DEV_F32, 0x1p-22, 2e-6, &p->out};
    return 1;
}

static int inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    problem *p = (problem *)vp;
    in[0] = (lab_input){p->in.data, p->n * sizeof(float)};
    in[1] = (lab_input){p->scale.data, p->rows * sizeof(float)};
    in[2] = (lab_input){p->bias.data, p->rows * sizeof(float)};
    return 3;
}

const lab_info *const harness_lab = &lab_coalescing;
const lab_task harness_tasks[] = {
    {.name = "coalescing", .unit = "GB/s", .ceiling = "cudaMemcpy D2D", .create = create,
     .destroy = destroy, .prepare = prepare, .run = run, .verify = verify, .work = work,
     .describe = describe, .hidden_size = hidden_size,
     .refresh = refresh, .outputs = outputs, .inputs = inputs},
};
const int harness_n_tasks = 1;
