/* profile_trusted.h - TRUSTED PROCESS: the harness's mode for make profile (see
 * profile_trusted.cu). */
#ifndef GRADER_PROFILE_TRUSTED_H
#define GRADER_PROFILE_TRUSTED_H

#include "../common/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* make profile: every speed check's problem, each implementation called once in a section of
 * its own (see profile_trusted.cu); with timeline_path, the calls' copies and kernels are
 * recorded there instead of being marked for a profiler. Returns the exit status. */
int profile_run(const char *timeline_path, const device_info *d);

#ifdef __cplusplus
}
#endif
#endif
