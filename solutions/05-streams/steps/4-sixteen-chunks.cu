/* Lab 05, rung 4: 16 chunks over four streams.
 *
 * Changed from rung 3: 16 chunks instead of 4. Why: fill and drain shrink to a sixteenth of a
 * stage's total; the time approaches the busiest stage alone. The reference goes to 64 chunks
 * (chunks of at least 1 MiB, so the few microseconds each copy and launch cost stay small), and
 * sizes the chunk count from n and the GPU's copy engines. */
#define CHUNKS 16  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 4 /* streams the chunks take turns on */
#include "streams_rung.cuh" /* streams(), for these chunks and streams */
