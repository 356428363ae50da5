/* gpu_neighbours.h - TRUSTED: which other programs use this machine's GPUs.
 *
 * A GPU that also draws the desktop, or runs someone else's job, makes timing noisier. That
 * costs noise, never a verdict; the report names the programs so that the student knows why
 * (and can close the browser). */
#ifndef GRADER_GPU_NEIGHBOURS_H
#define GRADER_GPU_NEIGHBOURS_H

#include <stddef.h>

/* Programs the driver (nvidia-smi, started directly: no shell) lists on any GPU that are not
 * this process or one of its descendants, nor programs of this workbook's own build (a batch
 * grading other students on the other GPUs), as "PID NAME (compute|graphics)" joined by ", ", into
 * `out` (empty: none, or no nvidia-smi). `also` (may be NULL or empty) is a list from an earlier call: its entries are
 * kept, so that start and end of a lab together name everyone seen. Returns how many. */
int gpu_neighbours(char *out, size_t cap, const char *also);

/* The entries of list `more` not yet in `out` added to it; returns how many `out` holds. */
int gpu_neighbours_merge(char *out, size_t cap, const char *more);

#endif
