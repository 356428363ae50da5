/* Lab 02, rung 4: rows of 36 floats, window[128][36]: no conflict with 16-byte reads.
 *
 * Changed from rung 3: 36-float rows (padding of 16 bytes). Why: gcd(36/4, 8) = 1, so the 8
 * threads of a quarter-warp read 8 different 16-byte bank groups, all 32 banks, in one pass.
 * Conflict-free, and rows stay 16-byte aligned, so nvcc keeps its LDS.128: 8 reads of the
 * window per step instead of 32. From here on shared-memory bandwidth, not conflicts, sets the
 * pace (lab README, "Measured"). */
#define ROW 36     /* floats per thread's row of the window: ROLLING_WINDOW + 4 */
#include "banks_padded.cuh" /* the kernel and rolling_max, for this ROW */
