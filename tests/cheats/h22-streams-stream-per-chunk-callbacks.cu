/* Honest: lab 05 with a stream of its own for every chunk (48 streams created and destroyed
 * in each call, every stream destroyed as soon as its chunk is queued), priorities taken in
 * turn, a host callback after each chunk (cudaLaunchHostFunc) that counts it, and a
 * cudaDeviceSynchronize before returning.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

static long g_chunks_done; /* written by the callbacks (one at a time, in the runtime's thread) */

static void CUDART_CB chunk_done(void *) { g_chunks_done++; }

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kChunks = 48 };
    int lo = 0, hi = 0;
    cudaDeviceGetStreamPriorityRange(&lo, &hi);
    const size_t per = (n + kChunks - 1) / kChunks;
    for (size_t off = 0, c = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st;
        cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, c % 2 ? lo : hi);
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, st);
        process(d_out + off, d_in + off, len, st);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, st);
        cudaLaunchHostFunc(st, chunk_done, nullptr);
        cudaStreamDestroy(st); /* its work finishes first */
    }
    cudaDeviceSynchronize();
}
