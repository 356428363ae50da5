/* profile_trusted.h - TRUSTED PROCESS: the harness's mode for make profile (see
 * profile_trusted.cu). */
#ifndef GRADER_PROFILE_TRUSTED_H
#define GRADER_PROFILE_TRUSTED_H

#include "../../common/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* make profile: every speed check's problem, each implementation called once in a section of
 * its own (see profile_trusted.cu); with timeline_path, the calls' copies and kernels are
 * recorded there instead of being marked for a profiler. With counts_path (make explain, under
 * the CPU emulator, workers isolated), each section is counted by the emulator in the
 * implementation's own worker and written there, renumbered, as data; what the workers print
 * goes to worker_log (NULL: nowhere). With emulator_size, each problem has
 * the size the CPU emulator gives it (make explain's), so that a GPU's counters can be set
 * beside the emulator's for the same call (make profile EXPLAIN_SIZE=1). With second_path
 * (and the counts), every speed problem is counted again at the lab's second size
 * (lab_info.count_scale), its counts written there and its sections announced as `second N`
 * lines, its answer checked as the first's: the speed estimate compares the two sizes' counts
 * (grader/feedback/estimate.awk). Returns the exit status. */
int profile_run(const char *timeline_path, const char *counts_path, const char *second_path,
                const char *worker_log, int emulator_size, const device_info *d);

/* With the counts: the reference's sections kept in files named `reference_prefix`.N.smsS.SIZE
 * (N the speed check's index, S the emulated SM count, SIZE the problem's), each headed by a
 * key that names this harness, the lab's problem object (problem_so), the worker program, the
 * reference's object (device, inode, size, modification and change times) and the problem, and
 * taken from there when the key is the same (make grade's WHERE count and make explain: the
 * reference is counted once, not at every grading). With student_prefix (make grade's WHERE
 * count), the student's sections at the first size are kept the same way, in
 * `student_prefix`.N.smsS.SIZE under a key that names the student's object in place of the
 * reference's, only once its counted call was verified, with the problem's description beside
 * them; where both of a check's are kept, its problem is not made (no worker starts for it).
 * The second size's counts (drawn from the run's secret seed) are never kept. Set before
 * profile_run; NULL prefixes (the default) count every time. The files belong to the grader's
 * build: no worker sees their folders. */
void profile_keep_counts(const char *reference_prefix, const char *student_prefix,
                         const char *worker, const char *problem_so, const char *reference_so,
                         const char *student_so);

/* With the second count: its size drawn from `draw` (make grade's WHERE count: a value derived
 * from the run's secret seed), near the lab's second size rather than at it, so that code keyed
 * on the table's sizes is counted at one it was not keyed on (profile_trusted.cu's second_size).
 * Not called (make explain, the agreement table's counts): the table's second size. */
void profile_second_draw(unsigned long long draw);

#ifdef __cplusplus
}
#endif
#endif
