/* Honest: lab 05 as a CUDA graph kept from call to call: each call captures the chunked pipeline
 * (copy in, process, copy out, on four streams forked and joined by events) and, rather than
 * instantiate it again, updates the executable graph of the previous call with
 * cudaGraphExecUpdate (instantiating afresh only when the update is refused, as for a new number
 * of chunks). Correct on a GPU. The CPU emulator does not update instantiated graphs: every
 * check "cannot be checked on the CPU emulator: cudaGraphExecUpdate ... at line N; a GPU grades
 * it", nothing earned, exit status 2, never a FAIL.
 * lab: streams
 * where: emu gpu
 * expect: emu-could-not-run
 * expect: gpu-all-correct=OK
 * expect: no-accusation */
#include "streams.h"

enum { kLanes = 4, kChunks = 16 };
static cudaStream_t origin, lane[kLanes];
static cudaEvent_t fork_ev, joined[kLanes];
static cudaGraphExec_t kept; /* the previous call's graph, updated in place */

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    if (!origin) {
        cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking);
        cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming);
        for (int i = 0; i < kLanes; i++) {
            cudaStreamCreateWithFlags(&lane[i], cudaStreamNonBlocking);
            cudaEventCreateWithFlags(&joined[i], cudaEventDisableTiming);
        }
    }
    cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork_ev, origin);
    for (int i = 0; i < kLanes; i++)
        cudaStreamWaitEvent(lane[i], fork_ev, 0);
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
    cudaStreamEndCapture(origin, &graph);
    cudaGraphExecUpdateResultInfo info;
    if (!kept || cudaGraphExecUpdate(kept, graph, &info) != cudaSuccess) {
        cudaGetLastError(); /* a refused update is no error of the run */
        if (kept)
            cudaGraphExecDestroy(kept);
        cudaGraphInstantiate(&kept, graph, 0);
    }
    cudaGraphLaunch(kept, origin);
    cudaStreamSynchronize(origin);
    cudaGraphDestroy(graph);
}
