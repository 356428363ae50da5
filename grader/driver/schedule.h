/* schedule.h - TRUSTED, NO GPU: when a speed check may time (private to grader/driver/): in a
 * batch on several GPUs of one host, the host-link lock. */
#ifndef GRADER_RUN_SCHEDULE_H
#define GRADER_RUN_SCHEDULE_H

#include "harnesses.h"

/* In a batch on a GPU host (grade-batch sets GRADE_HOST_LINK_LOCK, a file of its
 * output folder, which no student's code sees), a lab whose timed calls cross the host link to
 * the GPU (lab_info.host_link: lab 05) times its speed checks one GPU at a time: the GPUs share
 * that link and host memory, and lab 05 graded on two GPUs at once gave self-check ratios of
 * 0.976-1.029 where one at a time gave 0.994-1.001 (tests/gpu/results/h100x2-multi-gpu-batch.txt).
 * The batch's builds pause while it is held (grader/batch/grade_one.c, prepare_wait).
 * Taken before the check's time limit starts, so the wait costs it no time; a stop ends the
 * run in its handler, waiting or not (stop.c). Returns the lock's descriptor, or -1: none. */
int host_link_lock(const options *o, const lab_info *lab);

#endif
