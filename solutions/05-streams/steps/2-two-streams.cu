/* Lab 05, rung 2: 64 chunks over two streams.
 *
 * Changed from rung 1: chunks alternate between 2 non-blocking streams. Why: work in different
 * streams carries no order, so chunk i's kernel can run while chunk i+1 is copied in. But a
 * chunk passes through three stages (in, compute, out) and two streams hold only two chunks
 * at once: chunk i+2 waits, in its stream's order, until chunk i has finished copying out.
 * Two of the three engines are busy at a time: better, not yet the ideal. */
#define CHUNKS 64  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 2 /* streams the chunks take turns on */
#include "streams_rung.cuh" /* streams(), for these chunks and streams */
