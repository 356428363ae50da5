/* Honest: lab 05 as a CUDA graph: the chunked pipeline (copy in, process, copy out) captured
 * from one stream that forks into four streams by events and joins them back, then the graph
 * instantiated, launched and waited for; streams, events and graph made and destroyed in the
 * call.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    enum { kLanes = 4, kChunks = 16 };
    cudaStream_t origin, lane[kLanes];
    cudaEvent_t fork, joined[kLanes];
    cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    for (int i = 0; i < kLanes; i++) {
        cudaStreamCreateWithFlags(&lane[i], cudaStreamNonBlocking);
        cudaEventCreateWithFlags(&joined[i], cudaEventDisableTiming);
    }
    cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork, origin);
    for (int i = 0; i < kLanes; i++)
        cudaStreamWaitEvent(lane[i], fork, 0);
    const size_t per = (n + kChunks - 1) / kChunks;
    int c = 0;
    for (size_t off = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t s = lane[c % kLanes];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s);
        process(d_out + off, d_in + off, len, s);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    for (int i = 0; i < kLanes; i++) {
        cudaEventRecord(joined[i], lane[i]);
        cudaStreamWaitEvent(origin, joined[i], 0);
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamEndCapture(origin, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, origin);
    cudaStreamSynchronize(origin);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    for (int i = 0; i < kLanes; i++) {
        cudaEventDestroy(joined[i]);
        cudaStreamDestroy(lane[i]);
    }
    cudaEventDestroy(fork);
    cudaStreamDestroy(origin);
}
