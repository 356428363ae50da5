/* Lab 08, rung 2: each item split into 32 blocks.
 *
 * Changed from rung 1: 32 slices per item. Why: the tail shrinks to 1/32 of an item. What it
 * costs: 32x as many blocks, each with its own start-up and its own atomics, and the blocks
 * of the full waves still end at slightly different times. The reference removes the waves
 * altogether: a persistent grid of exactly one wave, every block an equal share of all
 * items x rounds, so all SMs finish within one round of each other. */
#define SLICES 32   /* blocks per item: each takes 1/SLICES of the item's rounds */
#include "tail_sliced.cuh" /* the kernel and tail(), for these slices */
