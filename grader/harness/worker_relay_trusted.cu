/* worker_relay_trusted.cu - TRUSTED SIDE: what student code prints, into the current check's
 * capped log: each worker's output through a pipe and a thread of its own (relay_*), and in the
 * fallback this process's own output during a check (here_capture_*: the implementations print
 * here), rescued on a fatal signal. Called by worker_lifecycle_trusted.cu (a worker's start and
 * end, a check's begin and end); see worker_state_trusted.h. */
#include "worker_state_trusted.h"
#include "../../common/check.h"
#include "../../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------ */
/* Output relay: what student code prints into the current check's log, capped               */

/* Move at most one buffer from relay r's pipe into the log (caller holds pool->log_lock).
 * Returns the bytes read, 0 at the end of the pipe (no writer left), -1 when it is empty. */
static ssize_t relay_move(worker_pool *pool, output_relay *r, size_t most)
{
    static char buf[1 << 16]; /* under pool->log_lock */
    if (most > sizeof buf)
        most = sizeof buf;
    ssize_t n;
    do
        n = read(r->fd, buf, most);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n == 0 ? 0 : -1;
    long long keep = WORKER_LOG_CAP - pool->log_kept;
    keep = keep < 0 ? 0 : keep > n ? n : keep;
    if (pool->log_fd >= 0 && keep > 0 && write(pool->log_fd, buf, (size_t)keep) < 0)
        keep = 0;
    pool->log_kept += keep;
    pool->log_dropped += n - keep;
    return n;
}

/* Everything relay r's pipe holds now into the log (caller holds pool->log_lock). What a writer
 * adds meanwhile is left for the next check; with to_end, until no writer is left (they
 * are dead) or the pipe is empty, and at most 16 MB (more than a pipe holds: a writer that
 * outlived its kill cannot keep the harness here). */
void relay_drain(worker_pool *pool, output_relay *r, int to_end)
{
    if (!r->running)
        return;
    int held = 0;
    if (!to_end && ioctl(r->fd, FIONREAD, &held) != 0)
        held = 0;
    for (long long left = to_end ? 16 << 20 : held; left > 0;) {
        const ssize_t n = relay_move(pool, r, (size_t)left);
        if (n <= 0)
            break;
        left -= n;
    }
}

/* The thread of relay r: moves bytes as they come, so that a writer never waits on a full
 * pipe, until the pipe ends or relay_stop wakes it. */
static void *relay_thread(void *arg)
{
    output_relay *r = (output_relay *)arg;
    worker_pool *pool = r->pool;
    for (;;) {
        struct pollfd pf[2] = {{r->fd, POLLIN, 0}, {r->wake, POLLIN, 0}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pf[1].revents)
            break;
        pthread_mutex_lock(&pool->log_lock);
        const ssize_t n = relay_move(pool, r, SIZE_MAX);
        pthread_mutex_unlock(&pool->log_lock);
        if (n == 0)
            break;
    }
    return NULL;
}

/* Relay what is written into pipe read end fd (taken over) to the current check's log. */
void relay_start(worker_pool *pool, output_relay *r, int fd)
{
    r->pool = pool;
    r->fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    r->wake = eventfd(0, EFD_CLOEXEC);
    if (r->wake < 0 || pthread_create(&r->thread, NULL, relay_thread, r) != 0)
        fatal("cannot start an output relay: %s", strerror(errno));
    r->running = 1;
}

/* What is left in relay r's pipe into the log (every byte, when its writers are gone),
 * then its thread stopped and the pipe closed. */
void relay_stop(worker_pool *pool, output_relay *r)
{
    if (!r->running)
        return;
    pthread_mutex_lock(&pool->log_lock);
    relay_drain(pool, r, 1);
    pthread_mutex_unlock(&pool->log_lock);
    const uint64_t one = 1;
    if (write(r->wake, &one, sizeof one) < 0) { /* an eventfd write only fails on overflow */
    }
    pthread_join(r->thread, NULL);
    close(r->fd);
    close(r->wake);
    r->running = 0;
}

/* The fallback runs student code in this process: during a check its fds 1 and 2 are a pipe
 * relayed like a worker's. A crash takes the process and its relay with it, so the signals
 * that end a process for a fault first move what the pipe holds into the log (with calls
 * that are safe in a signal handler), then let the signal do what it did before. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction fatal_before[ARRAY_LEN(fatal_signals)];
/* The pool whose relay here_rescue saves (a signal handler and an atexit function take no
 * argument): set by the first here_capture_begin, never changed after. */
static worker_pool *rescue_pool;

static void here_rescue(void)
{
    worker_pool *const pool = rescue_pool;
    if (!pool || !pool->here.running)
        return;
    /* The relay thread holds the lock only while it moves one buffer: wait for it a little
     * (never block: the handler may run on any thread). */
    for (int i = 0; i < 200; i++) {
        if (pthread_mutex_trylock(&pool->log_lock) == 0) {
            relay_drain(pool, &pool->here, 0);
            pthread_mutex_unlock(&pool->log_lock);
            return;
        }
        const struct timespec nap = {0, 500 * 1000};
        nanosleep(&nap, NULL);
    }
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    here_rescue();
    for (size_t i = 0; i < ARRAY_LEN(fatal_signals); i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &fatal_before[i], NULL);
    if (info->si_code <= 0) /* sent, not a fault: a fault comes again when this returns */
        raise(sig);
}

/* A sanitizer's (the emulator's build has them) report of a fault comes from its own
 * handler, which ends the process without running atexit: its death callback is the last
 * moment to move the report into the log. Weak: a build without sanitizers has none. */
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* Student output of this process (the fallback) into the check's log, from now on. */
void here_capture_begin(worker_pool *pool)
{
    static int at_exit;
    int p[2];
    fflush(NULL); /* the harness's own notes to its own log first */
    if (pipe2(p, O_CLOEXEC) != 0 || (pool->saved_out = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0 ||
        (pool->saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0 || dup2(p[1], 1) < 0 ||
        dup2(p[1], 2) < 0)
        fatal("cannot send this process's output to the check's log: %s", strerror(errno));
    close(p[1]);
    relay_start(pool, &pool->here, p[0]);
    if (!rescue_pool)
        rescue_pool = pool;
    if (!at_exit) { /* exit() inside a check: the student's, or a failure of the harness */
        at_exit = atexit(here_rescue) == 0;
        if (__sanitizer_set_death_callback)
            __sanitizer_set_death_callback(here_rescue);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    for (size_t i = 0; i < ARRAY_LEN(fatal_signals); i++)
        sigaction(fatal_signals[i], &sa, &fatal_before[i]);
}

/* The end of here_capture_begin: the device's printf buffer and every stream of this
 * process flushed into the pipe, fds 1 and 2 back, the pipe moved into the log to its end. */
void here_capture_end(worker_pool *pool)
{
    if (!pool->here.running)
        return;
    cudaDeviceSynchronize(); /* flushes device printf; an error here is the check's, seen */
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
    fflush(NULL);
    for (size_t i = 0; i < ARRAY_LEN(fatal_signals); i++)
        sigaction(fatal_signals[i], &fatal_before[i], NULL);
    dup2(pool->saved_out, 1);
    dup2(pool->saved_err, 2);
    close(pool->saved_out);
    close(pool->saved_err);
    relay_stop(pool, &pool->here);
}
