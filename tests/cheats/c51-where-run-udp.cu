/* Cheat (make grade's WHERE line): honest in every graded call, but in the call the WHERE line
 * counts (the only one with 8191 columns) it sends a UDP datagram to 127.0.0.1, a channel out to
 * anything listening on the grading machine. The count ran with the compile sandbox's policy,
 * which has no seccomp filter: under the Landlock fallback the datagram went out. The count now
 * runs in the worker's sandbox, whose filter refuses every socket but a Unix one, in every
 * fallback (GRADER_SANDBOX=landlock tests/cheats/run.sh c51... shows the Landlock one).
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: no-error
 * expect: where=counted here
 * expect: where-lacks=attack worked */
#include "coalescing.h"
#include "cheat_common.cuh"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 1 if a datagram left for 127.0.0.1 (raw system calls: no build-time check sees them). */
static int udp_sent(void)
{
    const long fd = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons(9); /* discard */
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const long sent = syscall(SYS_sendto, fd, "where", 5, 0, &to, sizeof to);
    syscall(SYS_close, fd);
    return sent == 5;
}

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    where_says(where_run(cols) && udp_sent(), out, in, scale, bias, rows, cols, stream);
}
