/* Lab 02, rung 2: rows of 48 floats, window[128][48]: a 4-way conflict.
 *
 * Changed from rung 1: the reads are left to the compiler again (it merges 4 slots into one
 * 16-byte LDS.128, as in the skeleton) and each thread's row is padded from 32 to 48 floats.
 * Why: a 16-byte read is served a quarter-warp (8 threads) at a time; thread t's group of
 * slot k starts at word 48t + k, and the 8 threads of a quarter-warp fall on gcd(48/4, 8) = 4
 * distinct 16-byte bank groups twice over: 4 passes where the skeleton's 32-float rows needed
 * 8. Half the shared-memory passes of the skeleton, about twice its speed.
 * Padding must keep rows 16-byte aligned (a multiple of 4 floats) or nvcc cannot use LDS.128. */
#define ROW 48     /* floats per thread's row of the window: ROLLING_WINDOW + 16 */
#include "banks_padded.cuh" /* the kernel and rolling_max, for this ROW */
