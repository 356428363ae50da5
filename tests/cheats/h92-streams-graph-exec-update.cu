/* Honest: lab 05 as CUDA graphs, one executable graph updated in place. Each call captures the
 * chunked pipeline of the array's first half (copy in, process, copy out, on four streams forked
 * and joined by events), instantiates and launches it, then captures the second half the same
 * way and, rather than instantiate again, updates the executable graph with cudaGraphExecUpdate
 * (instantiating afresh only if the update is refused) and launches it. Every stream, event and
 * graph is made and destroyed within the call, as the lab's rules ask. Correct on a GPU. The CPU
 * emulator does not update instantiated graphs: every check "cannot be checked on the CPU
 * emulator: cudaGraphExecUpdate ... at line N; a GPU grades it", nothing earned, exit status 2,
 * never a FAIL.
 * lab: streams
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include "streams.h"

enum { kLanes = 4, kChunksPerHalf = 8 };

/* Capture [begin, end) as chunks spread over the lanes, forked from and joined to origin. */
static cudaGraph_t capture(float *h_out, const float *h_in, float *d_out, float *d_in,
                           size_t begin, size_t end, streams_kernel process, cudaStream_t origin,
                           const cudaStream_t *lane, cudaEvent_t fork_ev, const cudaEvent_t *joined)
{
    cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork_ev, origin);
    for (int i = 0; i < kLanes; i++)
        cudaStreamWaitEvent(lane[i], fork_ev, 0);
    const size_t per = (end - begin + kChunksPerHalf - 1) / kChunksPerHalf;
    int c = 0;
    for (size_t off = begin; off < end; off += per, c++) {
        const size_t len = end - off < per ? end - off : per;
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
    cudaStreamEndCapture(origin, &graph);
    return graph;
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    if (n == 0)
        return;
    cudaStream_t origin, lane[kLanes];
    cudaEvent_t fork_ev, joined[kLanes];
    cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming);
    for (int i = 0; i < kLanes; i++) {
        cudaStreamCreateWithFlags(&lane[i], cudaStreamNonBlocking);
        cudaEventCreateWithFlags(&joined[i], cudaEventDisableTiming);
    }
    const size_t half = n / 2;
    cudaGraphExec_t exec = NULL;
    cudaGraph_t first = half > 0 ? capture(h_out, h_in, d_out, d_in, 0, half, process, origin,
                                           lane, fork_ev, joined)
                                 : NULL;
    if (first) {
        cudaGraphInstantiate(&exec, first, 0);
        cudaGraphLaunch(exec, origin);
        cudaGraphDestroy(first);
    }
    cudaGraph_t second = capture(h_out, h_in, d_out, d_in, half, n, process, origin, lane,
                                 fork_ev, joined);
    cudaGraphExecUpdateResultInfo info;
    if (!exec || cudaGraphExecUpdate(exec, second, &info) != cudaSuccess) {
        cudaGetLastError(); /* a refused update is no error of the run */
        if (exec)
            cudaGraphExecDestroy(exec);
        cudaGraphInstantiate(&exec, second, 0);
    }
    cudaGraphLaunch(exec, origin);
    cudaStreamSynchronize(origin);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(second);
    for (int i = 0; i < kLanes; i++) {
        cudaStreamDestroy(lane[i]);
        cudaEventDestroy(joined[i]);
    }
    cudaEventDestroy(fork_ev);
    cudaStreamDestroy(origin);
}
