/* Honest: lab 05 in a C-library style whose every function starts like the driver API's
 * (cuPoolCreate, cuPoolSubmit, cuPoolDestroy: a pool of 4 streams with events between
 * chunks, all on the runtime API) and a global counter named cuGetProcAddressCalls. 32
 * chunks round-robin over the pool.
 * lab: streams
 * where: emu gpu
 * expect: all-correct=OK
 * expect: speed=OK
 * expect: no-accusation
 * expect: no-error */
#include "streams.h"

typedef struct cuPool {
    cudaStream_t stream[4];
    int next;
} cuPool;

int cuGetProcAddressCalls; /* how many chunks were submitted (a name of the student's own) */

static void cuPoolCreate(cuPool *p)
{
    for (int i = 0; i < 4; i++)
        cudaStreamCreateWithFlags(&p->stream[i], cudaStreamNonBlocking);
    p->next = 0;
}

static void cuPoolSubmit(cuPool *p, float *h_out, const float *h_in, float *d_out, float *d_in,
                         size_t len, streams_kernel process)
{
    cudaStream_t s = p->stream[p->next++ % 4];
    cudaMemcpyAsync(d_in, h_in, len * sizeof(float), cudaMemcpyHostToDevice, s);
    process(d_out, d_in, len, s);
    cudaMemcpyAsync(h_out, d_out, len * sizeof(float), cudaMemcpyDeviceToHost, s);
    cuGetProcAddressCalls++;
}

static void cuPoolDestroy(cuPool *p)
{
    for (int i = 0; i < 4; i++) {
        cudaStreamSynchronize(p->stream[i]);
        cudaStreamDestroy(p->stream[i]);
    }
}

void streams(float *h_out, const float *h_in, float *d_out, float *d_in, size_t n,
             streams_kernel process)
{
    cuPool pool;
    cuPoolCreate(&pool);
    const size_t per = (n + 31) / 32;
    for (size_t off = 0; off < n; off += per) {
        const size_t len = n - off < per ? n - off : per;
        cuPoolSubmit(&pool, h_out + off, h_in + off, d_out + off, d_in + off, len, process);
    }
    cuPoolDestroy(&pool);
}
