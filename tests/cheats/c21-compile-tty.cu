/* Cheat: an #include of the terminal, which would wait for input forever (and stop the whole
 * grading with it). The compile's sandbox has no terminal.
 * lab: coalescing
 * where: emu gpu
 * expect: build=FAIL
 * expect: build-message=/dev/tty.*(No such file|Permission denied)
 * expect: tree-unchanged */
#include "coalescing.h"
#include "/dev/tty"
