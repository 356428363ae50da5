/* schedule.c - the order of a batch's work: prepare on the CPUs, grade one student per GPU at a
 * time. See schedule.h. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

int sched_init(sched *s, int n, int gpus, int prep_slots, int ahead)
{
    memset(s, 0, sizeof *s);
    if (n < 0 || gpus < 1 || gpus > SCHED_MAX_GPUS || prep_slots < 1 || ahead < 1)
        return -1;
    s->state = calloc((size_t)n + 1, 1);
    if (!s->state)
        return -1;
    s->n = n;
    s->gpus = gpus;
    s->prep_slots = prep_slots;
    s->ahead = ahead;
    for (int g = 0; g < SCHED_MAX_GPUS; g++)
        s->grading[g] = -1;
    return 0;
}

void sched_free(sched *s)
{
    free(s->state);
    memset(s, 0, sizeof *s);
}

/* Students started preparing whose grade has not started: what waits for a GPU. */
static int waiting(const sched *s) { return s->next_prepare - s->grades_started; }

sched_action sched_next(sched *s)
{
    sched_action a = {SCHED_WAIT, -1, -1};
    /* Grades first: a free GPU takes the first prepared student. The only place a grade
     * starts, and only on a slot that holds none. */
    int ready = -1;
    for (int i = 0; i < s->next_prepare && ready < 0; i++)
        if (s->state[i] == ST_PREPARED)
            ready = i;
    if (ready >= 0) {
        for (int g = 0; g < s->gpus; g++) {
            if (s->grading[g] >= 0)
                continue;
            a.kind = SCHED_GRADE;
            a.student = ready;
            a.gpu = g;
            s->grading[g] = ready;
            s->state[ready] = ST_GRADING;
            s->grades_started++;
            return a;
        }
    }
    /* Then prepares, ahead of the GPUs but not too far (their trees take disk space). */
    if (s->next_prepare < s->n && s->preparing < s->prep_slots && waiting(s) < s->ahead) {
        a.kind = SCHED_PREPARE;
        a.student = s->next_prepare++;
        s->state[a.student] = ST_PREPARING;
        s->preparing++;
        return a;
    }
    if (s->grades_started >= s->n && s->preparing == 0) {
        int busy = 0;
        for (int g = 0; g < s->gpus; g++)
            busy |= s->grading[g] >= 0;
        if (!busy)
            a.kind = SCHED_DONE;
    }
    return a;
}

void sched_prepared(sched *s, int student)
{
    if (student < 0 || student >= s->n || s->state[student] != ST_PREPARING)
        return;
    s->state[student] = ST_PREPARED;
    s->preparing--;
}

void sched_graded(sched *s, int student)
{
    if (student < 0 || student >= s->n || s->state[student] != ST_GRADING)
        return;
    s->state[student] = ST_DONE;
    for (int g = 0; g < s->gpus; g++)
        if (s->grading[g] == student)
            s->grading[g] = -1;
}
