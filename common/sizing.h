/* sizing.h - how big a timed problem may be on a device: the rules every lab's speed sizes
 * follow, as arithmetic on a device_info (no GPU needed; the runners and the unit tests call
 * the same functions). */
#ifndef COMMON_SIZING_H
#define COMMON_SIZING_H

#include <stddef.h>

#include "device_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest problem (bytes) the harness lets a lab allocate: half the free memory, so that the
 * student's process, the reference's and the L2 flush buffer fit beside it. */
size_t sizing_memory_budget(const device_info *d);

/* Bytes for each of `buffers` equal device buffers of a speed case: l2_multiple times the L2,
 * but at least 256 MB, so nothing of one call survives in cache for the next; capped so that
 * all of them together fit sizing_memory_budget. */
size_t sizing_speed_bytes(const device_info *d, int l2_multiple, int buffers);

#ifdef __cplusplus
}
#endif
#endif
