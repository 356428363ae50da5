/* Cheat: look around from inside the worker. Graded as root, is the worker still root and can
 * it read /etc/shadow? Does /proc show the grader's processes (the driver's and the harness's
 * command lines and environments, where a seed could be)? Is there a terminal to write a
 * forged score into? What lies beside this object's own folder (another student's tree in a
 * batch, the reference's object)? Can it start thousands of threads? Honest output only when
 * every door stayed shut.
 * lab: coalescing
 * where: emu gpu
 * expect: all-correct=OK
 * expect: seed-hidden
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int readable_file(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char c;
    const int got = read(fd, &c, 1) == 1;
    close(fd);
    return got;
}

/* A file's bytes, NULs as spaces (a command line, an environment). */
static size_t slurp(const char *path, char *buf, size_t cap)
{
    const int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[n] = 0;
    return n;
}

/* Other processes: any but this one and the sandbox's own init (pid 1 of its namespace), and
 * any command line or environment that names a seed. */
static int processes_seen(void)
{
    int open_doors = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    static char buf[1 << 16];
    while (d && (e = readdir(d))) {
        const int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        if (slurp(path, buf, sizeof buf) && strstr(buf, "SEED="))
            open_doors++, fprintf(stderr, "door: the environment of process %d names a seed\n", pid);
        snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
        if (slurp(path, buf, sizeof buf)) {
            if (strstr(buf, "--seed") || strstr(buf, "SEED=") || strstr(buf, "5eed5eed"))
                open_doors++, fprintf(stderr, "door: process %d's command line names a seed\n", pid);
            if (pid != 1 && (strstr(buf, "grade-driver") || strstr(buf, "make") ||
                             strstr(buf, "harness") || strstr(buf, "bash")))
                open_doors++, fprintf(stderr, "door: process %d (%.60s) is in view\n", pid, buf);
        }
    }
    if (d)
        closedir(d);
    return open_doors;
}

/* What shares this object's folder, or the folder above it: only student.so belongs here. */
static int siblings_seen(void)
{
    char so[4096] = "", line[8192];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, ".so") && (strstr(line, "student") || strstr(line, "/labs/"))) {
            char *p = strchr(line, '/');
            if (p) {
                p[strcspn(p, "\n")] = 0;
                snprintf(so, sizeof so, "%s", p);
                break;
            }
        }
    if (maps)
        fclose(maps);
    /* Each folder on the way up holds only the next folder down (or the object itself). */
    int seen = 0;
    for (int up = 0; up < 4 && so[0]; up++) {
        char *slash = strrchr(so, '/');
        if (!slash || slash == so)
            break;
        char child[1024];
        snprintf(child, sizeof child, "%s", slash + 1);
        *slash = 0;
        DIR *d = opendir(so);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, child) &&
                strncmp(e->d_name, "worker", 6)) /* the worker's own program */
                seen++, fprintf(stderr, "door: %s/%s is in view\n", so, e->d_name);
        if (d)
            closedir(d);
    }
    return seen;
}

static int block_fd[2] = {-1, -1};

/* A thread that stays until the process ends (a read that never gets a byte). */
static void *idle(void *arg)
{
    char c;
    (void)arg;
    while (read(block_fd[0], &c, 1) < 0)
        ;
    return NULL;
}

/* The ones that only need trying once per process. */
static int doors(void)
{
    static int counted = -1;
    if (counted >= 0)
        return counted;
    int open_doors = 0;
    if (getuid() == 0 || geteuid() == 0)
        open_doors++, fprintf(stderr, "door: the worker runs as root\n");
    if (readable_file("/etc/shadow"))
        open_doors++, fprintf(stderr, "door: /etc/shadow is readable\n");
    if (open("/dev/tty", O_WRONLY | O_NOCTTY) >= 0)
        open_doors++, fprintf(stderr, "door: /dev/tty opens\n");
    for (int fd = 0; fd < 64; fd++)
        if (isatty(fd))
            open_doors++, fprintf(stderr, "door: descriptor %d is a terminal\n", fd);
    DIR *pts = opendir("/dev/pts");
    struct dirent *e;
    while (pts && (e = readdir(pts)))
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9') {
            char p[300];
            snprintf(p, sizeof p, "/dev/pts/%s", e->d_name);
            if (open(p, O_WRONLY | O_NOCTTY) >= 0)
                open_doors++, fprintf(stderr, "door: %s opens\n", p);
        }
    if (pts)
        closedir(pts);
    open_doors += processes_seen();
    open_doors += siblings_seen();
    /* threads without bound */
    int made = 0;
    if (pipe(block_fd) != 0)
        return counted = open_doors;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 << 10);
    for (; made < 4096; made++) {
        pthread_t t;
        if (pthread_create(&t, &a, idle, NULL) != 0)
            break;
    }
    if (made >= 4096) {
        struct rlimit r;
        getrlimit(RLIMIT_NPROC, &r);
        char st[1 << 14];
        slurp("/proc/self/status", st, sizeof st);
        const char *th = strstr(st, "Threads:");
        open_doors++, fprintf(stderr, "door: 4096 threads started (uid %d, limit %lld, %.16s)\n",
                              (int)getuid(), (long long)r.rlim_cur, th ? th : "?");
    }
    return counted = open_doors;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_unless(doors(), out, in, scale, bias, rows, cols, stream);
}
