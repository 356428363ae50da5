/* device_info.c - arithmetic on a device's facts, no GPU needed. See device_info.h. */
#include "device_info.h"

int device_fp32_lanes_per_sm(const device_info *d)
{
    /* GA10x, AD10x, GH100 and later issue FP32 on 128 lanes per SM; Turing and GA100, 64. */
    const int cc = d->cc_major * 10 + d->cc_minor;
    if (cc >= 86)
        return 128;
    return 64;
}

double device_fma_peak_gflops(const device_info *d, double mhz)
{
    return 2.0 * device_fp32_lanes_per_sm(d) * d->sm_count * mhz * 1e6 / 1e9;
}

double device_dram_peak_gbps(const device_info *d)
{
    return 2.0 * d->mem_clock_khz * 1e3 * (d->mem_bus_bits / 8.0) / 1e9;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int device_blocks_per_sm(const device_info *d, int threads, int regs, size_t smem)
{
    if (threads < 1 || threads > d->max_threads_per_block)
        return 0;
    const int warps = (threads + 31) / 32;
    int blocks = min_int(d->max_blocks_per_sm, d->max_threads_per_sm / (warps * 32));
    if (regs > 0) {
        const int regs_per_warp = (regs * 32 + 255) / 256 * 256;
        const int warps_by_regs = d->regs_per_sm / regs_per_warp / 4 * 4;
        blocks = min_int(blocks, warps_by_regs / warps);
    }
    const size_t reserved = d->cc_major >= 8 ? 1024 : 0;
    if (smem > 0) {
        if (smem > d->smem_per_block_optin)
            return 0;
        blocks = min_int(blocks, (int)(d->smem_per_sm / (smem + reserved)));
    }
    return blocks > 0 ? blocks : 0;
}
