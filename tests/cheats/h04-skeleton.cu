/* Honest control: the untouched skeleton is correct and too slow.
 * lab: coalescing
 * where: emu gpu
 * copy: labs/01-coalescing/coalescing.cu
 * expect: all-correct=OK
 * expect: speed=FAIL
 * expect: output-has=\n  1 x 33: one row, a warp and one \.+ OK    \( *[0-9.]+s\)\n
 *   (a passing check's line ends at its time when its message would only repeat its name) */
