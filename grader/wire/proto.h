/* proto.h - the messages between the trusted harness and an untrusted worker process.
 *
 * A worker holds one implementation of a lab's contract (the student's file, or the
 * reference) behind the lab's shim, and nothing else: no grader code, no seed, no expected
 * outputs, no results file. The harness sends it commands over a Unix socket; the worker
 * answers each with exactly one reply. Everything a verdict depends on (outputs compared,
 * times measured, records written) happens in the harness, which trusts no field of a reply
 * beyond "the call came back" and reads every reply with a time limit.
 *
 * Device buffers cross as file descriptors of CUDA virtual-memory allocations (the VMM API's
 * shareable handles; under the CPU emulator, the memfd behind the allocation), host buffers
 * (pinned memory, lab 05) as memfd descriptors, both passed with SCM_RIGHTS over the
 * command socket: the worker needs no other channel. Each buffer has an id that the harness never reuses;
 * the worker maps it on first use and unmaps it on PROTO_FORGET (one command for all the buffers
 * the harness gives back together). A buffer here is an allocation: on a GPU a region that holds
 * several of the harness's buffers (grader/harness/worker_regions_trusted.cu), each argument
 * naming it with its offset. */
#ifndef GRADER_PROTO_H
#define GRADER_PROTO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>


#define PROTO_MAGIC 0x43554442u /* "CUDB" */
#define PROTO_MAX_ARGS 12       /* arguments of one entry-point call */
#define PROTO_MAX_CALLS 48      /* calls in one PROTO_CALL (a timed unit of several calls) */
#define PROTO_OBJECT_MAX 1024  /* bytes of PROTO_LOAD's path, its ending 0 included */
#define PROTO_SERVE_LOAD 256   /* shim_serve's return after a PROTO_LOAD it took (no exit
                                   status): its main loads the object (grader/worker/shim.h) */
#define PROTO_MAX_BUFS 240      /* buffers one command names (48 calls of 5; under the 253
                                   descriptors one Unix-socket message can carry) */

typedef enum proto_op {
    PROTO_CALL = 1, /* run call[0..n_calls) in order on the worker's stream, then synchronize */
    PROTO_NULL,     /* launch one empty kernel and synchronize: the path's own cost */
    PROTO_FORGET,   /* unmap buf[0..n_bufs): the harness is about to free them (all it frees
                       together, PROTO_MAX_BUFS a command) */
    PROTO_QUIT,     /* exit */
    PROTO_COUNT_BEGIN, /* make explain, under the CPU emulator: count what the next commands
                          run (cudaProfilerStart) into the one descriptor passed with this
                          command, a file of the harness's that the harness reads back as data */
    PROTO_COUNT_END,   /* stop counting (cudaProfilerStop writes the counts) and close it */
    PROTO_LOAD         /* the reference's worker alone, between two labs of one harness: load
                          the object at `object` (the next lab's reference.so) beside the one it
                          serves and serve it from now on. Refused (an error, the loop goes on
                          serving the object before) where anything of that object's work is
                          left: a buffer still mapped, a count open, an error of its context or
                          its stream; answered by the worker's main once the new object is loaded
                          (it exits when it cannot load it). grader/worker/worker_untrusted.c */
} proto_op;

typedef enum proto_buf_kind {
    PROTO_BUF_DEVICE = 1, /* a device allocation exported as a file descriptor, passed with
                             the message (GPU: a CUDA virtual-memory allocation, mapped with
                             cuMemMap; emulator: its memfd, mapped with cuda_emu::import_fd) */
    PROTO_BUF_HOST        /* a memfd, passed with the message, mapped and cudaHostRegister'd */
} proto_buf_kind;

typedef struct proto_buf {
    uint32_t id;    /* the harness's name for the allocation, never reused */
    uint32_t kind;  /* proto_buf_kind */
    uint64_t bytes; /* size of the whole allocation */
} proto_buf;

typedef enum proto_arg_type {
    PROTO_ARG_PTR = 1, /* buf[arg.buf] mapped, plus arg.offset bytes */
    PROTO_ARG_INT,     /* v.i */
    PROTO_ARG_FLOAT    /* v.f */
} proto_arg_type;

typedef struct proto_arg {
    uint32_t type;   /* proto_arg_type */
    uint32_t buf;    /* PROTO_ARG_PTR: index into the command's buf[] */
    uint64_t offset; /* PROTO_ARG_PTR: byte offset from the allocation's base */
    union {
        int64_t i;
        double f;
    } v;             /* the scalar */
} proto_arg;

typedef struct proto_call {
    int32_t entry;  /* which entry point of the lab (its index in the lab's shim) */
    int32_t n_args; /* arguments in arg[] */
    proto_arg arg[PROTO_MAX_ARGS];
} proto_call;

typedef struct proto_cmd {
    uint32_t magic;  /* PROTO_MAGIC */
    uint32_t op;     /* proto_op */
    int32_t n_bufs;  /* buffers in buf[] (PROTO_CALL: those its arguments name) */
    int32_t n_calls; /* calls in call[] */
    uint64_t schedule; /* PROTO_CALL under the CPU emulator: the order its grids run in
                          (cuda_emu/schedule.h; 0: index order); unused on a GPU */
    proto_buf buf[PROTO_MAX_BUFS];
    proto_call call[PROTO_MAX_CALLS];
    char object[PROTO_OBJECT_MAX]; /* PROTO_LOAD: the object's absolute path, 0-terminated */
} proto_cmd;

typedef struct proto_reply {
    uint32_t magic;      /* PROTO_MAGIC */
    int32_t cuda_error;  /* 0, or the cudaError_t the worker's synchronize or launch returned */
    char error_name[64]; /* its name, for the report ("cudaErrorIllegalAddress") */
    char problem[256];   /* a rule the shim saw broken ("launched 2 kernels"), "" if none */
    /* The worker's own account of the command, for GRADER_COSTS's log alone (its word:
     * nothing decides on it): the buffers it mapped for the command (their first use) and
     * the seconds that took. */
    int32_t mapped;
    double map_s;
} proto_reply;

/* A worker's reply written whole to fd (again after a signal or a short write): 0, or -1 when
 * the harness's end is gone. */
static inline int proto_write_all(int fd, const void *msg, size_t n)
{
    const char *p = (const char *)msg;
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

#endif
