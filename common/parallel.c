/* parallel.c - see parallel.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "parallel.h"

#include <pthread.h>
#include <sched.h>

typedef struct run {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t begin, end; /* the items of one thread */
} run;

static void *run_main(void *arg)
{
    const run *r = (const run *)arg;
    for (size_t i = r->begin; i < r->end; i++)
        r->fn(r->ctx, i);
    return NULL;
}

/* The CPUs this process may run on (its affinity: a batch or a container may give it fewer
 * than the machine has). */
static int cpus_here(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    const int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

void parallel_for(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    int t = threads > 0 ? threads : cpus_here();
    if (t > PARALLEL_MAX_THREADS)
        t = PARALLEL_MAX_THREADS;
    if ((size_t)t > n)
        t = (int)n;
    run runs[PARALLEL_MAX_THREADS];
    pthread_t ids[PARALLEL_MAX_THREADS];
    int started[PARALLEL_MAX_THREADS] = {0};
    for (int k = 0; k < t; k++) {
        runs[k] = (run){fn, ctx, n * (size_t)k / (size_t)t, n * (size_t)(k + 1) / (size_t)t};
        /* the first run here; a thread that cannot start has its run done here too */
        if (k > 0)
            started[k] = pthread_create(&ids[k], NULL, run_main, &runs[k]) == 0;
    }
    if (t > 0)
        run_main(&runs[0]);
    for (int k = 1; k < t; k++) {
        if (started[k])
            pthread_join(ids[k], NULL);
        else
            run_main(&runs[k]);
    }
}
