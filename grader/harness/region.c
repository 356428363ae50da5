/* region.c - the pieces of one shared region (region.h). */
#include "region.h"

#include <string.h>

size_t region_round(size_t bytes, size_t align)
{
    if (bytes == 0)
        bytes = 1; /* a buffer of no bytes still has an address of its own */
    return (bytes + align - 1) / align * align;
}

void region_init(region_map *r, size_t bytes, size_t align)
{
    memset(r, 0, sizeof *r);
    r->bytes = bytes / align * align;
    r->align = align;
}

int region_take(region_map *r, size_t bytes, size_t *at)
{
    if (r->n == REGION_MAX_PIECES || r->align == 0)
        return 0;
    const size_t size = region_round(bytes, r->align);
    size_t from = 0;
    int i = 0;
    for (; i <= r->n; i++) { /* the gap before piece i (before the end, for i == n) */
        const size_t to = i < r->n ? r->piece[i].at : r->bytes;
        if (to >= from && to - from >= size)
            break;
        if (i < r->n)
            from = r->piece[i].at + r->piece[i].bytes;
    }
    if (i > r->n)
        return 0;
    memmove(&r->piece[i + 1], &r->piece[i], (size_t)(r->n - i) * sizeof r->piece[0]);
    r->piece[i].at = from;
    r->piece[i].bytes = size;
    r->n++;
    r->used += size;
    if (r->used > r->peak)
        r->peak = r->used;
    *at = from;
    return 1;
}

int region_give(region_map *r, size_t at, size_t *bytes)
{
    for (int i = 0; i < r->n; i++)
        if (r->piece[i].at == at) {
            *bytes = r->piece[i].bytes;
            r->used -= r->piece[i].bytes;
            memmove(&r->piece[i], &r->piece[i + 1], (size_t)(r->n - i - 1) * sizeof r->piece[0]);
            r->n--;
            return 1;
        }
    return 0;
}
