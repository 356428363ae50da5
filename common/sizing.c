/* sizing.c - the memory budget and buffer sizes of timed problems. See sizing.h. */
#include "sizing.h"

size_t sizing_memory_budget(const device_info *d)
{
    return d->free_mem_bytes / 2;
}

size_t sizing_speed_bytes(const device_info *d, int l2_multiple, int buffers)
{
    size_t bytes = (size_t)l2_multiple * d->l2_bytes;
    if (bytes < ((size_t)256 << 20))
        bytes = (size_t)256 << 20;
    if (buffers * bytes > sizing_memory_budget(d))
        bytes = sizing_memory_budget(d) / buffers;
    return bytes;
}
