/* hidden_size.h - a hidden correctness size as the CPU emulator runs it.
 *
 * A lab's hidden sizes are drawn from the run's seed for a GPU (lab_task.hidden_size); its
 * visible cases name a smaller size for the emulator where the GPU's would take the CPU
 * minutes (lab_check.emu_size). Under the emulator a hidden size is drawn again, from the same
 * stream (so the seed still decides it), while its work is more than EMU_HIDDEN_SLACK x the
 * largest visible case of its task as the emulator runs it; after EMU_HIDDEN_DRAWS draws, the
 * smallest drawn. Plain C: the harness (grader/harness/harness.cu) and the unit tests call it. */
#ifndef GRADER_HIDDEN_SIZE_H
#define GRADER_HIDDEN_SIZE_H

#include "../lab.h"
#include "../../common/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EMU_HIDDEN_SLACK 2.0
#define EMU_HIDDEN_DRAWS 64

/* A hidden size's draw (lab_task.hidden_size's signature). */
typedef void (*hidden_draw_fn)(rng *r, long long size[LAB_MAX_DIMS]);

/* The most work (the task's footprint: bytes or flops) a hidden case of `task` may have under
 * the emulator; 0 where the task has no visible case (no limit). */
double emu_hidden_cap(const lab_info *lab, int task);

/* size holds check c's first draw (from r); under the emulator, drawn again as above. */
void emu_hidden_size(const lab_info *lab, const lab_check *c, hidden_draw_fn draw, rng *r,
                     long long size[LAB_MAX_DIMS]);

#ifdef __cplusplus
}
#endif

#endif
