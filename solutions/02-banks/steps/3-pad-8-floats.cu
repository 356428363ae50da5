/* Lab 02, rung 3: rows of 40 floats, window[128][40]: a 2-way conflict.
 *
 * Changed from rung 2: 40-float rows instead of 48. Why: with 16-byte reads the 8 threads of
 * a quarter-warp hit gcd(40/4, 8) = 2 threads per bank group: 2 passes per read instead of 4.
 * The time follows the pass count: about twice as fast again. */
#define ROW 40     /* floats per thread's row of the window: ROLLING_WINDOW + 8 */
#include "banks_padded.cuh" /* the kernel and rolling_max, for this ROW */
