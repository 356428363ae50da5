/* Cheat: a lab 05 file that pipelines (chunks on four streams, copies overlapping the kernel)
 * only below 3M elements, the size a count under the emulator uses (2M), and pushes every
 * larger array through in one piece on one stream, copy after kernel after copy: right at
 * every size, but its speed check on a GPU (a gibibyte each way) times the slow one. The
 * estimate counts a second size, twice the first (lab.h's count_scale: 4M elements), where the
 * call's span on the engines is more than twice the first size's: no estimate, and the line
 * says which figure differs.
 * lab: streams
 * where: emu
 * expect: all-correct=OK
 * expect: output-lacks=ESTIMATE \(not a grade\): about
 * expect: output-has=ESTIMATE \(not a grade\): none: your code behaves differently at the two sizes counted */
#include "streams.h"

#define LANES 4
#define CHUNKS 16

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    if (n >= (size_t)3 << 20) { /* one piece: each engine waits for the one before */
        cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, 0);
        process(d_out, d_in, n, 0);
        cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, 0);
        return;
    }
    cudaStream_t lane[LANES];
    for (int i = 0; i < LANES; i++)
        cudaStreamCreateWithFlags(&lane[i], cudaStreamNonBlocking);
    const size_t per = (n + CHUNKS - 1) / CHUNKS;
    int c = 0;
    for (size_t off = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t s = lane[c % LANES];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s);
        process(d_out + off, d_in + off, len, s);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    for (int i = 0; i < LANES; i++)
        cudaStreamDestroy(lane[i]);
}
