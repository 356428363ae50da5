/* Cheat: make the compiler read a device. #include "/dev/zero" grows the compiler until the
 * machine's memory runs out; #include "/dev/tty" waits for the terminal forever. In the
 * compile's sandbox neither device exists (or, without namespaces, may be opened), and memory and time are bounded: the build fails
 * at once with the reason.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=/dev/zero.*(No such file|Permission denied|memory)
 * expect: tree-unchanged */
#include "coalescing.h"
#include "/dev/zero"
