/* problem.cu - lab 06's problem for the harness: inputs, calls, verification, sizes.
 *
 * out (cols x rows) = transpose of in (rows x cols), row-major. The data only moves, so the
 * output is compared bit for bit with the CPU's transpose. The ceiling is cudaMemcpy of the
 * same number of bytes, device to device: a transpose reads and writes every byte once, as a
 * copy does, and cannot do better than the copy engine's best path. The copy runs here, in
 * the harness (trusted code); the student's file and the reference run in worker processes,
 * behind grader/labs/06-transpose/shim_untrusted.cu. */
#include "../../run/harness.h"
#include "lab_manifest.h"
#include "transpose.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const lab_info lab_transpose; /* the table, table.c */

typedef struct problem {
    int rows, cols;     /* shape of the input; the output is cols x rows */
    size_t n;           /* rows * cols */
    float *h_in;        /* host copy of the input */
    float *h_expected;  /* CPU transpose */
    float *h_got;       /* scratch for the downloaded output */
    dbuf in, out;       /* device buffers, guarded */
} problem;

/* ------------------------------------------------------------------------------------------ */
/* The task                                                                                     */

/* Transpose in 64 x 64 blocks, so that both sides stay in the CPU's caches. */
static void cpu_transpose(float *out, const float *in, int rows, int cols)
{
    for (int rb = 0; rb < rows; rb += 64)
        for (int cb = 0; cb < cols; cb += 64) {
            const int re = rb + 64 < rows ? rb + 64 : rows, ce = cb + 64 < cols ? cb + 64 : cols;
            for (int r = rb; r < re; r++)
                for (int c = cb; c < ce; c++)
                    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
        }
}

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    p->rows = (int)size[0];
    p->cols = (int)size[1];
    p->n = (size_t)p->rows * p->cols;
    dbuf_alloc(&p->in, p->n * sizeof(float));
    dbuf_alloc(&p->out, p->n * sizeof(float));
    if (harness_device_only) /* a speed check's problem: refresh() makes the inputs */
        return p;
    p->h_in = (float *)xmalloc(p->n * sizeof(float));
    p->h_expected = (float *)xmalloc(p->n * sizeof(float));
    p->h_got = (float *)xmalloc(p->n * sizeof(float));
    fill_uniform_f32(p->h_in, p->n, rng_derive(seed, 1), -1.f, 1.f);
    cpu_transpose(p->h_expected, p->h_in, p->rows, p->cols);
    dbuf_upload(&p->in, p->h_in, p->n * sizeof(float));
    return p;
}

static void destroy(void *vp)
{
    problem *p = (problem *)vp;
    dbuf_free(&p->in);
    dbuf_free(&p->out);
    free(p->h_in);
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
        harness_call(impl, s, LAB_ENTRY_transpose, LAB_WIRE_transpose, p->out.data, p->in.data, p->rows, p->cols);
}

static void verify(void *vp, verify_result *v)
{
    problem *p = (problem *)vp;
    harness_check_exact(&p->out, p->h_expected, p->n, p->h_got, v);
    v->cols = (size_t)p->rows; /* a row of the output is `rows` long */
    harness_check_input(&p->in, p->h_in, p->n * sizeof(float), v);
}

static double work(const void *vp)
{
    const problem *p = (const problem *)vp;
    const long long size[LAB_MAX_DIMS] = {p->rows, p->cols};
    lab_footprint f;
    lab_transpose.footprint(0, size, &f);
    return f.work;
}

static void describe(const void *vp, char *buf, size_t len)
{
    const problem *p = (const problem *)vp;
    snprintf(buf, len, "%d x %d", p->rows, p->cols);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 1200);
    size[1] = rng_range(r, 1, 1200);
    switch (rng_range(r, 0, 3)) {
    case 0: /* both multiples of 4 (of 64 too, one draw in 16): the paths that use 16-byte accesses */
        size[0] = 4 * rng_range(r, 1, 300);
        size[1] = 4 * rng_range(r, 1, 300);
        break;
    case 1: /* a tile's edge plus or minus one */
        size[0] = 32 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
        break;
    default: /* as drawn */
        break;
    }
}

static void refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    problem *p = (problem *)vp;
    dev_fill_f32((float *)p->in.data, p->n, rng_derive(seed, 1), -1.f, 1.f, 0.f, s);
}

static int outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max, (void)s;
    problem *p = (problem *)vp;
    /* the data only moves: two right answers are equal bit for bit */
    out[0] = (lab_output){p->out.data, p->n, DEV_F32, 0, 0, &p->out};
    return 1;
}

static int inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    problem *p = (problem *)vp;
    in[0] = (lab_input){p->in.data, p->n * sizeof(float)};
    return 1;
}

const lab_info *const harness_lab = &lab_transpose;
const lab_task harness_tasks[] = {
    {.name = "transpose", .unit = "GB/s", .ceiling = "cudaMemcpy D2D", .create = create,
     .destroy = destroy, .prepare = prepare, .run = run, .verify = verify, .work = work,
     .describe = describe, .hidden_size = hidden_size,
     .refresh = refresh, .outputs = outputs, .inputs = inputs},
};
const int harness_n_tasks = 1;
