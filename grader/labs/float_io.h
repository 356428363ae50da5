/* float_io.h - TRUSTED, the harness's side: the part of a lab's problem (its problem.cu) whose
 * task reads n floats and writes n floats that only select or move its inputs, so that the
 * output is compared bit for bit with the CPU's (labs 02 and 06): the buffers, their making and
 * freeing, the output's poisoning before each call, the copy that is the task's ceiling (the
 * same bytes read and written by the copy engine's best path), the verification, and what
 * refresh(), outputs() and inputs() hand the harness. A lab's problem begins with a float_io,
 * takes the hooks below for those five jobs, and keeps what is its own: the shape, the CPU
 * result, the call, the verification's row length, the sizes. */
#ifndef LABS_FLOAT_IO_H
#define LABS_FLOAT_IO_H

#include "../run/harness.h"
#include "../common/buffer.h"
#include "../common/check.h"
#include "../common/util.h"

#include <stdlib.h>

typedef struct float_io {
    size_t n;           /* floats in, and out */
    float *h_in;        /* host copy of the input */
    float *h_expected;  /* the CPU result (the lab's problem writes it) */
    float *h_got;       /* scratch for the downloaded output */
    dbuf in, out;       /* device buffers, guarded */
} float_io;

/* Device buffers for n floats in and n out; on a correctness check (not harness_device_only)
 * the host copies too, the input drawn uniform in [-1, 1) from seed and uploaded. 1 when the
 * input was drawn (the caller then writes h_expected from h_in), 0 for a speed check's problem
 * (refresh() makes its inputs). */
static inline int float_io_create(float_io *io, size_t n, uint64_t seed)
{
    io->n = n;
    dbuf_alloc(&io->in, n * sizeof(float));
    dbuf_alloc(&io->out, n * sizeof(float));
    if (harness_device_only)
        return 0;
    io->h_in = (float *)xmalloc(n * sizeof(float));
    io->h_expected = (float *)xmalloc(n * sizeof(float));
    io->h_got = (float *)xmalloc(n * sizeof(float));
    fill_uniform_f32(io->h_in, n, rng_derive(seed, 1), -1.f, 1.f);
    dbuf_upload(&io->in, io->h_in, n * sizeof(float));
    return 1;
}

static inline void float_io_free(float_io *io)
{
    dbuf_free(&io->in);
    dbuf_free(&io->out);
    free(io->h_in);
    free(io->h_expected);
    free(io->h_got);
}

/* Before each call: the output poisoned, so that an element the call leaves unwritten shows. */
static inline void float_io_prepare(float_io *io, cudaStream_t s) { dbuf_poison(&io->out, s); }

/* The ceiling: the same bytes read and written, by the copy engine's best path. */
static inline void float_io_ceiling(float_io *io, cudaStream_t s)
{
    CUDA_CHECK(cudaMemcpyAsync(io->out.data, io->in.data, io->n * sizeof(float),
                               cudaMemcpyDeviceToDevice, s));
}

/* The output bit for bit against h_expected (a bad element shown at its row and column, rows
 * `cols` long), and the input unchanged. */
static inline void float_io_verify(float_io *io, size_t cols, verify_result *v)
{
    harness_check_exact(&io->out, io->h_expected, io->n, io->h_got, v);
    v->cols = cols;
    harness_check_input(&io->in, io->h_in, io->n * sizeof(float), v);
}

/* A speed check's input, drawn on the device as float_io_create draws it. */
static inline void float_io_refresh(float_io *io, uint64_t seed, cudaStream_t s)
{
    dev_fill_f32((float *)io->in.data, io->n, rng_derive(seed, 1), -1.f, 1.f, 0.f, s);
}

/* The output (two right answers are equal bit for bit) and the input, as the harness asks. */
static inline int float_io_outputs(float_io *io, lab_output *out)
{
    out[0] = (lab_output){io->out.data, io->n, DEV_F32, 0, 0, &io->out};
    return 1;
}

static inline int float_io_inputs(float_io *io, lab_input *in)
{
    in[0] = (lab_input){io->in.data, io->n * sizeof(float)};
    return 1;
}

/* The hooks of a problem whose struct begins with its float_io (labs 02 and 06 check this with
 * a static_assert): its freeing, the poisoning before each call, a speed check's fresh input,
 * and the output and input the harness reads. The lab's table names them as they are. */
static inline void float_io_hook_destroy(void *vp)
{
    float_io_free((float_io *)vp);
    free(vp);
}

static inline void float_io_hook_prepare(void *vp, int impl, cudaStream_t s)
{
    (void)impl;
    float_io_prepare((float_io *)vp, s);
}

static inline void float_io_hook_refresh(void *vp, uint64_t seed, cudaStream_t s)
{
    float_io_refresh((float_io *)vp, seed, s);
}

static inline int float_io_hook_outputs(void *vp, lab_output *out, int max, cudaStream_t s)
{
    (void)max, (void)s; /* one output; the data only moves, so two right answers are equal */
    return float_io_outputs((float_io *)vp, out);
}

static inline int float_io_hook_inputs(void *vp, lab_input *in, int max)
{
    (void)max;
    return float_io_inputs((float_io *)vp, in);
}

#endif
