#!/usr/bin/env bash
# new-lab.sh - `make new-lab NAME=x`: a new lab's three folders, from a minimal template.
#
#   grader/make/new-lab.sh NAME
#
# Writes, for the next free number NN:
#   grader/labs/NN-NAME/   its table (table.c), contract (NAME.h), problem (problem.cu), shim
#                          (shim_untrusted.cu) and counter table (explain.tsv)
#   labs/NN-NAME/          the skeleton the student edits (NAME.cu) and a lesson stub (README.md)
#   solutions/NN-NAME/     the reference (NAME.cu)
# for a placeholder task that belongs to no lesson, out[i] = 2 * in[i] on n floats, so that the
# lab compiles, builds and grades from the first minute (its reference and its skeleton pass
# every correctness check) while you give it its own task. The problem holds only what is the
# lab's own: its buffers declared as a table (grader/labs/lab_io.h writes their making, poisoning,
# drawing, verification, work and freeing once for every lab), its CPU answer, its call, its
# sizes.
# Every TODO(author) marks what is yours to write. The build finds the lab by its folder: make,
# make grade LAB=NAME, the registry, LAB=, the unit tests. What lists every lab for people
# (README.md's table, the notebook, the skeletons' hashes, a slide deck to write) is derived
# from the folders by make docs-gen, which make new-lab runs next.
set -eu
cd "$(dirname "$0")/../.."
name=${1:-}
case $name in
'' | *[!a-z0-9_]* | [0-9_]*)
    echo "make new-lab NAME=x: a lab's name is lower-case letters, digits and _, starting with a letter (got '$name')" >&2
    exit 2 ;;
esac
for d in grader/labs/[0-9][0-9]-*; do
    [ "${d#*-}" != "$name" ] || { echo "make new-lab: there is a lab called $name already ($d)" >&2; exit 2; }
done
last=$(ls -d grader/labs/[0-9][0-9]-* | sed 's|.*/\([0-9][0-9]\)-.*|\1|' | sort -n | tail -1)
num=$(printf '%02d' $((10#$last + 1)))
folder=$num-$name
upper=$(echo "$name" | tr a-z A-Z)
mkdir -p "grader/labs/$folder" "labs/$folder" "solutions/$folder"

cat >"grader/labs/$folder/table.c" <<EOF
/* table.c - lab $num's checks, as data (see lab.h). TODO(author): the lab's own sizes, text and
 * pass mark; the placeholder task is out[i] = 2 * in[i] on n floats. */
#include "lab.h"
#include "../../../common/sizing.h"

static const lab_check checks[] = {
    /* name                         kind           task  size {n}  points */
    {"n = 1",                       CHECK_VISIBLE, 0,    {1},      0},
    {"n = 33: a warp and one",      CHECK_VISIBLE, 0,    {33},     0},
    {"n = 1021: a prime",           CHECK_VISIBLE, 0,    {1021},   0},
    {"n = 100003: many blocks",     CHECK_VISIBLE, 0,    {100003}, 0},
    {"hidden size 1",               CHECK_HIDDEN,  0,    {0},      0},
    {"hidden size 2",               CHECK_HIDDEN,  0,    {0},      0},
    {"speed: device-sized array",   CHECK_SPEED,   0,    {0},      5},
};

/* The entry points the student file defines, each with its signature exactly as the
 * contract header declares it, and the arguments harness_call packs for it (lab.h). */
static const lab_entry entries[] = {
    {"$name", "float *out, const float *in, int n, cudaStream_t stream", "ppi"},
};

/* The timed problem: in and out each 8x the L2, so that nothing survives in cache between
 * calls (a small array under the CPU emulator). */
static void speed_size(int task, const device_info *d, long long size[LAB_MAX_DIMS])
{
    (void)task;
    size_t bytes = sizing_speed_bytes(d, 8, 2);
    if (d->emulated)
        bytes = (size_t)1 << 20;
    size[0] = (long long)(bytes / sizeof(float));
}

static void footprint(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f)
{
    (void)task;
    const double n = (double)size[0];
    f->work = 2.0 * n * sizeof(float); /* read in, write out */
    f->device_bytes = f->work;
    f->working_set = f->work;
    f->output_bytes = n * sizeof(float);
    f->l2_multiple = 8;
}

const lab_info lab_$name = {
    .number = "$num",
    .name = "$name",
    .title = "$name (TODO(author): what it teaches)",
    .entries = entries,
    .n_entries = (int)(sizeof entries / sizeof entries[0]),
    .threshold = 0.50,
    .hint_correct = "TODO(author): what a wrong answer usually means in this lab.",
    .hint_speed = "TODO(author): what a slow kernel usually lacks in this lab.",
    .timeout_s = 60,
    .checks = checks,
    .n_checks = (int)(sizeof checks / sizeof checks[0]),
    .speed_size = speed_size,
    .count_scale = {0.5}, /* the speed estimate's second count: half the elements (lab.h) */
    .footprint = footprint,
};
EOF

cat >"grader/labs/$folder/$name.h" <<EOF
/* $name.h - lab $num's contract: what labs/$folder/$name.cu must define.
 * Do not edit: the grader compiles your file against this header. */
#ifndef CONTRACT_${upper}_H
#define CONTRACT_${upper}_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO(author): the lab's task. The placeholder:
 *
 *     out[i] = 2 * in[i]    for i < n
 *
 * out, in: n floats of device memory, 256-byte aligned, not overlapping. n >= 1. Launch your
 * kernel(s) on \`stream\` and return without synchronizing: the grader times the stream. */
void $name(float *out, const float *in, int n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
EOF

cat >"grader/labs/$folder/problem.cu" <<EOF
/* problem.cu - lab $num's problem for the harness: what is the lab's own (its buffers, its
 * CPU answer, its call, its sizes); grader/labs/lab_io.h does the rest.
 * TODO(author): the placeholder task is out[i] = 2 * in[i], exact in float. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "$name.h"
#include "../lab_io.h"

#include <stddef.h>
#include <stdio.h>

extern "C" const lab_info lab_$name; /* the table, table.c */

typedef struct problem {
    lab_io io; /* first: the lab_io hooks take the problem as its lab_io */
    int n;
} problem;
static_assert(offsetof(problem, io) == 0, "lab_io_hook_* take the problem for its lab_io");

enum { IN, OUT };
static const lab_io_buf bufs[] = {LAB_IO_IN(1, -1.f, 1.f), LAB_IO_OUT_EXACT};

static void *create(const long long size[LAB_MAX_DIMS], uint64_t seed, const device_info *d)
{
    (void)d;
    problem *p = (problem *)xcalloc(1, sizeof *p);
    lab_io_size(&p->io, &lab_$name, 0, size); /* its work: the table's footprint of its size */
    p->n = (int)size[0];
    const size_t count[] = {(size_t)p->n, (size_t)p->n};
    if (lab_io_create(&p->io, bufs, 2, count, seed)) { /* a correctness check: the CPU's answer */
        const float *in = lab_io_in(&p->io, IN);
        float *expected = lab_io_expected_f(&p->io, OUT);
        for (int i = 0; i < p->n; i++)
            expected[i] = 2.f * in[i];
        lab_io_upload(&p->io);
    }
    return p;
}

static void run(void *vp, int impl, cudaStream_t s)
{
    problem *p = (problem *)vp;
    if (impl == IMPL_CEILING) /* the same bytes read and written by the copy engine */
        lab_io_copy(&p->io, OUT, IN, s);
    else
        harness_call(impl, s, LAB_ENTRY_$name, LAB_WIRE_$name, lab_io_dev(&p->io, OUT),
                     lab_io_dev(&p->io, IN), p->n);
}

static void verify(void *vp, verify_result *v) { lab_io_verify(&((problem *)vp)->io, 0, v); }

static void describe(const void *vp, char *buf, size_t len)
{
    snprintf(buf, len, "n = %d", ((const problem *)vp)->n);
}

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS]) { size[0] = rng_range(r, 1, 200000); }

const lab_info *const harness_lab = &lab_$name;
const lab_task harness_tasks[] = {
    {.name = "$name", .unit = "GB/s", .ceiling = "cudaMemcpy D2D", .create = create,
     .destroy = lab_io_hook_destroy, .prepare = lab_io_hook_prepare, .run = run, .verify = verify,
     .work = lab_io_hook_work, .describe = describe, .hidden_size = hidden_size,
     .refresh = lab_io_hook_refresh, .outputs = lab_io_hook_outputs, .inputs = lab_io_hook_inputs},
};
const int harness_n_tasks = 1;
EOF

cat >"grader/labs/$folder/shim_untrusted.cu" <<EOF
/* shim_untrusted.cu - UNTRUSTED SIDE: lab $num's shim (see grader/worker/shim.h). */
#include "../../worker/shim.h"
#include "lab_manifest.h" /* the contract and the call, from the table */

extern "C" void lab_shim_call(int entry, const shim_arg *a, int n, cudaStream_t s,
                              char *problem, size_t len)
{
    (void)entry, (void)n, (void)problem, (void)len;
    LAB_SHIM_CALL_$name(a, s);
}
EOF

{
    printf '# make explain LAB=%s: what the CPU emulator counts for this lab, per source line\n' "$name"
    printf '# (grader/feedback/explain.sh). counter <tab> reading: "global load" and "global store" count the\n'
    printf '# 32-byte sectors of each warp-wide request; a line "not counted <tab> text" says what the lesson\n'
    printf '# relies on that the emulator does not show. TODO(author): the counters of this lab'"'"'s lesson.\n'
    printf 'global load\t32-byte sectors one warp-wide load touches: 4 for 32 consecutive floats\n'
    printf 'global store\tthe same for stores\n'
    printf 'not counted\tDRAM traffic and throughput: the emulator has no caches and keeps no time (make profile on a GPU)\n'
} >"grader/labs/$folder/explain.tsv"

kernel() { # WHO: the placeholder's kernel and launcher, the same for the skeleton and the reference
    cat <<EOF
#include "$name.h"
#include "check.h" /* CUDA_CHECK_LAUNCH: a bad launch stops with its file and line */

__global__ void ${name}_kernel(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 2.f * in[i];
}

void $name(float *out, const float *in, int n, cudaStream_t stream)
{
    const int block = 256, grid = (n + block - 1) / block < 4096 ? (n + block - 1) / block : 4096;
    ${name}_kernel<<<grid, block, 0, stream>>>(out, in, n);
    CUDA_CHECK_LAUNCH();
}
EOF
}
{
    cat <<EOF
/* Lab $num - $name: YOUR FILE.
 *
 * Task: see the contract, grader/labs/$folder/$name.h, and labs/$folder/README.md.
 * Keep the function \`$name\` with its signature; add kernels and helpers as you like. Grade it
 * with \`make grade LAB=$name\`. TODO(author): the skeleton: correct, and slow for the lesson's
 * reason. */
EOF
    kernel
} >"labs/$folder/$name.cu"
{
    cat <<EOF
/* Lab $num - $name: the reference. TODO(author): the fast version the lesson leads to. */
EOF
    kernel
} >"solutions/$folder/$name.cu"

cat >"labs/$folder/README.md" <<EOF
# Lab $num: $name

TODO(author): the lesson. What the lab teaches, the idea in one paragraph, the skeleton's
limiter and how to measure it, the ladder from skeleton to reference, and what \`make grade
LAB=$name\` requires (the pass mark is the table's threshold, \`grader/labs/$folder/table.c\`).

This lab was made by \`make new-lab NAME=$name\` from the workbook's template: its task is a
placeholder, \`out[i] = 2 * in[i]\`, until you give it its own problem
(\`grader/labs/$folder/problem.cu\`), contract (\`grader/labs/$folder/$name.h\`) and table.
EOF
echo "New lab $folder: grader/labs/$folder/, labs/$folder/, solutions/$folder/ (the template's placeholder task, out[i] = 2 * in[i])."
