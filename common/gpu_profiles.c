/* gpu_profiles.c - the table of real GPUs. See gpu_profiles.h.
 *
 * Figures come from the vendor's datasheet or whitepaper named in each row's comment
 * ("datasheet"), from the CUDA C++ Programming Guide's table of compute capabilities (threads,
 * blocks and shared memory per SM: "CUDA guide"), or from deviceQuery / nvidia-smi output of
 * that GPU ("deviceQuery"). Memory clocks are the rate cudaDevAttrMemoryClockRate reports,
 * which with the bus width gives the datasheet bandwidth. A figure marked "estimate" is not
 * published: it is what grading is planned with, and the reason is given.
 *
 * Sizes: KiB/MiB/GiB are powers of two; "GB" in a datasheet is 10^9. */
#include "gpu_profiles.h"

#include <stdio.h>
#include <string.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

const gpu_profile gpu_profiles[] = {
    /* NVIDIA T4 (TU104, Turing). Datasheet: 40 SMs (2560 CUDA cores), 16 GB GDDR6 at 320 GB/s
     * on a 256-bit bus, 8.1 TFLOPS FP32 at a 1590 MHz boost, PCIe Gen3 x16. Turing whitepaper:
     * 4 MB L2. CUDA guide, cc 7.5: 1024 threads and 16 blocks per SM, 64 KiB shared per SM and
     * per block. deviceQuery: 15109 MiB total with ECC on (the default), 3 copy engines.
     * Host: Google Colab's T4 machines have 12.7 GB of RAM. */
    {.key = "t4", .name = "Tesla T4", .cc_major = 7, .cc_minor = 5, .sm_count = 40,
     .max_threads_per_sm = 1024, .max_blocks_per_sm = 16, .regs_per_sm = 65536,
     .smem_per_sm = 64 * KiB, .smem_per_block_optin = 64 * KiB, .l2_bytes = 4 * MiB,
     .global_mem_bytes = 15109 * MiB, .free_mem_bytes = 15109 * MiB - 400 * MiB,
     .host_mem_bytes = 12700 * MiB, .sm_clock_khz = 1590000, .mem_clock_khz = 5001000,
     .mem_bus_bits = 256, .async_engines = 3, .ecc = 1, .host_link_gbps = 12.0},

    /* GeForce RTX 3050 Laptop GPU, 4 GB (GA107, Ampere). NVIDIA's product page: 2048 CUDA
     * cores (16 SMs), boost 1057-1740 MHz by the maker's power limit (the top one here), 4 GB
     * GDDR6 on 128 bits; 12 Gbps memory (TechPowerUp's database: 192 GB/s). GA107: 2 MB L2.
     * CUDA guide, cc 8.6: 1536 threads and 16 blocks per SM, 100 KiB shared per SM, 99 KiB a
     * block. Free: estimate, the laptop's display and the CUDA context take about 768 MiB.
     * Copy engines: 2, as deviceQuery reports on GeForce Ampere; PCIe 4.0 x8 (estimate). */
    {.key = "rtx3050-laptop", .name = "NVIDIA GeForce RTX 3050 Laptop GPU", .cc_major = 8,
     .cc_minor = 6, .sm_count = 16, .max_threads_per_sm = 1536, .max_blocks_per_sm = 16,
     .regs_per_sm = 65536, .smem_per_sm = 100 * KiB, .smem_per_block_optin = 99 * KiB,
     .l2_bytes = 2 * MiB, .global_mem_bytes = 4 * GiB - 512 * KiB,
     .free_mem_bytes = 4 * GiB - 768 * MiB, .host_mem_bytes = 16 * GiB,
     .sm_clock_khz = 1740000, .mem_clock_khz = 6001000, .mem_bus_bits = 128,
     .async_engines = 2, .ecc = 0, .host_link_gbps = 12.0},

    /* GeForce RTX 3060 Laptop GPU (GA106, Ampere). NVIDIA's product page: 3840 CUDA cores (30
     * SMs), boost up to 1703 MHz, 6 GB GDDR6 on 192 bits; 14 Gbps memory (336 GB/s,
     * TechPowerUp). GA106: 3 MB L2. CUDA guide, cc 8.6 as above. Free: estimate, as the 3050
     * Laptop. PCIe 4.0 x16 (estimate of the rate: 24 GB/s). */
    {.key = "rtx3060-laptop", .name = "NVIDIA GeForce RTX 3060 Laptop GPU", .cc_major = 8,
     .cc_minor = 6, .sm_count = 30, .max_threads_per_sm = 1536, .max_blocks_per_sm = 16,
     .regs_per_sm = 65536, .smem_per_sm = 100 * KiB, .smem_per_block_optin = 99 * KiB,
     .l2_bytes = 3 * MiB, .global_mem_bytes = 6 * GiB - 512 * KiB,
     .free_mem_bytes = 6 * GiB - 768 * MiB, .host_mem_bytes = 16 * GiB,
     .sm_clock_khz = 1703000, .mem_clock_khz = 7001000, .mem_bus_bits = 192,
     .async_engines = 2, .ecc = 0, .host_link_gbps = 24.0},

    /* GeForce RTX 4090 (AD102, Ada). NVIDIA's product page: 16384 CUDA cores (128 SMs), boost
     * 2520 MHz, 24 GB GDDR6X on 384 bits at 21 Gbps (1008 GB/s). Ada whitepaper: 72 MB L2.
     * CUDA guide, cc 8.9: 1536 threads and 24 blocks per SM, 100 KiB shared per SM, 99 KiB a
     * block. deviceQuery: 2 copy engines. Free: estimate, a desktop's display and the
     * context take about 1 GiB. */
    {.key = "rtx4090", .name = "NVIDIA GeForce RTX 4090", .cc_major = 8, .cc_minor = 9,
     .sm_count = 128, .max_threads_per_sm = 1536, .max_blocks_per_sm = 24,
     .regs_per_sm = 65536, .smem_per_sm = 100 * KiB, .smem_per_block_optin = 99 * KiB,
     .l2_bytes = 72 * MiB, .global_mem_bytes = 24 * GiB - 512 * KiB,
     .free_mem_bytes = 23 * GiB, .host_mem_bytes = 64 * GiB, .sm_clock_khz = 2520000,
     .mem_clock_khz = 10501000, .mem_bus_bits = 384, .async_engines = 2, .ecc = 0,
     .host_link_gbps = 25.0},

    /* NVIDIA L4 (AD104, Ada). Datasheet: 7424 CUDA cores (58 SMs), 24 GB GDDR6 at 300 GB/s,
     * 30.3 TFLOPS FP32 (a 2040 MHz boost), PCIe Gen4 x16. Ada whitepaper: 48 MB L2 on AD104.
     * CUDA guide, cc 8.9 as the 4090. ECC is on as shipped, which keeps 1/16 of GDDR6 for
     * its codes: about 22.5 GiB reported (estimate). Host: a cloud g2-standard-8, 32 GB.
     * Copy engines: 2 (estimate, as the GeForce Ada parts; no L4 reading is recorded). */
    {.key = "l4", .name = "NVIDIA L4", .cc_major = 8, .cc_minor = 9, .sm_count = 58,
     .max_threads_per_sm = 1536, .max_blocks_per_sm = 24, .regs_per_sm = 65536,
     .smem_per_sm = 100 * KiB, .smem_per_block_optin = 99 * KiB, .l2_bytes = 48 * MiB,
     .global_mem_bytes = 22 * GiB + 512 * MiB, .free_mem_bytes = 22 * GiB,
     .host_mem_bytes = 32 * GiB, .sm_clock_khz = 2040000, .mem_clock_khz = 6251000,
     .mem_bus_bits = 192, .async_engines = 2, .ecc = 1, .host_link_gbps = 25.0},

    /* NVIDIA A100 40GB SXM (GA100, Ampere). Datasheet: 40 GB HBM2 at 1555 GB/s, 19.5 TFLOPS
     * FP32, PCIe Gen4. GA100 whitepaper: 108 SMs, 40 MB L2, 164 KiB shared per SM (163 KiB a
     * block), boost 1410 MHz, 5120-bit bus (1215 MHz). CUDA guide, cc 8.0: 2048 threads and
     * 32 blocks per SM. deviceQuery: 40536 MiB total, 3 copy engines. */
    {.key = "a100-40gb", .name = "NVIDIA A100-SXM4-40GB", .cc_major = 8, .cc_minor = 0,
     .sm_count = 108, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
     .regs_per_sm = 65536, .smem_per_sm = 164 * KiB, .smem_per_block_optin = 163 * KiB,
     .l2_bytes = 40 * MiB, .global_mem_bytes = 40536 * MiB,
     .free_mem_bytes = 40536 * MiB - 512 * MiB, .host_mem_bytes = 128 * GiB,
     .sm_clock_khz = 1410000, .mem_clock_khz = 1215000, .mem_bus_bits = 5120,
     .async_engines = 3, .ecc = 1, .host_link_gbps = 24.0},

    /* NVIDIA H100 SXM5 80GB (GH100, Hopper). Datasheet: 80 GB HBM3 at 3.35 TB/s, 67 TFLOPS
     * FP32, PCIe Gen5. Hopper whitepaper: 132 SMs, 50 MB L2, 228 KiB shared per SM (227 KiB a
     * block), boost 1980 MHz, 5120-bit bus (2619 MHz). CUDA guide, cc 9.0: 2048 threads and
     * 32 blocks per SM. nvidia-smi: 81559 MiB. Copy engines and host link: estimate, as the
     * H200 (the same GH100 and PCIe Gen5 host interface; no H100 count is recorded). */
    {.key = "h100-sxm", .name = "NVIDIA H100 80GB HBM3", .cc_major = 9, .cc_minor = 0,
     .sm_count = 132, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
     .regs_per_sm = 65536, .smem_per_sm = 228 * KiB, .smem_per_block_optin = 227 * KiB,
     .l2_bytes = 50 * MiB, .global_mem_bytes = 81559 * MiB,
     .free_mem_bytes = 81559 * MiB - 512 * MiB, .host_mem_bytes = 256 * GiB,
     .sm_clock_khz = 1980000, .mem_clock_khz = 2619000, .mem_bus_bits = 5120,
     .async_engines = 3, .ecc = 1, .host_link_gbps = 55.0},

    /* NVIDIA H200 (GH100, Hopper, 141 GB). Datasheet: 141 GB HBM3e at 4.8 TB/s, PCIe Gen5.
     * Read on an H200 with make doctor (tests/gpu/results/h200-doctor.txt): 143771 MiB,
     * 1980 MHz SM clock at most, 3 copy engines. 132 SMs, 60 MB L2, 228 KiB shared per SM
     * (deviceQuery); 4.81 TB/s from the clocks (6144-bit bus). Pinned copies measured 49.2 to
     * 55.5 GB/s to the device (tests/gpu/results/h200-ilp-streams-where-agree.txt). */
    {.key = "h200", .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132,
     .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .regs_per_sm = 65536,
     .smem_per_sm = 228 * KiB, .smem_per_block_optin = 227 * KiB, .l2_bytes = 60 * MiB,
     .global_mem_bytes = 143771 * MiB, .free_mem_bytes = 143771 * MiB - 512 * MiB,
     .host_mem_bytes = 256 * GiB, .sm_clock_khz = 1980000, .mem_clock_khz = 3131000,
     .mem_bus_bits = 6144, .async_engines = 3, .ecc = 1, .host_link_gbps = 55.0},

    /* NVIDIA B200 (Blackwell). DGX B200 datasheet: 180 GB HBM3e and 8 TB/s a GPU (1440 GB and
     * 64 TB/s for eight); HGX B200: 75 TFLOPS FP32 a GPU. 148 SMs at a 1965 MHz boost (148 x
     * 128 x 2 x 1.965 GHz = 74.4 TFLOPS), 8192-bit bus (3906 MHz for 8 TB/s). L2: 126 MiB
     * (deviceQuery; estimate to a few MiB). CUDA guide, cc 10.0: 2048 threads and 32 blocks
     * per SM, 228 KiB shared per SM, 227 KiB a block. Copy engines and host link: estimate,
     * as the H200. */
    {.key = "b200", .name = "NVIDIA B200", .cc_major = 10, .cc_minor = 0, .sm_count = 148,
     .max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .regs_per_sm = 65536,
     .smem_per_sm = 228 * KiB, .smem_per_block_optin = 227 * KiB, .l2_bytes = 126 * MiB,
     .global_mem_bytes = 179 * GiB, .free_mem_bytes = 179 * GiB - 512 * MiB,
     .host_mem_bytes = 256 * GiB, .sm_clock_khz = 1965000, .mem_clock_khz = 3906000,
     .mem_bus_bits = 8192, .async_engines = 3, .ecc = 1, .host_link_gbps = 55.0},

    /* NVIDIA Jetson AGX Orin 64GB (GA10B, Ampere, integrated). Jetson AGX Orin Series data
     * sheet: 2048 CUDA cores (16 SMs) at up to 1.3 GHz (5.3 TFLOPS FP32), 64 GB LPDDR5 on 256
     * bits at 204.8 GB/s (3200 MHz), shared by CPU and GPU; 4 MB L2 (deviceQuery). CUDA guide,
     * cc 8.7: 1536 threads and 16 blocks per SM, 164 KiB shared per SM, 163 KiB a block. The
     * GPU's memory is the system's: total about 62.8 GB (deviceQuery), free an estimate (the
     * OS and desktop keep about 6 GiB). Copy engines: 1 (estimate: no Orin reading is
     * recorded). Host link: a copy is DRAM to DRAM (estimate: 30 GB/s each way). */
    {.key = "jetson-agx-orin", .name = "Orin", .cc_major = 8, .cc_minor = 7, .sm_count = 16,
     .max_threads_per_sm = 1536, .max_blocks_per_sm = 16, .regs_per_sm = 65536,
     .smem_per_sm = 164 * KiB, .smem_per_block_optin = 163 * KiB, .l2_bytes = 4 * MiB,
     .global_mem_bytes = 59930 * MiB, .free_mem_bytes = 54 * GiB, .host_mem_bytes = 59930 * MiB,
     .sm_clock_khz = 1301000, .mem_clock_khz = 3200000, .mem_bus_bits = 256,
     .async_engines = 1, .ecc = 0, .host_link_gbps = 30.0},
};

const int n_gpu_profiles = (int)(sizeof gpu_profiles / sizeof gpu_profiles[0]);

const gpu_profile *gpu_profile_find(const char *key)
{
    for (int i = 0; i < n_gpu_profiles; i++)
        if (!strcmp(gpu_profiles[i].key, key))
            return &gpu_profiles[i];
    return NULL;
}

void device_from_profile(const gpu_profile *p, device_info *d)
{
    memset(d, 0, sizeof *d);
    d->ordinal = -1;
    snprintf(d->name, sizeof d->name, "%s", p->name);
    d->cc_major = p->cc_major;
    d->cc_minor = p->cc_minor;
    d->sm_count = p->sm_count;
    d->max_threads_per_sm = p->max_threads_per_sm;
    d->max_threads_per_block = 1024; /* every GPU since compute capability 2.0 */
    d->max_blocks_per_sm = p->max_blocks_per_sm;
    d->regs_per_sm = p->regs_per_sm;
    d->smem_per_sm = p->smem_per_sm;
    d->smem_per_block_optin = p->smem_per_block_optin;
    d->l2_bytes = p->l2_bytes;
    d->global_mem_bytes = p->global_mem_bytes;
    d->free_mem_bytes = p->free_mem_bytes;
    d->host_mem_bytes = p->host_mem_bytes;
    d->sm_clock_khz = p->sm_clock_khz;
    d->mem_clock_khz = p->mem_clock_khz;
    d->mem_bus_bits = p->mem_bus_bits;
    d->async_engines = p->async_engines;
    d->ecc = p->ecc;
    d->driver_version = d->runtime_version = 13000;
}
