/* Honest control: the untouched skeleton is correct and too slow.
 * lab: coalescing
 * where: emu gpu
 * copy: labs/01-coalescing/coalescing.cu
 * expect: all-correct=OK
 * expect: speed=FAIL */
