/* buffer.h - device buffers with guard zones, poisoning and host round trips.
 *
 * Layout of one allocation:   [ guard | data (bytes, 256-aligned) | guard ]  (guards optional)
 * The guards hold a known pattern; a kernel that writes one element past either end of its
 * output changes it, and dbuf_guards_intact says where. Outputs are poisoned (all bytes
 * 0xFF, a NaN for every float) before every call, so an element the kernel never wrote
 * cannot pass for a right answer left over from an earlier call. */
#ifndef COMMON_BUFFER_H
#define COMMON_BUFFER_H

#include <stddef.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DBUF_GUARD_BYTES 4096 /* each side; a multiple of 256 keeps data aligned like cudaMalloc */
#define DBUF_POISON_BYTE 0xFF /* 0xFFFFFFFF is a NaN as a float, -1 as an int */

typedef struct dbuf {
    unsigned char *base; /* the cudaMalloc'd allocation, guards included */
    void *data;          /* base + DBUF_GUARD_BYTES: what kernels get */
    size_t bytes;        /* usable bytes at data */
    size_t guard;        /* bytes of guard on each side: DBUF_GUARD_BYTES, or 0 (none) */
} dbuf;

/* Where dbuf memory comes from: cudaMalloc/cudaFree unless an allocator is set (the grader's
 * harness allocates memory it can share with worker processes). */
typedef void *(*dbuf_alloc_fn)(size_t bytes);
typedef void (*dbuf_free_fn)(void *base);
void dbuf_set_allocator(dbuf_alloc_fn alloc, dbuf_free_fn release);

/* Guard zones on (the default) or off for later allocations. Off, an allocation is exactly
 * its data, so a tool that tracks allocations (compute-sanitizer's memcheck) reports a write
 * past an output itself; dbuf_guards_intact then has nothing to check and says intact. */
void dbuf_set_guards(int on);

/* Allocate `bytes` usable bytes with guards on both sides; the data starts poisoned. */
void dbuf_alloc(dbuf *b, size_t bytes);
void dbuf_free(dbuf *b);

/* Fill the data with DBUF_POISON_BYTE on stream s (not synchronised). */
void dbuf_poison(dbuf *b, cudaStream_t s);

/* Copy host -> data and data -> host (synchronous). */
void dbuf_upload(dbuf *b, const void *host, size_t bytes);
void dbuf_download(const dbuf *b, void *host, size_t bytes);

/* 1 if both guards still hold their pattern. Otherwise 0, with *offset set to the first
 * changed byte relative to the data start: negative before it, >= bytes after it. */
int dbuf_guards_intact(const dbuf *b, long long *offset);

/* 1 if the data still equals host[0..bytes) bit for bit (an input the kernel must not
 * modify); otherwise 0 with *first_diff the first differing byte. Costs a download. */
int dbuf_matches_host(const dbuf *b, const void *host, size_t bytes, size_t *first_diff);

#ifdef __cplusplus
}
#endif
#endif
