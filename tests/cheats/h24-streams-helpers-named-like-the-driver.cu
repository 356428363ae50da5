/* Honest: lab 05 with helpers of the student's own whose names look like the driver API's or
 * the runtime's (cuChunkFloats, cudaLikeCopy, a cuStreamRing struct): defined in this file,
 * so they are the student's, whatever the name. 16 chunks over 4 streams.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

struct cuStreamRing {
    cudaStream_t s[4];
};

/* floats per chunk: n in `parts` pieces, the last one shorter */
static size_t cuChunkFloats(size_t n, size_t parts) { return (n + parts - 1) / parts; }

static void cudaLikeCopy(float *dst, const float *src, size_t len, cudaMemcpyKind kind,
                         cudaStream_t s)
{
    cudaMemcpyAsync(dst, src, len * sizeof(float), kind, s);
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    cuStreamRing ring;
    for (int i = 0; i < 4; i++)
        cudaStreamCreateWithFlags(&ring.s[i], cudaStreamNonBlocking);
    const size_t per = cuChunkFloats(n, 16);
    for (size_t off = 0, c = 0; off < n; off += per, c++) {
        const size_t len = n - off < per ? n - off : per;
        cudaStream_t st = ring.s[c % 4];
        cudaLikeCopy(d_in + off, h_in + off, len, cudaMemcpyHostToDevice, st);
        process(d_out + off, d_in + off, len, st);
        cudaLikeCopy(h_out + off, d_out + off, len, cudaMemcpyDeviceToHost, st);
    }
    for (int i = 0; i < 4; i++) {
        cudaStreamSynchronize(ring.s[i]);
        cudaStreamDestroy(ring.s[i]);
    }
}
