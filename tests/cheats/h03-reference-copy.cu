/* Honest control: a fast, correct file (the reference's own approach, the lab's answer) must
 * pass every check, speed included. The case's file is the reference solution itself.
 * lab: coalescing
 * where: emu gpu
 * copy: solutions/01-coalescing/coalescing.cu
 * expect: all-correct=OK
 * expect: speed=OK */
