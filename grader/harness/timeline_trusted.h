/* timeline_trusted.h - TRUSTED PROCESS: record the copies and kernels of one call, each
 * bracketed by CUDA events on its own stream (make profile of lab 05; see timeline_trusted.c). */
#ifndef GRADER_TIMELINE_TRUSTED_H
#define GRADER_TIMELINE_TRUSTED_H

#include <stdio.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TL_LANE_H2D, TL_LANE_KERNEL, TL_LANE_D2H, TL_LANE_OTHER };

/* Start recording; times are measured from an event recorded now on s. */
void timeline_begin(cudaStream_t s);
void timeline_end(void);
/* After the call: synchronize and write one line per operation,
 *   section  lane(h2d|kernel|d2h|other)  stream  start_ms  end_ms  bytes
 * returns how many. */
int timeline_write(FILE *f, int section);

#ifdef __cplusplus
}
#endif
#endif
