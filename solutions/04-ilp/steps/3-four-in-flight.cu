/* Lab 04, rung 3: four independent operations in flight per thread.
 *
 * Changed from rung 2: 4 float4 loads before the first store; 4 chains per thread. Why: 4
 * chains x 8 warps = 32 independent FMAs per SM per FMA latency, more than the 16 the
 * schedulers can issue: the arithmetic now runs near the FMA pipe's rate. Memory: 64 bytes per
 * thread, 16 KB per SM in flight, about 1.5 times the ~11 KB per SM that HBM's latency x read
 * bandwidth asks (the latency grows as the memory system fills: lab 04's README). */
#define LOADS 4  /* float4 loads per thread before the first store */
#define CHAINS 4 /* chains a thread advances side by side */
#include "ilp_loads.cuh"  /* the memory kernel and ilp_memory */
#include "ilp_chains.cuh" /* the arithmetic kernel and ilp_arith */
