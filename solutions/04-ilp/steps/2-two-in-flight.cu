/* Lab 04, rung 2: two independent operations in flight per thread.
 *
 * Changed from rung 1: memory loads 2 float4 before it stores any; arithmetic advances 2
 * elements' chains side by side. Why: Little's law again. Arithmetic: 2 chains per thread
 * give each scheduler 4 independent FMAs per 4-cycle latency instead of 2: nearly twice the
 * throughput. Memory: no change measured, because the compiler had already unrolled rung 1 to
 * 2 loads in flight (count the LDG.E.128 before the first STG.E.128 in cuobjdump -sass): what
 * is in flight is the compiler's call as much as the source's. */
#define LOADS 2  /* float4 loads per thread before the first store */
#define CHAINS 2 /* chains a thread advances side by side */
#include "ilp_loads.cuh"  /* the memory kernel and ilp_memory */
#include "ilp_chains.cuh" /* the arithmetic kernel and ilp_arith */
