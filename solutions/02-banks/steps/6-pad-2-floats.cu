/* Lab 02, rung 6: rows of 34 floats, window[128][34]: 8-byte reads, no conflict.
 *
 * Changed from rung 5: back to padding, by 2 floats. Rows are now 8-byte aligned only, so
 * nvcc reads the window with 8-byte LDS.64, served a half-warp (16 threads) at a time; thread
 * t's pair of slot k starts at word 34t + k, and gcd(34/2, 16) = 1: 16 threads, 16 different
 * 8-byte bank pairs, one pass. One step from the reference, which pads by a single float and
 * reads 4 bytes at a time: all three conflict-free layouts run within a few percent. */
#define ROW 34     /* floats per thread's row of the window: ROLLING_WINDOW + 2 */
#include "banks_padded.cuh" /* the kernel and rolling_max, for this ROW */
