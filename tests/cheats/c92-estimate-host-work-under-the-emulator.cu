/* Cheat: a lab 01 file that asks the device its name and, under the CPU emulator (whose
 * device memory the host can read and write), does the work on the host through cudaMemcpy
 * and launches one kernel that touches nothing; on a GPU it runs the skeleton's strided
 * kernel. Right everywhere, and a count of its kernel alone would make it look hundreds of
 * times faster than the reference. The estimate holds what the count saw to what the task
 * moves at the least (the lab's footprint: in and out once): a call that touched under half of
 * it did its work where the emulator does not count, and gets no estimate.
 * lab: coalescing
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your counted call touched in its kernels' loads and stores [0-9]+ bytes where the task moves [0-9]+ at the least */
#include "coalescing.h"

#include <stdlib.h>
#include <string.h>

__global__ void nothing(float *out) { (void)out; }

__global__ void strided(float *out, const float *in, const float *scale, const float *bias,
                        int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++)
        out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

static int on_the_emulator(void)
{
    cudaDeviceProp p;
    return cudaGetDeviceProperties(&p, 0) == cudaSuccess && strstr(p.name, "emulator") != NULL;
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    if (!on_the_emulator()) {
        strided<<<(rows + 127) / 128, 128, 0, stream>>>(out, in, scale, bias, rows, cols);
        return;
    }
    const size_t n = (size_t)rows * cols;
    float *h = (float *)malloc(n * sizeof(float) + 2 * (size_t)rows * sizeof(float));
    float *hs = h + n, *hb = hs + rows;
    cudaMemcpyAsync(h, in, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(hs, scale, rows * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(hb, bias, rows * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    for (size_t i = 0; i < n; i++)
        h[i] = h[i] * hs[i / cols] + hb[i / cols];
    cudaMemcpyAsync(out, h, n * sizeof(float), cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
    free(h);
    nothing<<<1, 32, 0, stream>>>(out);
}
