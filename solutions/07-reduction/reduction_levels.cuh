/* reduction_levels.cuh - lab 07's host side, written once for ladder rungs 1 to 5: one launch
 * per tree level. Each block reduces PER_BLOCK elements to one partial sum, and the partial sums
 * ping-pong between two halves of scratch until one value is left. A rung defines THREADS
 * (threads per block), PER_BLOCK and REDUCE_KERNEL (its kernel, a template's instance
 * included) before it includes this file, after its anonymous namespace ends. */
#if !defined(THREADS) || !defined(PER_BLOCK) || !defined(REDUCE_KERNEL)
#error "define THREADS, PER_BLOCK and REDUCE_KERNEL before including reduction_levels.cuh"
#endif

void reduction(float *result, const float *in, long long n, float *scratch, cudaStream_t stream)
{
    float *level[2] = {scratch, scratch + (n + THREADS - 1) / THREADS};
    const float *src = in;
    long long m = n;
    int pass = 0;
    do {
        const long long blocks = (m + PER_BLOCK - 1) / PER_BLOCK;
        float *dst = blocks == 1 ? result : level[pass & 1];
        REDUCE_KERNEL<<<(unsigned)blocks, THREADS, 0, stream>>>(dst, src, m);
        CUDA_CHECK_LAUNCH();
        src = dst;
        m = blocks;
        pass++;
    } while (m > 1);
}
