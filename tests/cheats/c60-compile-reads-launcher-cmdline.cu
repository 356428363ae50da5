/* Cheat: read the command line of the process that started the compile's sandbox, at compile
 * time: #include "/proc/1/cmdline" makes the compiler quote its bytes in the build log the
 * student reads (the launcher's arguments: the work folder, the checkout's paths, the hidden
 * folders). The compile's /proc lists no process but its own (with namespaces its first
 * process is left out; without them, Landlock lets no /proc file be opened), so the compiler
 * cannot open the file and the build fails saying so, quoting nothing of it.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=/proc/1/cmdline.*(No such file|Permission denied)|cannot read /proc/1/cmdline
 * expect: build-log-lacks=sandbox-run|--work|--hide
 * expect: tree-unchanged */
#include "coalescing.h"
#include "/proc/1/cmdline"
