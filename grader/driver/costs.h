/* costs.h - TRUSTED, NO GPU: what a student's grading cost the NVIDIA driver, in one line.
 *
 * GRADER_COSTS=1 makes the harness write, after each check of a lab and at the lab's end, the
 * driver calls the lab made and their seconds into the lab's harness log
 * (grader/harness/worker_lifecycle_trusted.cu: "harness: costs after check N: ..."; cumulative
 * over the lab, so a lab's last such line is its whole, its workers' ends included). At the
 * run's end costs_print adds the labs' last lines up, with the harness processes the run
 * started (one, unless one was stopped or the fallback served), and prints
 *   costs a student: <P> CUDA processes, <A> allocations, <M> mappings, <S> s in process
 *   start, exit and mapping (...)
 * the figures the driver serializes host-wide (tests/gpu/scaling.sh keeps the line beside a
 * batch's result line). A measurement for the instructor: no verdict reads it. */
#ifndef GRADER_DRIVER_COSTS_H
#define GRADER_DRIVER_COSTS_H

#include "../lab.h"

/* Under GRADER_COSTS, print the line for the labs graded (their harness logs under `logs`) and
 * the `harnesses` processes that served them; nothing when it is unset or no harness wrote a
 * costs line. */
void costs_print(const char *logs, const lab_info *const *labs, int n, int harnesses);

#endif
