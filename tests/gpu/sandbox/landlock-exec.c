/* landlock-exec.c - run a command restricted by Landlock to the given paths (prototype).
 *   landlock-exec [-u UID] -r PATH ... -w PATH ... -- command args  */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
int main(int argc, char **argv)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) { perror("landlock"); return 3; }
    __u64 all = (1ULL << 13) - 1; /* ABI 1: 13 rights */
    if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) all |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct landlock_ruleset_attr ra = {.handled_access_fs = all};
    int rs = syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
    if (rs < 0) { perror("ruleset"); return 3; }
    int uid = -1, i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-u")) { uid = atoi(argv[++i]); continue; }
        int w = !strcmp(argv[i], "-w");
        const char *p = argv[++i];
        int fd = open(p, O_PATH | O_CLOEXEC);
        if (fd < 0) { fprintf(stderr, "skip %s\n", p); continue; }
        struct stat st; fstat(fd, &st);
        __u64 ro = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
        __u64 acc = w ? all : ro;
        if (abi >= 5 && (S_ISCHR(st.st_mode) || S_ISDIR(st.st_mode))) acc |= LANDLOCK_ACCESS_FS_IOCTL_DEV | (w ? 0 : LANDLOCK_ACCESS_FS_WRITE_FILE);
        if (!S_ISDIR(st.st_mode)) acc &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
        struct landlock_path_beneath_attr pb = {.allowed_access = acc, .parent_fd = fd};
        if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)) fprintf(stderr, "rule %s: %s\n", p, strerror(errno));
        close(fd);
    }
    if (uid >= 0) { setgroups(0, NULL); if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) { perror("setuid"); return 3; } }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (syscall(SYS_landlock_restrict_self, rs, 0)) { perror("restrict"); return 3; }
    execvp(argv[i + 1], argv + i + 1);
    perror("exec");
    return 127;
}
