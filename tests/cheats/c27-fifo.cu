/* Cheat: hand in a named pipe, on which a compiler (or a copy) would wait forever. It is
 * refused as not a regular file, without waiting on it.
 * lab: coalescing
 * where: emu gpu
 * fifo: yes
 * expect: build=FAIL
 * expect: build-message=FIFO
 * expect: tree-unchanged */
