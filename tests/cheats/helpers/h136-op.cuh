/* kern/op.cuh - h136's helper header, in a subfolder: a transpose kernel whose row test is
 * one past (`r <= rows`), so the threads of the row after the last read past the input. */
#ifndef H136_OP_CUH
#define H136_OP_CUH

__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r <= rows && c < cols) /* the bug: one row too many */
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

#endif
