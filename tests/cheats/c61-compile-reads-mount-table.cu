/* Cheat: read the compile sandbox's mount table at compile time: #include
 * "/proc/self/mountinfo" (or /proc/mounts, a link to the same) makes the compiler quote each
 * mount of its view in the build log, with the host's path of every folder bound into it (the
 * checkout, the build, where the grading's output lies). The compile's /proc is closed
 * (Landlock; see grader/sandbox/sandbox.h for a kernel without it): the build fails, quoting nothing.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=/proc/[a-z0-9]+/mountinfo: (No such file|Permission denied)|cannot read /proc/[a-z0-9]+/mountinfo
 * expect: build-log-lacks=relatime|tmpfs|rootfs|overlay
 * expect: tree-unchanged */
#include "coalescing.h"
#include "/proc/self/mountinfo"
