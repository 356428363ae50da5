/* lab.h - what a lab is, as data: its manifest (entry points, what its student file may not
 * use), its checks, points, pass mark and hints.
 *
 * Each lab's table lives in grader/labs/NN-name/table.c (plain C, no CUDA) and is compiled
 * into the trusted driver, which decides verdicts and scores from it, into the lab's harness,
 * which runs the cases it names, and into lab-manifest, which writes what the build derives
 * from it (grader/make/lab_manifest.c). One row per check; the driver walks the rows in order, and
 * the speed checks come last (a speed check counts only once every correctness check passed). */
#ifndef GRADER_LAB_H
#define GRADER_LAB_H

#include "../common/device_info.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_MAX_DIMS 3

typedef enum check_kind {
    CHECK_VISIBLE, /* fixed size from the table: the same every run */
    CHECK_HIDDEN,  /* size and inputs drawn from the run's secret seed */
    CHECK_SPEED    /* device-sized problem, timed against the reference; needs all others OK */
} check_kind;

typedef struct lab_check {
    const char *name;             /* shown on the grade line: "n = 33 (a warp and a bit)" */
    check_kind kind;              /* visible, hidden or speed */
    int task;                     /* which of the lab's tasks (entry points) it exercises */
    long long size[LAB_MAX_DIMS]; /* problem size of a visible check; a speed check's row, which
                                     the lab's speed_size makes the timed problem ({0} where it
                                     needs none); a hidden check's start (its draw replaces it) */
    int points;                   /* earned only when the check passes: 0 for a correctness
                                     check (the gate: every one must pass before speed counts,
                                     and a course config's correct_points may give them some),
                                     the lab's points for a speed check (tests/test_score.c) */
    long long emu_size[LAB_MAX_DIMS]; /* the size under the CPU emulator, where `size` would
                                         take it minutes (the same awkwardness, smaller); {0}:
                                         `size` everywhere */
} lab_check;

/* What one call of a task on a given size asks of the device: the numbers a timed problem is
 * sized, budgeted and reported by. */
typedef struct lab_footprint {
    double work;          /* bytes (GB/s tasks), flops (GFLOP/s) or samples one call must move
                             or compute: what the report's rate is made of */
    double device_bytes;  /* device memory one problem holds: inputs, outputs, scratch */
    double working_set;   /* bytes one call touches in device memory */
    double output_bytes;  /* what the harness keeps a copy of, per problem, to compare the
                             student's timed outputs with the reference's */
    double host_bytes;    /* pinned host memory one problem holds (lab 05's arrays), which the
                             CPU fills and checks every timed round */
    int l2_multiple;      /* the lab's promise: working_set >= l2_multiple x L2 on every GPU
                             whose memory budget allows it (0: none, the task is sized for time) */
} lab_footprint;

/* An entry point: a function the student's file defines and the harness calls. */
typedef struct lab_entry {
    const char *symbol;    /* "transpose": the name the student's file must define */
    const char *signature; /* its parameters exactly as the contract header declares them (it
                              returns void): "float *out, const float *in, int rows, int cols,
                              cudaStream_t stream". The build checks the header against it. */
    const char *wire;      /* what harness_call packs for it (harness.h), one code per
                              argument: the signature's parameters in order, the stream left
                              out, then the arguments of any parameter the shim makes itself
                              (lab 05's kernel). The build checks it against the signature. */
} lab_entry;

/* A lab's manifest and table. Its name, number, entry points and what its student file may
 * not use are written here and nowhere else: the build derives the rest (grader/make/lab_manifest.c). */
typedef struct lab_info {
    const char *number;       /* "01": order in the workbook, also accepted by LAB= */
    const char *name;         /* "coalescing": LAB=, file, directory and config key */
    const char *title;        /* "Global-memory coalescing" */
    const lab_entry *entries; /* the entry points, in the shim's order (harness_call's index) */
    int n_entries;            /* how many (at least 1) */
    const char *forbid_libraries; /* the libraries the student's object may not use, as
                                     grader/make/vet.sh names them ("cub thrust cublas"): by what
                                     it calls, resolves or holds of them, never by the names
                                     it defines; NULL: none */
    const char *forbid_about; /* what the lab is about instead, for the rejection: "lab
                                 reduction is about <this>, so CUB may not be used" */
    const char *forbid_ptx;   /* extended regex over the instructions of its PTX that rejects
                                 it (grader/make/vet.sh); NULL: none */
    const char *forbid_sass;  /* the same over its machine code (cuobjdump); NULL: none */
    double threshold;         /* default pass mark: reference time / student time */
    const char *hint_correct; /* shown under a failed correctness check */
    const char *hint_speed;   /* shown under a failed speed check */
    int timeout_s;            /* wall-clock limit for one check in the harness on a GPU */
    const lab_check *checks;  /* the table */
    int n_checks;             /* rows in it */
    int host_link;            /* 1: its timed calls move data over the host's link to the GPU
                                 (lab 05), which every GPU of a host shares: in a batch
                                 (GRADE_HOST_LINK_LOCK) its speed checks are timed one at a
                                 time across the GPUs with no build beside them, and its WHERE
                                 count is paused while they time (grader/driver/driver.c) */
    double slowdown_noise;    /* how much slower the reference can run beside an honest
                                 student's process than alone, as a fraction (0.04: 4%), from
                                 tests/gpu/noise.sh on an H200; 0: LAB_SLOWDOWN_NOISE_DEFAULT.
                                 A slowdown is held against a student only when every one of
                                 repeated measurements is beyond it (grader/decide/verdict.c) */
    /* The timed problem of `task` on device d: pure arithmetic on d, so that the harness (with
     * the GPU in hand) and the unit tests (with every GPU of common/gpu_profiles.h) run the
     * same code. size arrives holding the speed row's size and leaves holding the problem's. */
    void (*speed_size)(int task, const device_info *d, long long size[LAB_MAX_DIMS]);
    /* The speed estimate's second size (no GPU: grader/feedback/estimate.awk): each dimension
     * of the emulated speed problem (speed_size with d->emulated) times this, rounded down, at
     * least 1; 0 keeps a dimension as it is, and a table that sets none halves the first. The
     * estimate counts both sizes and gives none where the code's counts, each against the
     * reference's at that size, differ between them (it behaves otherwise at another size). */
    double count_scale[LAB_MAX_DIMS];
    /* What one call of `task` on `size` asks of the device (the problem code's work() is
     * this, and the tests hold speed sizes to it). */
    void (*footprint)(int task, const long long size[LAB_MAX_DIMS], lab_footprint *f);
} lab_info;

/* The size the table gives check c: under the CPU emulator its emu_size where it has one (the
 * same case at a size the CPU does in seconds), else its size. The harness (the size a check
 * runs at), the emulator's cap on hidden sizes and the name a check is shown by read it here. */
static inline const long long *lab_check_size(const lab_check *c, int emulated)
{
    return emulated && c->emu_size[0] ? c->emu_size : c->size;
}

/* Speed check c's timed problem on device d: its row's size, made the problem's by the lab's
 * speed_size. The one place it is made: the harness (what it times, and the host memory it
 * reserves ahead for it), make profile and make explain, the grading-time model and the
 * tests of every GPU's sizes all read it here. */
static inline void lab_speed_problem_size(const lab_info *lab, const lab_check *c,
                                          const device_info *d, long long size[LAB_MAX_DIMS])
{
    const long long *row = lab_check_size(c, d->emulated);
    for (int i = 0; i < LAB_MAX_DIMS; i++)
        size[i] = row[i];
    lab->speed_size(c->task, d, size);
}

/* The slowdown bound of a lab whose table gives none. */
#define LAB_SLOWDOWN_NOISE_DEFAULT 0.10

/* The slowdown bound in force for `lab` (harness and driver both). */
static inline double lab_slowdown_noise(const lab_info *lab)
{
    return lab->slowdown_noise > 0 ? lab->slowdown_noise : LAB_SLOWDOWN_NOISE_DEFAULT;
}

/* Every lab compiled into this program, in workbook order (generated by the Makefile). */
extern const lab_info *const all_labs[];
extern const int n_all_labs;

#ifdef __cplusplus
}
#endif
#endif
