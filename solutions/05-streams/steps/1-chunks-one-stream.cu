/* Lab 05, rung 1: 64 chunks, one stream.
 *
 * Changed from the skeleton: the array goes through in 64 chunks, each with its own copy-in,
 * kernel and copy-out, all on ONE stream. Why look at it: it shows that chunking alone buys
 * nothing. Work in one stream runs in issue order, so the copy engines and the SMs still take
 * turns, and each of the 192 operations adds a few microseconds of fixed cost: a little slower
 * than the skeleton. Overlap needs work in different streams (rung 2). */
#define CHUNKS 64  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 1 /* streams the chunks take turns on */
#include "streams_rung.cuh" /* streams(), for these chunks and streams */
