/* worker_protocol_trusted.cu - TRUSTED SIDE: talking to a worker (proto.h). A call becomes
 * a command on the worker's socket, with the descriptors of buffers it has not mapped yet;
 * calls inside a batch go as one command (a timed unit of several calls costs one round
 * trip). Every reply is read within the check's time and checked, never trusted; a worker is
 * let run only while the harness waits for its reply. In the fallback the same calls go to
 * the implementation loaded into this process. See worker_trusted.h and
 * worker_state_trusted.h. */
#include "worker_state_trusted.h"
#include "../../common/check.h"
#include "../../common/util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(CUDA_EMU)
#include <cuda_emu/schedule.h>
#endif

/* ------------------------------------------------------------------------------------------ */
/* Calls                                                                                       */

/* data (with fds, in its first piece) written whole to sock: 0, or -1 when the worker stopped
 * reading. */
static int send_all(int sock, const void *data, size_t len, const int *fds, int n_fds)
{
    const char *p = (const char *)data;
    int first = 1;
    while (len > 0) {
        struct iovec iov = {(void *)p, len};
        char control[CMSG_SPACE(sizeof(int) * PROTO_MAX_BUFS)];
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (first && n_fds > 0) {
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
        }
        const ssize_t w = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        first = 0;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

exchange_status worker_command(worker *w, const proto_cmd *c, const int *fds, int n_fds,
                               proto_reply *r, double until)
{
    worker_signal(w, SIGCONT);
    w->sent = 1;
    if (send_all(w->sock, c, sizeof *c, fds, n_fds) != 0)
        return EXCHANGE_UNSENT;
    size_t got = 0;
    while (got < sizeof *r) {
        double left = until - wall_seconds();
        if (left < 0)
            left = 0;
        struct pollfd pf = {w->sock, POLLIN, 0};
        const int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return EXCHANGE_NO_ANSWER;
        const ssize_t n = read(w->sock, (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return EXCHANGE_ENDED;
        got += (size_t)n;
    }
    w->answered = 1;
    worker_signal(w, SIGSTOP); /* nothing of it runs while the harness is not waiting for it */
    return EXCHANGE_OK;
}

/* Send c to worker impl and read its reply within the check's time. */
static void round_trip(worker_pool *pool, int impl, proto_cmd *c, const int *fds, int n_fds,
                       proto_reply *r)
{
    worker *w = &pool->w[impl];
    const exchange_status e = worker_command(w, c, fds, n_fds, r, pool->deadline);
    if (e == EXCHANGE_UNSENT)
        worker_fail(impl, WORKER_FAIL_CRASH, "the process stopped reading its commands");
    if (e == EXCHANGE_NO_ANSWER)
        worker_fail(impl, WORKER_FAIL_HANG, "no answer from the call within the check's "
                   "time limit");
    if (e == EXCHANGE_ENDED) {
        char why[256];
        int sig;
        worker_describe_death(impl, why, sizeof why, &sig);
        worker_fail(impl, sig < 0 ? WORKER_FAIL_START : WORKER_FAIL_CRASH, "%s", why);
    }
    if (w->scratch[0] && worker_scratch_bytes(w) > SANDBOX_WORKER_TMP_BYTES)
        worker_fail(impl, WORKER_FAIL_CRASH, "it kept %lld MB in its /tmp, more than the %lld MB "
                   "a worker may", worker_scratch_bytes(w) >> 20, SANDBOX_WORKER_TMP_BYTES >> 20);
    r->error_name[sizeof r->error_name - 1] = 0;
    r->problem[sizeof r->problem - 1] = 0;
    if (r->magic != PROTO_MAGIC)
        worker_fail(impl, WORKER_FAIL_CRASH, "garbage on the worker's channel");
    if (r->mapped > 0)
        worker_cost_put(COST_WORKER_MAP, r->mapped, r->map_s);
    if (r->cuda_error != 0) {
        char name[64];
        snprintf(name, sizeof name, "%s", r->error_name[0] ? r->error_name : "cudaError");
        memset(pool->fail, 0, sizeof *pool->fail);
        pool->fail->impl = impl;
        pool->fail->kind = WORKER_FAIL_CUDA;
        snprintf(pool->fail->cuda_name, sizeof pool->fail->cuda_name, "%s", name);
        snprintf(pool->fail->detail, sizeof pool->fail->detail, "%s", name);
        workers_kill(impl); /* its context is broken: the next check starts a fresh one */
        if (!pool->fail_jump)
            fatal("a worker failed outside a check");
        longjmp(*pool->fail_jump, 1);
    }
}

void worker_exchange(worker_pool *pool, int impl, proto_cmd *c, const int *fds, int n_fds,
                     proto_reply *r)
{
    if (pool->w[impl].pid <= 0)
        worker_start(impl);
    if (!pool->w[impl].answered) { /* just started, or a spare started ahead (workers_prewarm) */
        /* An empty command first, before any call: a process that ends before answering it
         * could not start, or code it loaded ended it first (the harness weighs which, by
         * starting the reference's the same way: harness_emit.cu, emit_worker_failure); once it
         * has answered, an end (whatever its exit status) is the doing of the code it loaded. */
        static proto_cmd hello;
        memset(&hello, 0, sizeof hello);
        hello.magic = PROTO_MAGIC;
        hello.op = PROTO_NULL;
        proto_reply hr;
        const double at = wall_seconds();
        round_trip(pool, impl, &hello, NULL, 0, &hr);
        worker_cost_add(COST_HELLO, at);
    }
    round_trip(pool, impl, c, fds, n_fds, r);
}

/* Add buffer b to command c for worker impl (with its descriptor, first time only). */
static uint32_t add_buf(proto_cmd *c, int impl, shared_buf *b, int *fds, int *n_fds)
{
    for (int i = 0; i < c->n_bufs; i++)
        if (c->buf[i].id == b->id)
            return (uint32_t)i;
    if (c->n_bufs == PROTO_MAX_BUFS)
        fatal("a call names more than %d buffers", PROTO_MAX_BUFS);
    proto_buf *pb = &c->buf[c->n_bufs];
    pb->id = b->id;
    pb->bytes = b->bytes;
    if (b->host) {
        pb->kind = PROTO_BUF_HOST;
        if (!(b->mapped & (1u << impl)))
            fds[(*n_fds)++] = b->fd;
    } else { /* device memory: the allocation's file descriptor */
        pb->kind = PROTO_BUF_DEVICE;
        if (!(b->mapped & (1u << impl)))
            fds[(*n_fds)++] = b->fd;
    }
    b->mapped |= 1u << impl; /* after this command it is (or the worker is gone) */
    return (uint32_t)c->n_bufs++;
}

static void send_batch(worker_pool *pool, int impl)
{
    worker *w = &pool->w[impl];
    if (w->batch.n_calls == 0)
        return;
    proto_reply r;
    worker_exchange(pool, impl, &w->batch, w->pending_fds, w->n_pending_fds, &r);
    w->batch.n_calls = w->batch.n_bufs = 0;
    w->n_pending_fds = 0;
    if (r.problem[0]) /* a rule the shim saw broken: reported with the output */
        harness_note_problem(impl, r.problem);
}

static uint64_t call_schedule; /* workers_set_schedule */

void workers_set_schedule(uint64_t word) { call_schedule = word; }

void pool_call(worker_pool *pool, int impl, cudaStream_t s, int entry, const char *fmt, va_list ap)
{
    worker *w = &pool->w[worker_slot(impl)];
    if (pool->inprocess) {
#if defined(CUDA_EMU)
        cuda_emu_schedule(call_schedule);
#endif
        worker_load_here(impl);
        shim_arg args[PROTO_MAX_ARGS];
        memset(args, 0, sizeof args);
        int n = 0;
        for (const char *f = fmt; *f && n < PROTO_MAX_ARGS; f++, n++) {
            switch (*f) {
            case 'p': args[n].p = va_arg(ap, void *); break;
            case 'i': args[n].i = va_arg(ap, int); break;
            case 'l': args[n].i = va_arg(ap, long long); break;
            case 'z': args[n].i = (long long)va_arg(ap, size_t); break;
            case 'f': args[n].f = va_arg(ap, double); break;
            default: fatal("harness_call: bad format '%c'", *f);
            }
        }
        char problem[256] = "";
        w->call(entry, args, n, s, problem, sizeof problem);
        if (problem[0])
            harness_note_problem(impl, problem);
        return;
    }
    proto_cmd *c = &w->batch;
    if (c->n_calls == PROTO_MAX_CALLS)
        send_batch(pool, impl);
    c->magic = PROTO_MAGIC;
    c->op = PROTO_CALL;
    c->schedule = call_schedule;
    proto_call *call = &c->call[c->n_calls];
    memset(call, 0, sizeof *call);
    call->entry = entry;
    int n = 0;
    for (const char *f = fmt; *f; f++, n++) {
        if (n == PROTO_MAX_ARGS)
            fatal("harness_call: more than %d arguments", PROTO_MAX_ARGS);
        proto_arg *a = &call->arg[n];
        switch (*f) {
        case 'p': {
            void *p = va_arg(ap, void *);
            shared_buf *b = shared_find(pool, p);
            if (!b)
                fatal("harness_call: argument %d is not a buffer the harness shares", n + 1);
            a->type = PROTO_ARG_PTR;
            a->buf = add_buf(c, impl, b, w->pending_fds, &w->n_pending_fds);
            a->offset = (uint64_t)((char *)p - b->base);
            break;
        }
        case 'i': a->type = PROTO_ARG_INT, a->v.i = va_arg(ap, int); break;
        case 'l': a->type = PROTO_ARG_INT, a->v.i = va_arg(ap, long long); break;
        case 'z': a->type = PROTO_ARG_INT, a->v.i = (int64_t)va_arg(ap, size_t); break;
        case 'f': a->type = PROTO_ARG_FLOAT, a->v.f = va_arg(ap, double); break;
        default: fatal("harness_call: bad format '%c'", *f);
        }
    }
    call->n_args = n;
    c->n_calls++;
    if (!pool->in_batch)
        send_batch(pool, impl);
}

void pool_batch_begin(worker_pool *pool) { pool->in_batch = 1; }

void pool_batch_end(worker_pool *pool)
{
    pool->in_batch = 0;
    for (int impl = 0; impl < MAX_IMPLS; impl++)
        send_batch(pool, impl);
}

/* ------------------------------------------------------------------------------------------ */
/* Counting (make explain)                                                                     */

/* One command without calls: `op`, with descriptor `fd` passed along when it is not -1. */
static void send_op(worker_pool *pool, int impl, uint32_t op, int fd)
{
    static proto_cmd c;
    memset(&c, 0, sizeof c);
    c.magic = PROTO_MAGIC;
    c.op = op;
    proto_reply r;
    worker_exchange(pool, worker_slot(impl), &c, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0, &r);
}

void pool_count_begin(worker_pool *pool, int impl, int fd)
{
    if (pool->inprocess)
        fatal("counting needs the implementation in a worker process of its own");
    send_op(pool, impl, PROTO_COUNT_BEGIN, fd);
}

void pool_count_end(worker_pool *pool, int impl) { send_op(pool, impl, PROTO_COUNT_END, -1); }

/* ------------------------------------------------------------------------------------------ */
/* The reference's worker carried into the next lab (harness_labs.cu, README's "One harness,  */
/* many labs")                                                                                 */

int worker_load(worker_pool *pool, int impl, double seconds)
{
    if (impl != IMPL_REFERENCE) /* a student's process holds one lab's code, ever */
        fatal("only the reference's worker may be told to load another object (asked of %d)",
              impl);
    worker *w = &pool->w[impl];
    static proto_cmd c;
    memset(&c, 0, sizeof c);
    c.magic = PROTO_MAGIC;
    c.op = PROTO_LOAD;
    if (w->pid <= 0 || w->doubt || strlen(w->so) >= sizeof c.object)
        return -1;
    snprintf(c.object, sizeof c.object, "%s", w->so);
    proto_reply r;
    if (worker_command(w, &c, NULL, 0, &r, wall_seconds() + seconds) != EXCHANGE_OK)
        return -1;
    return r.magic == PROTO_MAGIC && r.cuda_error == 0 ? 0 : -1;
}
