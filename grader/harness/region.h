/* region.h - the pieces of one shared region: where in it each buffer lies (no memory here,
 * offsets alone; no GPU). A region is one allocation the harness shares with its workers, which
 * each map it once (worker_regions_trusted.cu): a correctness check's buffers, or a speed
 * check's problems, are pieces of it, each at an `align` boundary as if it were an allocation
 * of its own. First fit, lowest offset first; a piece given back leaves a gap the next piece
 * that fits takes. */
#ifndef GRADER_HARNESS_REGION_H
#define GRADER_HARNESS_REGION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REGION_MAX_PIECES 384 /* buffers one region holds at once (48 problems of 8) */

typedef struct region_piece {
    size_t at;    /* offset from the region's start, a multiple of align */
    size_t bytes; /* its size, rounded up to align */
} region_piece;

typedef struct region_map {
    size_t bytes;  /* the region's size */
    size_t align;  /* every piece's start and size a multiple of it (a power of two) */
    int n;         /* pieces in use, sorted by offset */
    region_piece piece[REGION_MAX_PIECES];
    size_t used;   /* bytes of the pieces in use */
    size_t peak;   /* the most `used` has been since region_init */
} region_map;

/* bytes rounded up to a multiple of align (a power of two) */
size_t region_round(size_t bytes, size_t align);
void region_init(region_map *r, size_t bytes, size_t align);
/* A piece of `bytes` (rounded up to align): 1 with *at its offset, 0 when no gap holds it (or
 * the region holds REGION_MAX_PIECES already). */
int region_take(region_map *r, size_t bytes, size_t *at);
/* The piece at offset `at` given back: 1 with *bytes its rounded size (what to zero), 0 when no
 * piece starts there. */
int region_give(region_map *r, size_t at, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
