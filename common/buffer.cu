/* buffer.cu - guarded, poisoned device buffers. See buffer.h. */
#include "buffer.h"
#include "check.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Position-dependent, so a shifted copy of the guard does not pass for the guard. */
static unsigned char guard_pattern(size_t i) { return (unsigned char)(0x5A ^ (i * 131u)); }

static void guard_fill(unsigned char *host, size_t n)
{
    for (size_t i = 0; i < n; i++)
        host[i] = guard_pattern(i);
}

static dbuf_alloc_fn alloc_fn;
static dbuf_free_fn free_fn;
static size_t guard_bytes = DBUF_GUARD_BYTES; /* each side: DBUF_GUARD_BYTES, or 0 */

void dbuf_set_guards(int on) { guard_bytes = on ? DBUF_GUARD_BYTES : 0; }

void dbuf_set_allocator(dbuf_alloc_fn alloc, dbuf_free_fn release)
{
    alloc_fn = alloc;
    free_fn = release;
}

void dbuf_alloc(dbuf *b, size_t bytes)
{
    unsigned char guard[DBUF_GUARD_BYTES];
    b->bytes = bytes;
    b->guard = guard_bytes;
    if (alloc_fn)
        b->base = (unsigned char *)alloc_fn(bytes + 2 * b->guard);
    else
        CUDA_CHECK(cudaMalloc((void **)&b->base, bytes + 2 * b->guard));
    b->data = b->base + b->guard;
    if (b->guard) {
        guard_fill(guard, sizeof guard);
        CUDA_CHECK(cudaMemcpy(b->base, guard, sizeof guard, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy((unsigned char *)b->data + bytes, guard, sizeof guard,
                              cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaMemset(b->data, DBUF_POISON_BYTE, bytes));
}

void dbuf_free(dbuf *b)
{
    if (b->base && free_fn)
        free_fn(b->base);
    else if (b->base)
        CUDA_CHECK(cudaFree(b->base));
    memset(b, 0, sizeof *b);
}

void dbuf_poison(dbuf *b, cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(b->data, DBUF_POISON_BYTE, b->bytes, s));
}

/* cudaMemcpy from pageable host memory returns once the data is staged, possibly before the
 * last of its DMA has reached the device (the runtime's "API synchronization behavior"), and a
 * stream created non-blocking, as the harness's is, is not ordered after it: a copy on that
 * stream could read the buffer's tail still poisoned (lab 09's C restored from C0 read NaN
 * past 15 MiB: tests/gpu/upload-race-probe.cu). So the upload ends only once it has landed. */
void dbuf_upload(dbuf *b, const void *host, size_t bytes)
{
    CUDA_CHECK(cudaMemcpy(b->data, host, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
}

void dbuf_download(const dbuf *b, void *host, size_t bytes)
{
    CUDA_CHECK(cudaMemcpy(host, b->data, bytes, cudaMemcpyDeviceToHost));
}

int dbuf_guards_intact(const dbuf *b, long long *offset)
{
    unsigned char got[DBUF_GUARD_BYTES];
    if (!b->guard)
        return 1;
    CUDA_CHECK(cudaMemcpy(got, b->base, sizeof got, cudaMemcpyDeviceToHost));
    /* the byte nearest the data is the likeliest to be hit: scan outward from it */
    for (size_t i = DBUF_GUARD_BYTES; i-- > 0;)
        if (got[i] != guard_pattern(i)) {
            *offset = (long long)i - DBUF_GUARD_BYTES;
            return 0;
        }
    CUDA_CHECK(cudaMemcpy(got, (const unsigned char *)b->data + b->bytes, sizeof got,
                          cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < DBUF_GUARD_BYTES; i++)
        if (got[i] != guard_pattern(i)) {
            *offset = (long long)(b->bytes + i);
            return 0;
        }
    return 1;
}

int dbuf_matches_host(const dbuf *b, const void *host, size_t bytes, size_t *first_diff)
{
    unsigned char *copy = (unsigned char *)xmalloc(bytes);
    dbuf_download(b, copy, bytes);
    const unsigned char *h = (const unsigned char *)host;
    int same = memcmp(copy, h, bytes) == 0;
    if (!same) {
        size_t i = 0;
        while (copy[i] == h[i])
            i++;
        *first_diff = i;
    }
    free(copy);
    return same;
}
