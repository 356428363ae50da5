/*
 * wavefront-probe.cu - how many passes (wavefronts) does one warp's shared-memory load or store
 * take, for a given lane-to-address pattern and access width? The same program runs on a GPU
 * (under Nsight Compute, which counts the wavefronts of every kernel) and under the CPU
 * emulator (CUDA_EMU_COUNT, which counts them as make explain does), so the two can be set side
 * by side pattern by pattern: tests/gpu/wavefront-probe.sh writes that table on a GPU, and
 * make test-emulator holds the emulator to the table recorded on an H200
 * (tests/emu/probes/wavefronts-h200.tsv).
 *
 * Each pattern gives lane l the index of the element it reads or writes, in elements of the
 * access's width (4, 8 or 16 bytes), or -1: the lane takes no part. For every pattern and width, two kernels of one warp:
 * probe_load (fill the tile with consecutive stores, then ONE load in the pattern) and
 * probe_store (ONE store in the pattern, then a load of what it stored). On the GPU the loads of
 * probe_load and the stores of probe_store are the pattern's: the other side's accesses are of
 * the other kind. Each kernel runs in a profiler range of its own, in this order:
 *   for each pattern, for width 4, 8, 16: probe_load, probe_store
 * and the program prints that order, one line per kernel: pattern <tab> width <tab> load|store.
 * Built with common/check.cu (-Icommon).
 */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#define TILE_FLOATS 4096 /* 16 KiB: room for index 1023 of a 16-byte element */

struct Pattern {
    const char *name;
    int (*index)(int lane);
};

static int p_consecutive(int l) { return l; }
static int p_broadcast(int l) { (void)l; return 0; }
static int p_stride2(int l) { return 2 * l; }
static int p_stride3(int l) { return 3 * l; }
static int p_stride4(int l) { return 4 * l; }
static int p_stride8(int l) { return 8 * l; }
static int p_stride16(int l) { return 16 * l; }
static int p_stride32(int l) { return 32 * l; }
static int p_stride33(int l) { return 33 * l; }
static int p_pairs(int l) { return l / 2; }
static int p_quads(int l) { return l / 4; }
static int p_eights(int l) { return l / 8; }
static int p_halves(int l) { return l / 16; }
static int p_mod4(int l) { return l % 4; }
static int p_mod8(int l) { return l % 8; }
static int p_mod16(int l) { return l % 16; }
static int p_reversed(int l) { return 31 - l; }
static int p_swap_halves(int l) { return l ^ 16; }
static int p_xor_rows(int l) { return (l % 8) ^ (l / 8) * 9; }
static int p_warp_tile_a(int l) { return (l / 8) * 16 + (l % 2); }  /* 4 rows, 2 columns each */
static int p_warp_tile_b(int l) { return (l % 8) + (l / 16) * 64; } /* 8 columns, 2 groups */
static int p_quarter_same(int l) { return (l % 8) * 4; }            /* each quarter the same */
static int p_quarter_shift(int l) { return (l % 8) + (l / 8) * 8; } /* = consecutive */
static int p_two_way(int l) { return (l % 16) + (l / 16) * 32; }
static int p_scatter(int l) { return (l * 37 + 11) % 97; }
static int p_scatter_dup(int l) { return (l * 7) % 12; }
static int p_odd_lanes(int l) { return (l & 1) ? l * 32 % 1024 : l; }

/* Lanes that take no part (index -1), and patterns drawn at random (fixed seeds) from ranges
 * of 8, 64 and 1024 elements: a check of the rule on patterns it was not read from. */
static int p_even_only(int l) { return (l & 1) ? -1 : l; }
static int p_first_half(int l) { return l < 16 ? l : -1; }
static int p_second_half_bcast(int l) { return l < 16 ? -1 : 5; }
static int p_quarters_0_2(int l) { return (l / 8) % 2 ? -1 : l; }
static int p_one_lane(int l) { return l == 7 ? 3 : -1; }
static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}
#define RANDOM_PATTERN(name, seed, range)                                                          \
    static int name(int l) { return (int)(mix((unsigned)(seed) * 64u + (unsigned)l) % (range)); }
RANDOM_PATTERN(p_random8a, 1, 8)
RANDOM_PATTERN(p_random8b, 2, 8)
RANDOM_PATTERN(p_random64a, 3, 64)
RANDOM_PATTERN(p_random64b, 4, 64)
RANDOM_PATTERN(p_random64c, 5, 64)
RANDOM_PATTERN(p_random1024a, 6, 1024)
RANDOM_PATTERN(p_random1024b, 7, 1024)
RANDOM_PATTERN(p_random1024c, 8, 1024)
static int p_random_idle(int l) { return mix(100u + (unsigned)l) % 3 == 0 ? -1 : (int)(mix(200u + (unsigned)l) % 48); }

static const Pattern patterns[] = {
    {"consecutive", p_consecutive}, {"broadcast", p_broadcast},       {"stride-2", p_stride2},
    {"stride-3", p_stride3},        {"stride-4", p_stride4},          {"stride-8", p_stride8},
    {"stride-16", p_stride16},      {"stride-32", p_stride32},        {"stride-33", p_stride33},
    {"pairs", p_pairs},             {"quads", p_quads},               {"eights", p_eights},
    {"halves", p_halves},           {"mod-4", p_mod4},                {"mod-8", p_mod8},
    {"mod-16", p_mod16},            {"reversed", p_reversed},         {"swap-halves", p_swap_halves},
    {"xor-rows", p_xor_rows},       {"warp-tile-a", p_warp_tile_a},   {"warp-tile-b", p_warp_tile_b},
    {"quarter-same", p_quarter_same}, {"quarter-shift", p_quarter_shift}, {"two-way", p_two_way},
    {"scatter", p_scatter},         {"scatter-dup", p_scatter_dup},   {"odd-lanes", p_odd_lanes},
    {"even-only", p_even_only},     {"first-half", p_first_half},     {"second-half-bcast", p_second_half_bcast},
    {"quarters-0-2", p_quarters_0_2}, {"one-lane", p_one_lane},
    {"random8a", p_random8a},       {"random8b", p_random8b},         {"random64a", p_random64a},
    {"random64b", p_random64b},     {"random64c", p_random64c},       {"random1024a", p_random1024a},
    {"random1024b", p_random1024b}, {"random1024c", p_random1024c},   {"random-idle", p_random_idle},
};

template <class T> __device__ T value_of(int l);
template <> __device__ float value_of<float>(int l) { return (float)l; }
template <> __device__ float2 value_of<float2>(int l) { return make_float2((float)l, 1.0f); }
template <> __device__ float4 value_of<float4>(int l) { return make_float4((float)l, 1.0f, 2.0f, 3.0f); }

template <class T>
__global__ void probe_load(const int *index, T *out)
{
    __shared__ __align__(16) float tile[TILE_FLOATS];
    for (int i = threadIdx.x; i < TILE_FLOATS; i += 32)
        tile[i] = (float)i;
    __syncthreads();
    const int i = index[threadIdx.x];
    if (i >= 0)
        out[threadIdx.x] = reinterpret_cast<const T *>(tile)[i];
}

template <class T>
__global__ void probe_store(const int *index, T *out)
{
    __shared__ __align__(16) float tile[TILE_FLOATS];
    const int i = index[threadIdx.x];
    if (i >= 0)
        reinterpret_cast<T *>(tile)[i] = value_of<T>(threadIdx.x);
    __syncthreads();
    if (i >= 0)
        out[threadIdx.x] = reinterpret_cast<const T *>(tile)[i];
}

template <class T> static void run(const int *index, void *out)
{
    CUDA_CHECK(cudaProfilerStart());
    probe_load<T><<<1, 32>>>(index, (T *)out);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaProfilerStop());
    CUDA_CHECK(cudaProfilerStart());
    probe_store<T><<<1, 32>>>(index, (T *)out);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaProfilerStop());
}

int main(void)
{
    int *index;
    void *out;
    CUDA_CHECK(cudaMalloc(&index, 32 * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&out, 32 * 16));
    for (const Pattern &p : patterns) {
        int h[32];
        for (int l = 0; l < 32; l++) {
            h[l] = p.index(l);
            if (h[l] < -1 || h[l] * 16 >= TILE_FLOATS * 4) {
                fprintf(stderr, "pattern %s: lane %d's index %d is outside the tile\n", p.name, l, h[l]);
                return 1;
            }
        }
        CUDA_CHECK(cudaMemcpy(index, h, sizeof h, cudaMemcpyHostToDevice));
        run<float>(index, out);
        printf("%s\t4\tload\n%s\t4\tstore\n", p.name, p.name);
        run<float2>(index, out);
        printf("%s\t8\tload\n%s\t8\tstore\n", p.name, p.name);
        run<float4>(index, out);
        printf("%s\t16\tload\n%s\t16\tstore\n", p.name, p.name);
    }
    CUDA_CHECK(cudaFree(index));
    CUDA_CHECK(cudaFree(out));
    return 0;
}
