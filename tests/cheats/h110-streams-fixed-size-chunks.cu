/* Honest: lab 05 in chunks of a fixed size (700,000 elements, about 2.7 MiB), over four
 * non-blocking streams: copy in, process, copy out, each chunk on its stream. At the lab's size
 * on a GPU (1 GiB each way) that is some 380 chunks, a pipeline as full as the reference's; at
 * the emulator's counted sizes it is 3 and 6 chunks, whose fill and drain weigh a third and a
 * sixth of the span. The estimate takes each call's span at the lab's size, the fill and drain
 * shrunk as they shrank between the two counts (the reference's too), so it is not put below the
 * mark for a share that a GPU's size makes small.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect@gpu: speed=OK
 * expect@emu: where-lacks=ESTIMATE \(not a grade\): about 0\.[0-7][0-9]x
 * expect@emu: output-has=ESTIMATE \(not a grade\): about [0-9.]+x the reference on the [^(]*\(the mark: 0\.80x\), (at or above the mark|just above the mark) */
#include "streams.h"

#define LANES 4
#define CHUNK ((size_t)700000) /* elements */

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    cudaStream_t lane[LANES];
    for (int i = 0; i < LANES; i++)
        cudaStreamCreateWithFlags(&lane[i], cudaStreamNonBlocking);
    int c = 0;
    for (size_t off = 0; off < n; off += CHUNK, c++) {
        const size_t len = n - off < CHUNK ? n - off : CHUNK;
        cudaStream_t s = lane[c % LANES];
        cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s);
        process(d_out + off, d_in + off, len, s);
        cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s);
    }
    for (int i = 0; i < LANES; i++)
        cudaStreamDestroy(lane[i]);
}
