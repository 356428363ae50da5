/* Lab 04, rung 4: eight per thread.
 *
 * Changed from rung 3: 8 float4 loads per iteration; 8 chains per thread. Why try: more
 * independent work per thread. What it shows: more is not always better. Arithmetic got
 * slower: 8 chains need more registers and longer unrolled bodies, and 4 chains had already
 * filled the pipe. Memory barely moved: ptxas hoisted stores between the loads, so only about
 * 4 loads are really in flight before the first store (read the SASS). */
#define LOADS 8  /* float4 loads per thread before the first store */
#define CHAINS 8 /* chains a thread advances side by side */
#include "ilp_loads.cuh"  /* the memory kernel and ilp_memory */
#include "ilp_chains.cuh" /* the arithmetic kernel and ilp_arith */
