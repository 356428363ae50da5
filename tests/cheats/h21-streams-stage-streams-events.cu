/* Honest: lab 05 as three streams, one per stage (copy in, compute, copy out), chained by two
 * events per chunk (created and destroyed in the call), 32 chunks; the call waits on the last
 * chunk's event (cudaEventSynchronize) and returns.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kChunks = 32 };
    cudaStream_t in, work, out;
    cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking);
    cudaEvent_t arrived[kChunks], computed[kChunks];
    const size_t per = (n + kChunks - 1) / kChunks;
    int used = 0;
    for (size_t off = 0; off < n; off += per, used++) {
        const size_t len = n - off < per ? n - off : per;
        cudaEventCreateWithFlags(&arrived[used], cudaEventDisableTiming);
        cudaEventCreateWithFlags(&computed[used], cudaEventDisableTiming);
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, in);
        cudaEventRecord(arrived[used], in);
        cudaStreamWaitEvent(work, arrived[used], 0);
        process(d_out + off, d_in + off, len, work);
        cudaEventRecord(computed[used], work);
        cudaStreamWaitEvent(out, computed[used], 0);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, out);
    }
    cudaEvent_t done;
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    cudaEventRecord(done, out);
    cudaEventSynchronize(done);
    cudaEventDestroy(done);
    for (int i = 0; i < used; i++) {
        cudaEventDestroy(arrived[i]);
        cudaEventDestroy(computed[i]);
    }
    cudaStreamDestroy(in);
    cudaStreamDestroy(work);
    cudaStreamDestroy(out);
}
