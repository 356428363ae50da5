/* Cheat: cut short the memory the harness shares with this worker. Buffers reach the worker
 * as memfd descriptors (under the emulator the device buffers too; the pinned host buffers in
 * both modes). A memfd cut to 0 bytes loses its pages in every process that maps it: the
 * harness's next look at its own buffer (checking the output) would die of SIGBUS, a crash of
 * the grader instead of a verdict on this code. The worker's command loop closes the
 * descriptors once it has mapped them, so a hook on its recvmsg (installed when the object is
 * loaded) keeps a copy of each; every call then tries to shrink and to grow each one, and
 * returns at once when any attempt worked. Honest output only when every attempt was refused.
 * lab: streams
 * where: emu
 * expect: all-correct=OK */
#include "streams.h"
#include "cheat_common.cuh"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int kept[512];
static int n_kept;

/* The command loop's recvmsg: the real call, then a copy of every descriptor that came. */
static ssize_t keeping_recvmsg(int sock, struct msghdr *msg, int flags)
{
    const ssize_t r = syscall(SYS_recvmsg, sock, msg, flags); /* not recvmsg: that is us */
    if (r > 0)
        for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
                    if (n_kept < 512)
                        kept[n_kept++] = fcntl(fd, F_DUPFD_CLOEXEC, 600);
                }
    return r;
}

__attribute__((constructor)) static void hook_the_command_loop(void)
{
    if (!patch_import((void *)&keeping_recvmsg, "recvmsg", (void *)&keeping_recvmsg))
        fprintf(stderr, "c20: no recvmsg import to hook\n");
}

static int resized(void)
{
    signal(SIGXFSZ, SIG_IGN);
    int n = 0;
    for (int i = 0; i < n_kept; i++) {
        struct stat st;
        if (kept[i] < 0 || fstat(kept[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (ftruncate(kept[i], 0) == 0 || ftruncate(kept[i], st.st_size + 4096) == 0) {
            fprintf(stderr, "LEAK: a shared buffer of %lld bytes could be resized\n",
                    (long long)st.st_size);
            n++;
        }
    }
    return n;
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    static int logged;
    if (!logged++)
        fprintf(stderr, "c20: %d descriptors kept at the first call\n", n_kept);
    if (resized() > 0)
        return; /* touch nothing: the harness meets the cut buffers first */
    cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, 0);
    process(d_out, d_in, n, 0);
    cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, 0);
}
