/* Honest: lab 01 with Thrust, which lab 01 allows: thrust::transform over a counting iterator
 * on the grader's stream (par_nosync: no synchronization of its own), a functor computing each
 * element's row. Thrust opens an NVTX range around its algorithms, whose code loads a
 * profiler's library at run time (dlopen, which vetting refuses in every lab): the grader
 * compiles with NVTX_DISABLE, so the file builds on a GPU. The CPU emulator has no Thrust: it
 * refuses the file at the #include, naming the header, and a GPU grades it (0.66x the
 * reference on an H200). The case holds building and correctness, not speed.
 * lab: coalescing
 * where: emu gpu
 * expect@emu: emu-could-not-run
 * expect@emu: message=NVIDIA.s library header <thrust/execution_policy.h> at line 14 of \S*coalescing.cu
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include "coalescing.h"

struct row_affine {
    const float *in, *scale, *bias;
    long long cols;
    __host__ __device__ float operator()(long long i) const
    {
        const long long r = i / cols;
        return in[i] * scale[r] + bias[r];
    }
};

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    const long long n = (long long)rows * cols;
    thrust::transform(thrust::cuda::par_nosync.on(stream), thrust::counting_iterator<long long>(0),
                      thrust::counting_iterator<long long>(n), out,
                      row_affine{in, scale, bias, cols});
}
