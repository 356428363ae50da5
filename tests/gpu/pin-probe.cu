/* pin-probe.cu - how long the grader's shared host memory takes to make: three arrays of 1 GiB
 * (lab 05's speed problem: h_in, h_out, h_ref), each a memfd mapped shared and registered with
 * cudaHostRegister, one after the other or on three threads, with MAP_POPULATE (pages made by the
 * mapping) or without (pages made by the registration as it pins them); and one after the other,
 * each array's pages made first on T threads at once (MADV_POPULATE_WRITE on T parts, as
 * grader/harness/worker_buffers_trusted.cu's host_fill does), then registered. Three repetitions.
 *
 *   nvcc -O2 -o build/pin-probe tests/gpu/pin-probe.cu -lpthread && build/pin-probe
 *
 * Results: tests/gpu/results/h100-bench-grading.txt (the first four ways),
 * tests/gpu/results/h200-bench-grading.txt (all of them). */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct job {
    size_t bytes;
    int populate; /* 1: MAP_POPULATE; -T: made on T threads before the registration */
    void *p;
    int fd;
    double map_s, reg_s;
} job;

typedef struct part {
    char *p;
    size_t bytes;
} part;

static void *fill(void *arg)
{
    part *q = (part *)arg;
    if (madvise(q->p, q->bytes, MADV_POPULATE_WRITE) != 0) {
        perror("madvise(MADV_POPULATE_WRITE)");
        exit(1);
    }
    return NULL;
}

static void *make(void *arg)
{
    job *j = (job *)arg;
    j->fd = memfd_create("pin-probe", MFD_CLOEXEC);
    if (j->fd < 0 || ftruncate(j->fd, (off_t)j->bytes) != 0) {
        perror("memfd");
        exit(1);
    }
    const double t0 = now();
    j->p = mmap(NULL, j->bytes, PROT_READ | PROT_WRITE,
                MAP_SHARED | (j->populate > 0 ? MAP_POPULATE : 0), j->fd, 0);
    if (j->p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    if (j->populate < 0) {
        const int n = -j->populate;
        pthread_t th[16];
        part q[16];
        for (int i = 0; i < n; i++) {
            q[i].p = (char *)j->p + j->bytes / n * i;
            q[i].bytes = j->bytes / n;
            pthread_create(&th[i], NULL, fill, &q[i]);
        }
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
    }
    const double t1 = now();
    const cudaError_t e = cudaHostRegister(j->p, j->bytes, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
        fprintf(stderr, "cudaHostRegister: %s\n", cudaGetErrorString(e));
        exit(1);
    }
    j->map_s = t1 - t0, j->reg_s = now() - t1;
    return NULL;
}

static void drop(job *j)
{
    cudaHostUnregister(j->p);
    munmap(j->p, j->bytes);
    close(j->fd);
}

int main(void)
{
    cudaFree(0); /* the context first: not part of any figure */
    for (int rep = 0; rep < 3; rep++)
        for (int populate = 1; populate >= 0; populate--)
            for (int threads = 0; threads <= 1; threads++) {
                job j[3];
                memset(j, 0, sizeof j);
                for (int i = 0; i < 3; i++)
                    j[i].bytes = (size_t)1 << 30, j[i].populate = populate;
                const double t0 = now();
                if (threads) {
                    pthread_t th[3];
                    for (int i = 0; i < 3; i++)
                        pthread_create(&th[i], NULL, make, &j[i]);
                    for (int i = 0; i < 3; i++)
                        pthread_join(th[i], NULL);
                } else {
                    for (int i = 0; i < 3; i++)
                        make(&j[i]);
                }
                printf("%-9s %-24s %.3f s (map %.3f %.3f %.3f, register %.3f %.3f %.3f)\n",
                       threads ? "threads" : "in turn",
                       populate ? "MAP_POPULATE, register" : "register alone", now() - t0,
                       j[0].map_s, j[1].map_s, j[2].map_s, j[0].reg_s, j[1].reg_s, j[2].reg_s);
                for (int i = 0; i < 3; i++)
                    drop(&j[i]);
            }
    for (int rep = 0; rep < 3; rep++)
        for (int t = 1; t <= 16; t *= 2) {
            job j[3];
            memset(j, 0, sizeof j);
            const double t0 = now();
            for (int i = 0; i < 3; i++) {
                j[i].bytes = (size_t)1 << 30, j[i].populate = -t;
                make(&j[i]);
            }
            printf("in turn   made on %2d threads, register %.3f s (made %.3f %.3f %.3f, register %.3f %.3f %.3f)\n",
                   t, now() - t0, j[0].map_s, j[1].map_s, j[2].map_s, j[0].reg_s, j[1].reg_s, j[2].reg_s);
            for (int i = 0; i < 3; i++)
                drop(&j[i]);
        }
    return 0;
}
