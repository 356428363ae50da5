/* A well-behaved student file: its own kernel and helper, the entry point. */
#include "coalescing.h"
__device__ float helper(float x, float s, float b) { return x * s + b; }
__global__ void k(float *o, const float *i, const float *s, const float *b, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c < cols) o[(size_t)r * cols + c] = helper(i[(size_t)r * cols + c], s[r], b[r]);
}
int my_helper_count = 0; /* a global of its own: made local by the vetting */
void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    my_helper_count++;
    k<<<dim3((cols + 255) / 256, rows), 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
