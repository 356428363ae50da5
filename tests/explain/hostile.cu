/* tests/explain/hostile.cu - a lab 01 file written against make explain itself (tests/explain/
 * run.sh grades nothing with it): correct, and every line the emulator counts names something
 * the grader must treat as data. Its costliest access is on a line of its own that carries raw
 * control bytes and markup (ESC sequences that set a terminal's title and clear its screen, a
 * backspace, DEL, a C1 CSI, a right-to-left override, a byte that is not UTF-8, and XML that
 * would end the picture's SVG early); the other accesses are each put by a #line directive in
 * another file: the transpose reference's source, /dev/zero, a named pipe (the test makes it,
 * with no writer), /etc/shadow, and a "file" whose name is control bytes and markup. make
 * explain must finish, quote nothing of those files, show every name and line as escapes, and
 * draw a picture that is well-formed XML. */
#include "coalescing.h"

__global__ void own_line_kernel(float *out, const float *in, const float *scale,
                                const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int c = 0; c < cols; c++)
            /* ]0;owned[2J‮�</text></svg>&<script>&amp; */ out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

__global__ void reference_line_kernel(float *, const float *, const float *, const float *, int, int);
__global__ void zero_line_kernel(float *, const float *, const float *, const float *, int, int);
__global__ void fifo_line_kernel(float *, const float *, const float *, const float *, int, int);
__global__ void shadow_line_kernel(float *, const float *, const float *, const float *, int, int);
__global__ void control_name_kernel(float *, const float *, const float *, const float *, int, int);

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows,
                int cols, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)((rows + 31) / 32);
    own_line_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
    reference_line_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
    zero_line_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
    fifo_line_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
    shadow_line_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
    control_name_kernel<<<blocks, 32, 0, stream>>>(out, in, scale, bias, rows, cols);
}

/* Each recomputes column 0, one thread per row, at a place a #line names. */
#define COLUMN_0 \
    const int r = blockIdx.x * blockDim.x + threadIdx.x; \
    if (r < rows)
__global__ void reference_line_kernel(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    COLUMN_0
#line 40 "solutions/06-transpose/transpose.cu"
        out[(size_t)r * cols] = in[(size_t)r * cols] * scale[r] + bias[r];
}
__global__ void zero_line_kernel(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    COLUMN_0
#line 1 "/dev/zero"
        out[(size_t)r * cols] = in[(size_t)r * cols] * scale[r] + bias[r];
}
__global__ void fifo_line_kernel(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    COLUMN_0
#line 1 "build/explain-test-hostile.fifo"
        out[(size_t)r * cols] = in[(size_t)r * cols] * scale[r] + bias[r];
}
__global__ void shadow_line_kernel(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    COLUMN_0
#line 1 "/etc/shadow"
        out[(size_t)r * cols] = in[(size_t)r * cols] * scale[r] + bias[r];
}
__global__ void control_name_kernel(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    COLUMN_0
#line 7 "\033]0;owned\007\033[2J\177<text>&<x a='\"'>]]>.cu"
        out[(size_t)r * cols] = in[(size_t)r * cols] * scale[r] + bias[r];
}
