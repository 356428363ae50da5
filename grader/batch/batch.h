/* batch.h - what the files of grade-batch share (grader/batch/README.md): the settings it was
 * started with, the state of the run fixed before any student is looked at, a student as the
 * scan found it, and each file's calls into the others. Trusted, no GPU; included by the
 * batch's own files only.
 *
 *   batch.c      the program: settings, labs, course config, seed, lock, output folder, main
 *   files.c      errors, generated folders made and removed, files written atomically
 *   scan.c       the submissions: each one's lab files found or refused, the workbook's own
 *                skeletons for the labs not handed in, each student's fingerprint
 *   workers.c    the GPU slots, what every student shares built once, and the loop that starts
 *                each student's stages in the order schedule.h decides
 *   grade_one.c  one student: prepared (its tree and objects), then graded (make grade's build, then the driver)
 *   gradebook.c  each student's record and exports, and the gradebook from the records */
#ifndef GRADER_BATCH_BATCH_H
#define GRADER_BATCH_BATCH_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "../../common/json_read.h"
#include "../report/exports.h"

#define FILE_CAP (1 << 20)          /* largest lab file accepted, bytes */
#define MAX_ENTRIES 10000           /* files and folders walked in one submission */
#define MAX_DEPTH 16                /* folder depth walked in one submission */
#define REPORT_CAP (256 << 10)      /* bytes of the student's report kept */
#define RESULTS_CAP (256u << 20)    /* largest results.json read */
#define MAX_WORKERS 64

/* ------------------------------------------------------------------------------------------ */
/* The settings and the run's shared state (batch.c)                                          */

typedef struct batch_settings {
    const char *cmd;                  /* grade, merge, prepare or export */
    const char *submissions;          /* SUBMISSIONS: one folder per student */
    const char *out;                  /* OUT: where everything goes (default build/batch) */
    const char *lab;                  /* LAB as given */
    const char *seed;                 /* SEED as given, or NULL */
    const char *gpus;                 /* GPUS as given, or NULL */
    const char *build;                /* BUILD passed on to make grade, or NULL */
    int jobs;                         /* JOBS: workers when GPUS is not given (default 1) */
    const char *results, *name, *dest; /* export: one results.json, the name, where to */
    int emu;                          /* EMU=1 */
    int wait;                         /* WAIT=1: wait for the lock instead of failing */
    int allow_unisolated;             /* ALLOW_UNISOLATED=1: grade where student code cannot be
                                         isolated (every report then says it is not
                                         tamper-proof); otherwise such a run stops */
    int task, tasks;                  /* TASK/TASKS: grade only index % tasks == task */
} batch_settings;


/* The state every part of the run shares, fixed before any student is looked at (batch.c,
 * choose_workers, load_skeletons); read-only once the first student is scanned. */
typedef struct batch_state {
    char root[PATH_MAX];           /* the checkout (the current directory) */
    char out[PATH_MAX];            /* OUT, absolute */
    int selected[ROW_MAX_LABS];    /* labs graded this run, registry order */
    int lab_max[ROW_MAX_LABS];     /* their points possible under the course config */
    char labs_arg[1024];           /* "coalescing,banks": LAB= for make grade */
    char seed[32];                 /* "0x..." */
    char *config_text;             /* course config file bytes + GRADER_SET, for fingerprints */
    size_t config_len;
    char *gpu[MAX_WORKERS];        /* CUDA_VISIBLE_DEVICES per worker; NULL: leave unset */
    int workers;
    int subs_fd;                   /* SUBMISSIONS, open */
    char *skeleton[ROW_MAX_LABS];  /* each lab's skeleton, the workbook's own (never the
                                      checkout's edits: pristine_skeletons.sh) */
    size_t skeleton_size[ROW_MAX_LABS];
} batch_state;

/* ------------------------------------------------------------------------------------------ */
/* Errors and files (files.c)                                                                 */

/* "grade-batch: error: ..." on stderr, then exit status 2. */
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);
char *xstrdup(const char *s);                   /* strdup, or die */
void show_name(FILE *f, const char *name);      /* a name as the terminal may show it */
void mkdirs(const char *path);                  /* mkdir -p for generated paths, or die */
void rm_tree(const char *path);                 /* rm -rf, never following a link */

/* A file written whole or not at all: atomic_open gives a temporary file beside path (removed
 * by a stop: grader/wire/stop.h), atomic_commit syncs it and renames it over path. */
typedef struct atomic_file {
    FILE *f;
    char tmp[PATH_MAX + 32];
    char path[PATH_MAX];
} atomic_file;

FILE *atomic_open(atomic_file *a, const char *path);
void atomic_commit(atomic_file *a);
void write_whole(const char *path, const void *data, size_t n);
/* A trusted file read whole, NUL-terminated (its length in *len if len); NULL if absent. */
char *read_whole(const char *path, size_t *len);

/* ------------------------------------------------------------------------------------------ */
/* Students (scan.c)                                                                          */

/* One of a student's helper files (grader/sandbox/helper_files.h), copied beside their lab
 * file in the tree graded. */
typedef struct helper {
    char *rel;           /* its path inside the lab's folder */
    char *bytes;
    size_t size;
    struct helper *next;
} helper;

typedef struct student {
    char *name;                    /* the folder's name, exact bytes */
    char id[40];                   /* "s" + hash of the name: the safe folder name */
    char fingerprint[40];          /* what the grade depends on; see scan.c's opening */
    char refusal[1024];            /* why it is not graded; empty when it is */
    char *file[ROW_MAX_LABS];      /* every lab's file as it will be graded (theirs or skeleton) */
    size_t size[ROW_MAX_LABS];
    int theirs[ROW_MAX_LABS];      /* 1 where file[k] came from the submission */
    int absent[ROW_MAX_LABS];      /* why lab k has no work of theirs (ABSENT_*), or 0 */
    char absent_detail[ROW_MAX_LABS][240]; /* what the report adds (grade_row.absent_detail),
                                      shown as data (text_visible) */
    helper *helpers[ROW_MAX_LABS]; /* the helper files lab k's file includes, graded with it */
    char **held;                   /* every regular file of the submission, its path inside it */
    int n_held;
} student;

/* batch.skeleton: each lab's skeleton as the workbook recorded it. Dies when it cannot. */
void load_skeletons(batch_state *b);
/* Every entry of SUBMISSIONS=, sorted by bytes, each scanned (refused with its reason, or its
 * files loaded) and fingerprinted: *n of them. */
student *scan_students(const batch_settings *o, const batch_state *b, int *n);
void free_student(student *s);

/* ------------------------------------------------------------------------------------------ */
/* The workers and the schedule (workers.c)                                                   */

/* batch.workers and batch.gpu from GPUS= or JOBS=. Dies on a bad setting. */
void choose_workers(const batch_settings *o, batch_state *b);
/* Every student of this task not graded yet, graded: returns how many could not be. */
int grade_all(const batch_settings *o, const batch_state *b, student *list, int n);

/* ------------------------------------------------------------------------------------------ */
/* One student (grade_one.c): each is a forked process's whole life, and never returns        */

void preparer(const batch_settings *o, const batch_state *b, const student *s);
void keeper(const batch_settings *o, const batch_state *b, const student *s, const char *gpu);

/* ------------------------------------------------------------------------------------------ */
/* Records and exports (gradebook.c)                                                          */

void student_dir(const batch_state *b, const student *s, char *buf, size_t len);   /* OUT/students/<id> */
void init_row(const batch_state *b, grade_row *row, const student *s);              /* the row before any result */
void write_record(const batch_state *b, const student *s, const grade_row *row);
int read_record(const batch_state *b, const student *s, grade_row *row);
void write_exports(const char *dir, const grade_row *row, const jv *results);
int merge(const batch_state *b, student *list, int n);
int export_one(const batch_settings *o);

#endif
