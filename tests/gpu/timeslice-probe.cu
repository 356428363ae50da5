/* timeslice-probe.cu - how the GPU shares itself between two processes' contexts, the fact the
 * harness's timing from outside rests on (tests/gpu/run-all.sh timeslice).
 *
 *   nvcc -O2 -o build/timeslice-probe tests/gpu/timeslice-probe.cu && build/timeslice-probe
 *
 * A child process (its own CUDA context) launches a kernel that spins for BUSY_MS and tells
 * the parent once it is launched. The parent (another context), while that kernel runs:
 *  1. launches an empty kernel and synchronizes: how long until its own work ran (a whole
 *     BUSY_MS means it waited for the other context to finish; less, a time slice);
 *  2. launches a kernel that spins for PROBE_MS reading %globaltimer and counts the gaps
 *     (intervals without a read longer than 20 us): each is a time the context was switched
 *     out while the other one ran, so the gaps measure the time slice.
 * The same again with the child idle is the control (no gap expected). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUSY_MS 200
#define PROBE_MS 60

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                            \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static __device__ unsigned long long gtime(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(unsigned long long ns)
{
    const unsigned long long t0 = gtime();
    while (gtime() - t0 < ns) {
    }
}

/* One thread per SM spins and records its gaps: out[0] gaps, out[1] their total ns, out[2]
 * the longest, out[3] the first gap's start after the kernel's start. */
__global__ void probe(unsigned long long ns, unsigned long long *out)
{
    const unsigned long long t0 = gtime();
    unsigned long long last = t0, gaps = 0, total = 0, longest = 0, first = 0;
    for (;;) {
        const unsigned long long t = gtime();
        if (t - last > 20000) {
            if (!gaps)
                first = last - t0;
            gaps++;
            total += t - last;
            if (t - last > longest)
                longest = t - last;
        }
        last = t;
        if (t - t0 > ns)
            break;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = gaps, out[1] = total, out[2] = longest, out[3] = first;
    }
}

__global__ void empty(void) {}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void measure(const char *label, int go_fd, int ready_fd, int busy)
{
    unsigned long long *d, h[4];
    CK(cudaMalloc(&d, sizeof h));
    empty<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    char c = busy ? 'b' : 'i';
    if (write(go_fd, &c, 1) != 1 || read(ready_fd, &c, 1) != 1)
        exit(1);
    usleep(2000); /* the child's kernel is resident by now */
    double t0 = now_ms();
    empty<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    const double null_ms = now_ms() - t0;
    t0 = now_ms();
    probe<<<1, 32>>>(PROBE_MS * 1000000ull, d);
    CK(cudaDeviceSynchronize());
    const double probe_ms = now_ms() - t0;
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("%-34s null kernel after %7.3f ms; %d ms probe took %7.2f ms, %llu gaps (%.2f ms in all, "
           "longest %.3f ms, first after %.3f ms)\n",
           label, null_ms, PROBE_MS, probe_ms, h[0], h[1] / 1e6, h[2] / 1e6, h[3] / 1e6);
    if (read(ready_fd, &c, 1) != 1) /* the child's kernel ended */
        exit(1);
    CK(cudaFree(d));
}

int main(void)
{
    int go[2], ready[2];
    if (pipe(go) || pipe(ready))
        return 1;
    setvbuf(stdout, NULL, _IONBF, 0);
    alarm(60); /* whatever happens, this ends */
    const pid_t pid = fork();
    if (pid == 0) { /* the other context */
        char c;
        close(go[1]); /* else its own copy keeps the pipe open and the loop never ends */
        close(ready[0]);
        empty<<<1, 1>>>();
        CK(cudaDeviceSynchronize());
        while (read(go[0], &c, 1) == 1) {
            if (c == 'b')
                spin<<<132 * 4, 256>>>(BUSY_MS * 1000000ull);
            if (write(ready[1], "r", 1) != 1)
                return 1;
            CK(cudaDeviceSynchronize());
            if (write(ready[1], "d", 1) != 1)
                return 1;
        }
        return 0;
    }
    close(go[0]);
    close(ready[1]);
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("%s, two processes (two contexts), no MPS\n", p.name);
    for (int rep = 0; rep < 3; rep++) {
        measure("other context idle:", go[1], ready[0], 0);
        measure("other context running a kernel:", go[1], ready[0], 1);
    }
    close(go[1]);
    waitpid(pid, NULL, 0);
    return 0;
}
