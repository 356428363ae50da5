/* schedule.h - the order of a batch's work (grade-batch, grader/batch/workers.c): each student
 * is first PREPARED on the CPUs (the submission copied into its own tree, and that tree's
 * objects built and vetted in the compile sandbox, the CPU emulator's copy for the WHERE line
 * too; no student code runs), then GRADED on one GPU (make grade's build, which finds everything
 * built, then the driver, which runs the correctness checks and times the speed checks).
 *
 * The rule that keeps every timing true: a GPU grades one student at a time. A GRADE starts
 * on a GPU only when no other student's GRADE holds that GPU, and grading is the only stage
 * that runs student code on a GPU, so no student is ever timed while another student's code
 * runs there. PREPAREs run beside the grades, up to `ahead` students waiting or being
 * prepared, so that a GPU that finishes a student finds the next one built.
 *
 * Plain C with no process in it: workers.c starts what sched_next says and reports back; the
 * unit tests (tests/batch/test_batch_unit.c) drive it through every completion order. */
#ifndef GRADER_BATCH_SCHEDULE_H
#define GRADER_BATCH_SCHEDULE_H

#define SCHED_MAX_GPUS 64

typedef enum sched_kind {
    SCHED_WAIT,    /* nothing to start now: wait for something running to end */
    SCHED_PREPARE, /* start preparing `student` (CPU only) */
    SCHED_GRADE,   /* start grading `student` on GPU slot `gpu` */
    SCHED_DONE     /* every student graded */
} sched_kind;

typedef struct sched_action {
    sched_kind kind;
    int student; /* index into the queue */
    int gpu;     /* GPU slot (SCHED_GRADE) */
} sched_action;

enum { ST_QUEUED, ST_PREPARING, ST_PREPARED, ST_GRADING, ST_DONE };

typedef struct sched {
    int n;                          /* students, in the order they are graded */
    int gpus;                       /* GPU slots: one grade at a time on each */
    int prep_slots;                 /* prepares at once */
    int ahead;                      /* at most this many students preparing or prepared and
                                       not yet grading */
    unsigned char *state;           /* per student: ST_* */
    int grading[SCHED_MAX_GPUS];    /* per GPU slot: the student it grades, or -1 */
    int next_prepare;               /* the first student not yet started preparing */
    int grades_started;             /* grades started so far */
    int preparing;                  /* prepares running */
} sched;

/* n students, `gpus` GPU slots (1..SCHED_MAX_GPUS), `prep_slots` prepares at once (>= 1) and
 * `ahead` (>= 1) as above. Returns 0, or -1 on bad arguments or no memory. */
int sched_init(sched *s, int n, int gpus, int prep_slots, int ahead);
void sched_free(sched *s);

/* The next thing to start now (call until it says SCHED_WAIT or SCHED_DONE; each action it
 * returns counts as started). A free GPU takes the first student whose prepare has ended;
 * prepares start in queue order. */
sched_action sched_next(sched *s);

/* A prepare ended (whatever its outcome: a failed build is graded as such by make grade's). */
void sched_prepared(sched *s, int student);

/* A grade ended: its GPU slot is free. */
void sched_graded(sched *s, int student);

#endif
