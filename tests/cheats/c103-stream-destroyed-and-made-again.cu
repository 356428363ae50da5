/* Cheat: destroy the stream the call was given, the worker's own, and make a new one, which
 * may take the old handle (a GPU's runtime may hand the same one out again; the call takes
 * more until one lands on it), so that a question after the call finds a stream there: the
 * worker tells them apart by the stream's id, which a new stream never shares. The check of the
 * call that did it fails as the student's own every time, the cause named, as when the stream
 * is only destroyed (c99); the next check runs in a fresh process and passes. (Under the
 * emulator a destroyed stream's handle is never handed out again: there it is simply gone.)
 * lab: coalescing
 * where: emu gpu
 * expect: fails-only=^7 x 1021: prime row length$
 * expect@emu: message=^after the call the stream the grader gave your function was gone: the device was reset \(cudaDeviceReset\) or that stream was destroyed
 * expect: no-error */
#include "coalescing.h"
#include "cheat_common.cuh"

extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
    if (rows == 7 && cols == 1021) {
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
        cudaStream_t again = NULL;
        cudaStreamCreateWithFlags(&again, cudaStreamNonBlocking);
        if (again != stream) { /* a handle elsewhere: take more until one lands on it */
            cudaStream_t more[64];
            int n = 0;
            while (n < 64 && cudaStreamCreateWithFlags(&more[n], cudaStreamNonBlocking) == cudaSuccess &&
                   more[n] != stream)
                n++;
            for (int i = 0; i < n; i++)
                cudaStreamDestroy(more[i]);
        }
    }
}
