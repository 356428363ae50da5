/* Cheat: hand in a symbolic link to the reference solution instead of a file. Grading reads
 * only a regular file inside the student's tree and never follows the link.
 * lab: coalescing
 * where: emu gpu
 * link: solutions/01-coalescing/coalescing.cu
 * expect: build=FAIL
 * expect: build-message=symbolic link
 * expect: tree-unchanged */
