/* worker_idle_trusted.cu - TRUSTED SIDE: is the GPU idle? Empty kernels of the harness's own,
 * timed against their round trip on an idle GPU, show whether work a call left running after
 * it answered (or another program's) still holds the GPU; and one empty kernel through a
 * worker's path measures that path's own cost. See worker_trusted.h and
 * worker_state_trusted.h. */
#include "worker_state_trusted.h"
#include "../../common/check.h"
#include "../../common/util.h"

#include <math.h>
#include <string.h>

__global__ void harness_null_kernel(void) {}

/* The GPU runs one process's context at a time, in time slices: while a worker's context still
 * has work, a kernel of this process waits for its turn. So an empty kernel that comes back
 * as fast as on an idle GPU says nothing else is running. Its idle round trip is measured once
 * (the fastest of 20, before any worker runs). */
double worker_idle_probe_s(cudaStream_t s)
{
    static double idle = -1;
    if (idle < 0) {
        idle = 1.0;
        for (int i = 0; i < 20; i++) {
            const double t = wall_seconds();
            harness_null_kernel<<<1, 1, 0, s>>>();
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaStreamSynchronize(s));
            idle = fmin(idle, wall_seconds() - t);
        }
    }
    return idle;
}

static int gpu_busy_before; /* the GPU was busy before this sample's call began */

/* One empty kernel's round trip against the idle one: 1 if something else holds the GPU. */
static int gpu_busy(cudaStream_t s, double limit)
{
    const double t = wall_seconds();
    harness_null_kernel<<<1, 1, 0, s>>>();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(s));
    return wall_seconds() - t > limit;
}

static double idle_limit_s(cudaStream_t s) { return fmax(5 * worker_idle_probe_s(s), 50e-6); }

int pool_note_gpu_state(worker_pool *pool, cudaStream_t s)
{
    gpu_busy_before =
        !pool->inprocess && gpu_busy(s, idle_limit_s(s)) && gpu_busy(s, idle_limit_s(s));
    return gpu_busy_before;
}

double pool_wait_idle(worker_pool *pool, int impl, cudaStream_t s)
{
    if (pool->inprocess)
        return 0;
    const double limit = idle_limit_s(s);
    const double start = wall_seconds();
    for (int probes = 0;; probes++) {
        const double probe = wall_seconds();
        if (!gpu_busy(s, limit))
            return probes ? probe - start : 0;
        if (wall_seconds() - start > WORKERS_IDLE_LIMIT_S) {
            if (impl == IMPL_STUDENT && !gpu_busy_before)
                worker_fail(impl, WORKER_FAIL_HANG,
                           "work of your call was still running on the GPU %.0f s after your "
                           "function returned (a kernel that never ends?)", WORKERS_IDLE_LIMIT_S);
            return wall_seconds() - start; /* another program's: billed, nobody is blamed */
        }
    }
}

void pool_null_call(worker_pool *pool, int impl, cudaStream_t s)
{
    if (pool->inprocess) {
        harness_null_kernel<<<1, 1, 0, s>>>();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
    static proto_cmd c;
    memset(&c, 0, sizeof c);
    c.magic = PROTO_MAGIC;
    c.op = PROTO_NULL;
    proto_reply r;
    worker_exchange(pool, impl, &c, NULL, 0, &r);
}
