/* Lab 05, rung 3: four streams, but only 4 chunks.
 *
 * Changed from rung 2: 4 streams (three stages in flight and one of slack), and 4 chunks.
 * Why: with enough streams all three engines can work at once, but the pipeline must fill and
 * drain: the first chunk's copy-in and the last chunk's copy-out run with nothing beside them.
 * That costs (T_in + T_kernel + T_out - the busiest) / chunks: with 4 chunks, about a third of
 * the whole time. Rung 4 cuts the chunks finer. */
#define CHUNKS 4  /* pieces of the array (fewer when n is smaller) */
#define STREAMS 4 /* streams the chunks take turns on */
#include "streams_rung.cuh" /* streams(), for these chunks and streams */
