/* numa-probe.cu - where lab 05's pinned host arrays should live on a host of several NUMA nodes:
 * the GPU's copy rate to and from 1 GiB of pinned host memory placed on each node in turn (the
 * grader's way: a memfd mapped shared, its pages asked for on that node by
 * host_memory_prefer_node, common/util.c, then touched and registered), and on no node in
 * particular (the pages touched by four threads wherever they run, as before the grader placed
 * them). Medians of 9 copies each way; the GPU's own node (device_host_numa_node) is marked.
 *
 *   numa-probe                    the table, for device 0 (CUDA_VISIBLE_DEVICES picks it)
 *   numa-probe load SECONDS NODE  copies both ways, without a pause, for SECONDS, from 1 GiB
 *                                 placed on NODE (-1: the GPU's own): a neighbouring GPU's
 *                                 traffic (tests/gpu/numa.sh runs one per other GPU)
 *   numa-probe cpu SECONDS NODE   every CPU copying 256 MiB arrays placed on NODE: the host's
 *                                 own memory traffic (a neighbour's CPU answers)
 *   numa-probe pairs N            N pairs of 1 GiB arrays made as lab 05's student and reference
 *                                 outputs are (made one after the other, each on four threads):
 *                                 the GPU's copies into one against the other, alternating, 15
 *                                 of each; the median time of A over B for each pair. A pair
 *                                 far from 1 means the arrays themselves copy at different rates
 *   numa-probe pairs-together N   the same, each pair's pages made in turn (2 MiB of A, then of
 *                                 B, by the same four threads): whether arrays made alike that
 *                                 way copy alike
 *   numa-probe pairs-huge N       as pairs, each array asked for in huge pages (madvise
 *                                 MADV_HUGEPAGE on the memfd's mapping: shmem's transparent huge
 *                                 pages, where the host's shmem_enabled allows "advise"): whether
 *                                 arrays of few, large pages copy alike where small-paged ones
 *                                 do not; the host's setting and the huge pages got are printed
 *
 * Results: tests/gpu/results/h100x4-scaling.txt. */
#include "device.h"
#include "stats.h"
#include "util.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BYTES (1ul << 30)
#define REPS 9

static void die(const char *what, cudaError_t e)
{
    fprintf(stderr, "numa-probe: %s: %s\n", what,
            e == cudaSuccess ? "failed" : cudaGetErrorString(e));
    exit(1);
}

typedef struct {
    char *p, *q; /* q: a second array whose pages are made in turn with p's (NULL: none) */
    size_t bytes;
} part;

#define STEP (2ul << 20)

static void *touch(void *arg)
{
    part *t = (part *)arg;
    for (size_t at = 0; at < t->bytes; at += STEP) {
        const size_t n = t->bytes - at < STEP ? t->bytes - at : STEP;
        memset(t->p + at, 1, n);
        if (t->q)
            memset(t->q + at, 1, n);
    }
    return NULL;
}

/* pairs-huge: every shared_map asks for transparent huge pages */
static int ask_huge;

/* This process's shared memory mapped in huge pages, kB (/proc/self/smaps_rollup; -1: unknown) */
static long shmem_huge_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "ShmemPmdMapped: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* A memfd of `bytes` mapped shared, its pages asked for on node (>= 0) or not (-2). */
static char *shared_map(int node, size_t bytes)
{
    const int fd = memfd_create("numa-probe", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
        die("memfd", cudaSuccess);
    char *p = (char *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        die("mmap", cudaSuccess);
    if (node >= 0 && host_memory_prefer_node(p, bytes, node) != 0)
        die("mbind", cudaSuccess);
    if (ask_huge && madvise(p, bytes, MADV_HUGEPAGE) != 0)
        printf("  (madvise MADV_HUGEPAGE refused: %s)\n", strerror(errno));
    return p;
}

/* The pages of p (and of q, 2 MiB of each in turn, where q is not NULL) made by four threads,
 * a quarter each, wherever they run; then each registered with CUDA. */
static void fill_and_register(char *p, char *q, size_t bytes)
{
    pthread_t th[4];
    part parts[4];
    for (int i = 0; i < 4; i++) {
        parts[i].p = p + bytes / 4 * i;
        parts[i].q = q ? q + bytes / 4 * i : NULL;
        parts[i].bytes = bytes / 4;
        pthread_create(&th[i], NULL, touch, &parts[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (char *x : {p, q}) {
        if (!x)
            continue;
        const cudaError_t e = cudaHostRegister(x, bytes, cudaHostRegisterDefault);
        if (e != cudaSuccess)
            die("cudaHostRegister", e);
    }
}

/* 1 GiB of shared memory as the grader makes it: node >= 0 asked for, -2 none (four threads
 * touch a quarter each, wherever they run), registered with CUDA. */
static char *host_array(int node, size_t bytes)
{
    char *p = shared_map(node, bytes);
    fill_and_register(p, NULL, bytes);
    return p;
}

static void host_array_free(char *p, size_t bytes)
{
    cudaHostUnregister(p);
    munmap(p, bytes);
}

/* ms of one copy of `bytes` (CUDA events around it on s) */
static double copy_ms(void *dst, const void *src, size_t bytes, cudaMemcpyKind k, cudaStream_t s)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, s);
    cudaMemcpyAsync(dst, src, bytes, k, s);
    cudaEventRecord(b, s);
    const cudaError_t e = cudaEventSynchronize(b);
    if (e != cudaSuccess)
        die("copy", e);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms;
}

/* GB/s of one copy of `bytes`, the median of REPS after one not counted. */
static double rate(void *dst, const void *src, size_t bytes, cudaMemcpyKind k, cudaStream_t s)
{
    double t[REPS];
    copy_ms(dst, src, bytes, k, s);
    for (int i = 0; i < REPS; i++)
        t[i] = bytes / (copy_ms(dst, src, bytes, k, s) * 1e6);
    return stats_median(t, REPS);
}

static int node_count(void)
{
    int n = 0;
    char path[64];
    for (;; n++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d", n);
        if (access(path, F_OK) != 0)
            return n;
    }
}

static void gpu_load(double seconds, int node)
{
    char *h = host_array(node, BYTES);
    void *d;
    cudaStream_t up, down;
    if (cudaMalloc(&d, 2 * BYTES) != cudaSuccess)
        die("cudaMalloc", cudaGetLastError());
    cudaStreamCreate(&up);
    cudaStreamCreate(&down);
    const double end = wall_seconds() + seconds;
    long long copies = 0;
    while (wall_seconds() < end) {
        cudaMemcpyAsync(d, h, BYTES / 4, cudaMemcpyHostToDevice, up);
        cudaMemcpyAsync(h + BYTES / 2, (char *)d + BYTES, BYTES / 4, cudaMemcpyDeviceToHost, down);
        cudaStreamSynchronize(up);
        cudaStreamSynchronize(down);
        copies += 2;
    }
    printf("load: %lld copies of 256 MiB from node %d in %.1f s\n", copies, node, seconds);
}

typedef struct {
    double end;
    int node;
} cpu_job;

static void *cpu_main(void *arg)
{
    const cpu_job *j = (const cpu_job *)arg;
    const size_t bytes = 256ul << 20;
    char *a = (char *)mmap(NULL, 2 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
    if (a == MAP_FAILED)
        return NULL;
    host_memory_prefer_node(a, 2 * bytes, j->node);
    memset(a, 1, 2 * bytes);
    while (wall_seconds() < j->end)
        memcpy(a + bytes, a, bytes);
    munmap(a, 2 * bytes);
    return NULL;
}

static void cpu_load(double seconds, int node)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_job j = {wall_seconds() + seconds, node};
    pthread_t *th = (pthread_t *)calloc((size_t)cpus, sizeof *th);
    for (long i = 0; i < cpus; i++)
        pthread_create(&th[i], NULL, cpu_main, &j);
    for (long i = 0; i < cpus; i++)
        pthread_join(th[i], NULL);
    printf("cpu load: %ld threads copying on node %d for %.1f s\n", cpus, node, seconds);
}

/* together: each pair's pages made in turn, 2 MiB of A then 2 MiB of B, by the same threads,
 * so that both draw on the same memory alike; else A made whole, then B (the grader's way) */
static void pairs(int n, int together)
{
    void *d;
    cudaStream_t s;
    if (cudaMalloc(&d, BYTES) != cudaSuccess)
        die("cudaMalloc", cudaGetLastError());
    cudaStreamCreate(&s);
    printf("pairs of 1 GiB arrays (%s), D2H into A against into B, 15 each, alternating:\n",
           together ? "their pages made in turn" : "one made after the other");
    for (int i = 0; i < n; i++) {
        char *a, *b;
        if (together) {
            a = shared_map(-2, BYTES);
            b = shared_map(-2, BYTES);
            fill_and_register(a, b, BYTES);
        } else {
            a = host_array(-2, BYTES);
            b = host_array(-2, BYTES);
        }
        double ta[15], tb[15], r[15];
        copy_ms(a, d, BYTES, cudaMemcpyDeviceToHost, s);
        copy_ms(b, d, BYTES, cudaMemcpyDeviceToHost, s);
        for (int k = 0; k < 15; k++) {
            ta[k] = copy_ms(a, d, BYTES, cudaMemcpyDeviceToHost, s);
            tb[k] = copy_ms(b, d, BYTES, cudaMemcpyDeviceToHost, s);
            r[k] = ta[k] / tb[k];
        }
        if (ask_huge)
            printf("  (in huge pages: %ld MiB of the pair's 2048)\n", shmem_huge_kb() / 1024);
        const double ma = stats_median(ta, 15), mb = stats_median(tb, 15);
        printf("  pair %d: A %.2f ms, B %.2f ms: A/B %.4f (medians; the paired ratios' median "
               "%.4f)\n", i, ma, mb, ma / mb, stats_median(r, 15));
        host_array_free(a, BYTES);
        host_array_free(b, BYTES);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && (!strcmp(argv[1], "pairs") || !strcmp(argv[1], "pairs-together") ||
                      !strcmp(argv[1], "pairs-huge"))) {
        ask_huge = !strcmp(argv[1], "pairs-huge");
        if (ask_huge) { /* what the host allows, and (after) what this process got */
            char line[256] = "?";
            FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "r");
            if (f && fgets(line, sizeof line, f))
                line[strcspn(line, "\n")] = 0;
            if (f)
                fclose(f);
            printf("shmem_enabled: %s\n", line);
        }
        pairs(atoi(argv[2]), !strcmp(argv[1], "pairs-together"));
        return 0;
    }
    const int gpu_node = device_host_numa_node(0);
    if (argc == 4) {
        const int node = atoi(argv[3]) < 0 ? gpu_node : atoi(argv[3]);
        if (!strcmp(argv[1], "load"))
            gpu_load(atof(argv[2]), node);
        else
            cpu_load(atof(argv[2]), node);
        return 0;
    }
    const int nodes = node_count();
    char bus[32] = "?";
    cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
    printf("GPU %s: NUMA node %d of %d\n", bus, gpu_node, nodes);
    void *d;
    cudaStream_t s;
    if (cudaMalloc(&d, BYTES) != cudaSuccess)
        die("cudaMalloc", cudaGetLastError());
    cudaStreamCreate(&s);
    for (int node = -2; node < nodes; node++) {
        if (node == -1)
            continue;
        char *h = host_array(node, BYTES);
        const double h2d = rate(d, h, BYTES, cudaMemcpyHostToDevice, s);
        const double d2h = rate(h, d, BYTES, cudaMemcpyDeviceToHost, s);
        host_array_free(h, BYTES);
        if (node < 0)
            printf("  pages where touched:  H2D %6.2f GB/s  D2H %6.2f GB/s\n", h2d, d2h);
        else
            printf("  pages on node %d%s  H2D %6.2f GB/s  D2H %6.2f GB/s\n", node,
                   node == gpu_node ? " (GPU's)" : "        ", h2d, d2h);
    }
    return 0;
}
