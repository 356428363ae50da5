/* Lab 08, rung 1: each item split into 4 blocks.
 *
 * Changed from the skeleton: an item's rounds are cut into 4 slices, one block each, and the
 * slices add their partial sums into the zeroed output with atomicAdd. Why: the last wave of
 * a grid lasts as long as its longest block, however few blocks it holds. With a quarter of an
 * item per block, the one extra item becomes 4 short blocks, and the nearly empty last wave
 * lasts a quarter as long. No SM count anywhere: the hardware's block scheduler spreads the
 * slices, on any GPU. */
#define SLICES 4   /* blocks per item: each takes 1/SLICES of the item's rounds */
#include "tail_sliced.cuh" /* the kernel and tail(), for these slices */
