/* Cheat: hand in a symbolic link to /etc/passwd, whose first tokens would come back in the
 * compiler's errors. The link is refused before anything reads its target.
 * lab: coalescing
 * where: emu gpu
 * link: /etc/passwd
 * expect: build=FAIL
 * expect: build-message=symbolic link
 * expect: build-log-lacks=root:x:0|daemon:
 * expect: tree-unchanged */
