/* Lab 04, rung 1: 16-byte loads; one float4 (memory) and one chain (arithmetic) per iteration.
 *
 * Changed from the skeleton. Memory: each thread moves a float4 (16 bytes) per load instead of
 * a float, and each block streams its own contiguous share of the array. Why: with the launch
 * fixed at 8 warps per SM, bytes in flight per SM are what limits bandwidth (Little's law:
 * bytes in flight = bandwidth x latency); 16 bytes per load is 4x the skeleton's 4, and nvcc
 * happens to unroll this loop by two, so about 2 loads are in flight per thread.
 * Arithmetic: unchanged in substance, one dependent chain per thread (the step loop unrolled
 * 64 deep, so loop overhead is not what you measure): 2 independent FMAs per scheduler, where
 * 4 schedulers x 4 cycles of FMA latency want 16 per SM. The next rungs add independent work. */
#define LOADS 1  /* float4 loads per thread before the first store */
#define CHAINS 1 /* chains a thread advances side by side */
#include "ilp_loads.cuh"  /* the memory kernel and ilp_memory */
#include "ilp_chains.cuh" /* the arithmetic kernel and ilp_arith */
