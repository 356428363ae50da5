/* test_profiles.c - every lab's timed problem, sized for every GPU of common/gpu_profiles.h.
 *
 * The sizing code under test is the code the runners call on a GPU (lab_info.speed_size and
 * footprint in each grader/labs/NN-name/table.c, common/sizing.c), fed a device_info made
 * from a real GPU's figures. Whatever a lab promises about its timed problem (it fits the
 * memory budget with room to spare, it outruns the L2, its waves follow the SM count, its
 * ceiling follows the device) is checked on a T4, a 4 GB laptop and a B200 alike; and the
 * predicted `make grade` (grader/plan/grade_model.h) stays within 5 minutes on a T4. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../grader/plan/grade_model.h"
#include "../grader/lab.h"
#include "../common/gpu_profiles.h"
#include "../common/sizing.h"

/* A CUnit assertion whose failure text says what was expected and what was found. */
static void expect_at(int ok, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void expect_at(int ok, unsigned line, const char *fmt, ...)
{
    static char msg[1024];
    msg[0] = 0;
    if (!ok) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, line, msg, __FILE__, "", CU_FALSE);
}
#define EXPECT(cond, ...) expect_at((cond) ? 1 : 0, __LINE__, __VA_ARGS__)

#define MIB (1024.0 * 1024.0)

static device_info profile_device(const char *key)
{
    device_info d;
    const gpu_profile *g = gpu_profile_find(key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    device_from_profile(g, &d);
    return d;
}

/* Calls fn for every speed check of every lab on every profile, with its size and footprint. */
typedef void (*speed_visit)(const gpu_profile *g, const device_info *d, const lab_info *lab,
                            const lab_check *c, const long long size[LAB_MAX_DIMS],
                            const lab_footprint *f);

static int for_each_speed_check(speed_visit fn)
{
    int visited = 0;
    for (int p = 0; p < n_gpu_profiles; p++) {
        device_info d;
        device_from_profile(&gpu_profiles[p], &d);
        for (int l = 0; l < n_all_labs; l++) {
            const lab_info *lab = all_labs[l];
            for (int i = 0; i < lab->n_checks; i++) {
                const lab_check *c = &lab->checks[i];
                if (c->kind != CHECK_SPEED)
                    continue;
                long long size[LAB_MAX_DIMS];
                lab_speed_problem_size(lab, c, &d, size);
                lab_footprint f;
                memset(&f, 0, sizeof f);
                lab->footprint(c->task, size, &f);
                fn(&gpu_profiles[p], &d, lab, c, size, &f);
                visited++;
            }
        }
    }
    return visited;
}

/* ------------------------------------------------------------------------------------------ */

static void test_profile_table(void)
{
    static const char *const required[] = {"t4", "rtx3050-laptop", "rtx3060-laptop", "rtx4090",
                                           "l4", "a100-40gb", "h100-sxm", "h200", "b200",
                                           "jetson-agx-orin"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        EXPECT(gpu_profile_find(required[i]) != NULL, "a GPU profile '%s': none in the table",
               required[i]);
    for (int i = 0; i < n_gpu_profiles; i++) {
        const gpu_profile *g = &gpu_profiles[i];
        for (int j = 0; j < i; j++)
            EXPECT(strcmp(g->key, gpu_profiles[j].key) != 0, "unique keys: '%s' twice", g->key);
        EXPECT(g->sm_count > 0 && g->l2_bytes > 0 && g->sm_clock_khz > 0 && g->mem_clock_khz > 0 &&
                   g->mem_bus_bits > 0 && g->host_link_gbps > 0 && g->host_mem_bytes > 0,
               "%s: every figure set; found SMs %d, L2 %zu, clocks %d/%d kHz, bus %d, link %g, host %zu",
               g->key, g->sm_count, g->l2_bytes, g->sm_clock_khz, g->mem_clock_khz,
               g->mem_bus_bits, g->host_link_gbps, g->host_mem_bytes);
        EXPECT(g->free_mem_bytes < g->global_mem_bytes,
               "%s: free memory (%zu) below the total (%zu)", g->key, g->free_mem_bytes,
               g->global_mem_bytes);
        EXPECT(g->smem_per_block_optin <= g->smem_per_sm,
               "%s: shared memory a block may opt into (%zu) at most the SM's (%zu)", g->key,
               g->smem_per_block_optin, g->smem_per_sm);
        EXPECT(g->max_threads_per_sm % 32 == 0 && g->max_threads_per_sm >= 1024,
               "%s: threads per SM a multiple of 32, at least 1024; found %d", g->key,
               g->max_threads_per_sm);
    }
}

static void test_device_from_profile(void)
{
    for (int i = 0; i < n_gpu_profiles; i++) {
        const gpu_profile *g = &gpu_profiles[i];
        device_info d;
        memset(&d, 0x5a, sizeof d);
        device_from_profile(g, &d);
        EXPECT(!strcmp(d.name, g->name) && d.ordinal == -1 && !d.emulated,
               "%s: name '%s', ordinal -1, not emulated; found '%s', %d, %d", g->key, g->name,
               d.name, d.ordinal, d.emulated);
        EXPECT(d.sm_count == g->sm_count && d.cc_major == g->cc_major &&
                   d.cc_minor == g->cc_minor && d.l2_bytes == g->l2_bytes &&
                   d.global_mem_bytes == g->global_mem_bytes &&
                   d.free_mem_bytes == g->free_mem_bytes && d.host_mem_bytes == g->host_mem_bytes &&
                   d.max_threads_per_sm == g->max_threads_per_sm &&
                   d.max_blocks_per_sm == g->max_blocks_per_sm && d.regs_per_sm == g->regs_per_sm &&
                   d.smem_per_sm == g->smem_per_sm &&
                   d.smem_per_block_optin == g->smem_per_block_optin &&
                   d.sm_clock_khz == g->sm_clock_khz && d.mem_clock_khz == g->mem_clock_khz &&
                   d.mem_bus_bits == g->mem_bus_bits && d.async_engines == g->async_engines &&
                   d.max_threads_per_block == 1024,
               "%s: every figure of the profile in the device_info", g->key);
    }
}

/* The datasheet's bandwidth and FP32 rate come back out of clocks, bus and SMs: the ceilings
 * the grader reports (physical_bound, the computed FMA ceilings of labs 03 and 04) follow the
 * device in hand, not the H200. */
static void test_ceilings_follow_the_device(void)
{
    static const struct {
        const char *key;
        double dram_gbps, fp32_tflops; /* datasheet */
    } sheet[] = {
        {"t4", 320, 8.1},       {"rtx3050-laptop", 192, 7.1}, {"rtx3060-laptop", 336, 13.1},
        {"rtx4090", 1008, 82.6}, {"l4", 300, 30.3},            {"a100-40gb", 1555, 19.5},
        {"h100-sxm", 3350, 67}, {"h200", 4800, 67},            {"b200", 8000, 75},
        {"jetson-agx-orin", 204.8, 5.3},
    };
    for (size_t i = 0; i < sizeof sheet / sizeof sheet[0]; i++) {
        const device_info d = profile_device(sheet[i].key);
        const double bw = device_dram_peak_gbps(&d);
        const double fp = device_fma_peak_gflops(&d, d.sm_clock_khz / 1e3) / 1e3;
        EXPECT(fabs(bw / sheet[i].dram_gbps - 1) < 0.02,
               "%s: DRAM peak %.0f GB/s (datasheet) within 2%%; found %.0f GB/s", sheet[i].key,
               sheet[i].dram_gbps, bw);
        EXPECT(fabs(fp / sheet[i].fp32_tflops - 1) < 0.02,
               "%s: FP32 peak %.1f TFLOP/s (datasheet) within 2%%; found %.1f", sheet[i].key,
               sheet[i].fp32_tflops, fp);
    }
}

/* What cudaOccupancyMaxActiveBlocksPerMultiprocessor answers (CUDA occupancy calculator). */
static void test_blocks_per_sm(void)
{
    static const struct {
        const char *key;
        int threads, regs;
        size_t smem;
        int blocks;
    } cases[] = {
        {"h100-sxm", 1024, 48, 0, 1},        /* registers: 48 x 1024 > half the file */
        {"h100-sxm", 1024, 32, 0, 2},        /* threads: 2048 per SM */
        {"h100-sxm", 256, 0, 0, 8},
        {"h100-sxm", 32, 0, 0, 32},          /* blocks per SM */
        {"h100-sxm", 256, 255, 0, 1},        /* 8160 registers a warp, rounded to 8192 */
        {"t4", 1024, 32, 0, 1},              /* 1024 threads per SM */
        {"t4", 128, 0, 0, 8},
        {"rtx4090", 1024, 16, 0, 1},         /* 1536 threads per SM */
        {"rtx4090", 512, 0, 0, 3},
        {"a100-40gb", 128, 0, 48 * 1024, 3}, /* 164 KiB / (48 + 1 reserved) */
        {"a100-40gb", 128, 0, 200 * 1024, 0},/* more than a block may have */
        {"t4", 1025, 0, 0, 0},               /* more threads than a block may have */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const device_info d = profile_device(cases[i].key);
        const int got = device_blocks_per_sm(&d, cases[i].threads, cases[i].regs, cases[i].smem);
        EXPECT(got == cases[i].blocks,
               "%s: %d threads, %d registers, %zu B shared: expected %d blocks per SM, found %d",
               cases[i].key, cases[i].threads, cases[i].regs, cases[i].smem, cases[i].blocks, got);
    }
}

static void every_lab_sizes(void)
{
    for (int l = 0; l < n_all_labs; l++)
        EXPECT(all_labs[l]->speed_size && all_labs[l]->footprint,
               "lab %s: speed_size and footprint in its table; found %s, %s", all_labs[l]->name,
               all_labs[l]->speed_size ? "speed_size" : "no speed_size",
               all_labs[l]->footprint ? "footprint" : "no footprint");
}

/* One timed problem, its saved outputs and the L2 flush buffer fit half the free memory (the
 * other half is the room left for the student's and the reference's processes). */
static void check_fits(const gpu_profile *g, const device_info *d, const lab_info *lab,
                       const lab_check *c, const long long size[LAB_MAX_DIMS],
                       const lab_footprint *f)
{
    const double need = f->device_bytes + f->output_bytes + 2.0 * d->l2_bytes;
    const double budget = (double)sizing_memory_budget(d);
    EXPECT(need <= budget,
           "%s, lab %s, '%s' (size %lld x %lld x %lld): problem, saved outputs and L2 flush "
           "within the budget of %.0f MiB (half the free %.0f MiB); found %.0f MiB",
           g->key, lab->name, c->name, size[0], size[1], size[2], budget / MIB,
           d->free_mem_bytes / MIB, need / MIB);
    EXPECT(f->work > 0 && size[0] > 0, "%s, lab %s, '%s': a problem with work; found size %lld, "
           "work %g", g->key, lab->name, c->name, size[0], f->work);
    /* Lab 05's pinned host arrays: each a sixteenth of the host's memory at most. */
    EXPECT(f->host_bytes <= d->host_mem_bytes / 8.0,
           "%s, lab %s, '%s': pinned host arrays at most 1/8 of the host's %.0f MiB; found %.0f MiB",
           g->key, lab->name, c->name, d->host_mem_bytes / MIB, f->host_bytes / MIB);
}

static void test_sizes_fit_memory(void)
{
    every_lab_sizes();
    const int n = for_each_speed_check(check_fits);
    EXPECT(n >= n_gpu_profiles * 9, "a speed check of every lab on every profile: expected at "
           "least %d, found %d", n_gpu_profiles * 9, n);
}

static void check_l2(const gpu_profile *g, const device_info *d, const lab_info *lab,
                     const lab_check *c, const long long size[LAB_MAX_DIMS],
                     const lab_footprint *f)
{
    (void)size;
    if (!f->l2_multiple) {
        /* Only the labs that are sized for time (08 in waves, 09 by its FLOPs) may say so. */
        EXPECT(!strcmp(lab->name, "tail") || !strcmp(lab->name, "sgemm"),
               "lab %s, '%s': a working set promised as a multiple of the L2; found none",
               lab->name, c->name);
        return;
    }
    EXPECT(f->l2_multiple >= 4, "lab %s, '%s': at least 4x the L2 promised; found %dx",
           lab->name, c->name, f->l2_multiple);
    EXPECT(f->working_set >= (double)f->l2_multiple * d->l2_bytes,
           "%s, lab %s, '%s': working set at least %dx the L2 (%.0f MiB); found %.1f MiB (%.1fx)",
           g->key, lab->name, c->name, f->l2_multiple, f->l2_multiple * d->l2_bytes / MIB,
           f->working_set / MIB, f->working_set / d->l2_bytes);
}

static void test_sizes_outrun_the_l2(void)
{
    for_each_speed_check(check_l2);
}

/* Lab 08: "1 full wave + 1 block" is SMs x blocks per SM + 1 items on every GPU: 41 on a T4,
 * 149 on a B200, never 133 because an H200 has 132 SMs. */
static void test_tail_waves_follow_the_sms(void)
{
    const lab_info *lab = NULL;
    for (int l = 0; l < n_all_labs; l++)
        if (!strcmp(all_labs[l]->name, "tail"))
            lab = all_labs[l];
    CU_ASSERT_PTR_NOT_NULL_FATAL(lab);
    int rows = 0;
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *c = &lab->checks[i];
        if (c->kind != CHECK_SPEED)
            continue;
        rows++;
        const long long waves = c->size[0], extra = c->size[1];
        for (int p = 0; p < n_gpu_profiles; p++) {
            device_info d;
            device_from_profile(&gpu_profiles[p], &d);
            long long size[LAB_MAX_DIMS];
            memcpy(size, c->size, sizeof size);
            lab->speed_size(c->task, &d, size);
            /* 1024-thread blocks of a kernel of more than 32 registers: one per SM everywhere
             * (no GPU here has 2048 threads and 128 K registers an SM). */
            const long long wave = d.sm_count;
            EXPECT(size[2] == waves * wave && size[0] == waves * wave + extra,
                   "%s (%d SMs), '%s': %lld full items (%lld waves of %lld) and %lld in all; "
                   "found %lld full, %lld in all", gpu_profiles[p].key, d.sm_count, c->name,
                   waves * wave, waves, wave, waves * wave + extra, size[2], size[0]);
        }
    }
    EXPECT(rows == 2, "lab tail: two speed rows (1 wave + 1, 2 waves + 1); found %d", rows);
}

/* Lab 09 sizes for time: n^3 at the FP32 peak about 2 ms (within the steps of 512 and the
 * 1024..4096 range), so a T4's problem is smaller than a B200's. */
static void test_sgemm_sized_for_time(void)
{
    const lab_info *lab = NULL;
    for (int l = 0; l < n_all_labs; l++)
        if (!strcmp(all_labs[l]->name, "sgemm"))
            lab = all_labs[l];
    CU_ASSERT_PTR_NOT_NULL_FATAL(lab);
    for (int p = 0; p < n_gpu_profiles; p++) {
        device_info d;
        device_from_profile(&gpu_profiles[p], &d);
        long long size[LAB_MAX_DIMS] = {0};
        lab->speed_size(0, &d, size);
        const double ms = 2.0 * size[0] * size[1] * size[2] /
                          (device_fma_peak_gflops(&d, d.sm_clock_khz / 1e3) * 1e6);
        const int clamped = size[0] == 1024 || size[0] == 4096;
        EXPECT(size[0] % 512 == 0 && size[0] >= 1024 && size[0] <= 4096 &&
                   (clamped || (ms > 1.0 && ms < 4.0)),
               "%s: n a multiple of 512 in 1024..4096 taking about 2 ms at the FP32 peak; "
               "found n = %lld, %.2f ms", gpu_profiles[p].key, size[0], ms);
    }
    long long t4[LAB_MAX_DIMS] = {0}, h200[LAB_MAX_DIMS] = {0};
    const device_info dt = profile_device("t4"), dh = profile_device("h200");
    lab->speed_size(0, &dt, t4);
    lab->speed_size(0, &dh, h200);
    EXPECT(t4[0] == 2048 && h200[0] == 4096, "n = 2048 on a T4 and 4096 on an H200 (the lab's "
           "comment); found %lld and %lld", t4[0], h200[0]);
}

/* The H200 itself: the sizes the workbook's measurements were taken at. */
static void test_h200_sizes_as_measured(void)
{
    const device_info d = profile_device("h200");
    static const struct {
        const char *lab;
        int task;
        long long size[LAB_MAX_DIMS]; /* as tests/gpu/results/h200-bench.txt and README.md's
                                         table describe them */
    } rows[] = {
        {"coalescing", 0, {15361, 8191}},
        {"banks", 0, {100, 1258291}},
        {"divergence", 0, {33554437}},
        {"ilp", 0, {125829117}},
        {"streams", 0, {268435449, 0, 1}},
        {"transpose", 0, {16384, 16384}},
        {"reduction", 0, {268435459}},
        {"tail", 0, {133, 2048, 132}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const lab_info *lab = NULL;
        for (int l = 0; l < n_all_labs; l++)
            if (!strcmp(all_labs[l]->name, rows[i].lab))
                lab = all_labs[l];
        CU_ASSERT_PTR_NOT_NULL_FATAL(lab);
        long long size[LAB_MAX_DIMS] = {0};
        for (int c = 0; c < lab->n_checks; c++)
            if (lab->checks[c].kind == CHECK_SPEED && lab->checks[c].task == rows[i].task) {
                memcpy(size, lab->checks[c].size, sizeof size);
                break;
            }
        lab->speed_size(rows[i].task, &d, size);
        EXPECT(!memcmp(size, rows[i].size, sizeof size),
               "h200, lab %s: the size measured there, %lld x %lld x %lld; found %lld x %lld x %lld",
               rows[i].lab, rows[i].size[0], rows[i].size[1], rows[i].size[2], size[0], size[1],
               size[2]);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Grading time                                                                               */

static void test_grade_time_t4(void)
{
    const device_info d = profile_device("t4");
    const double s = grade_model_total(&d, GRADE_SKELETONS, ROUNDS_AT_MOST);
    EXPECT(s <= 300, "make grade of the skeletons on a T4 within 5 minutes (300 s); predicted "
           "%.0f s", s);
    for (int p = 0; p < n_gpu_profiles; p++) {
        device_info g;
        device_from_profile(&gpu_profiles[p], &g);
        const double t = grade_model_total(&g, GRADE_SKELETONS, ROUNDS_AT_MOST);
        EXPECT(t <= 300, "make grade of the skeletons on %s within 5 minutes (300 s); predicted "
               "%.0f s", gpu_profiles[p].key, t);
    }
}

/* Every speed check of every lab is modelled, and its K problems fit the budget. */
static void test_grade_model_covers_every_check(void)
{
    for (int p = 0; p < n_gpu_profiles; p++) {
        device_info d;
        device_from_profile(&gpu_profiles[p], &d);
        for (int l = 0; l < n_all_labs; l++) {
            lab_prediction lp;
            grade_model_lab(all_labs[l], &d, GRADE_SKELETONS, ROUNDS_AT_MOST, &lp);
            for (int j = 0; j < lp.n_speed; j++) {
                const speed_prediction *sp = &lp.speed[j];
                EXPECT(sp->modelled, "lab %s, '%s': modelled (by its calibration row in grader/plan/grade_model.c or the default); "
                       "found none", all_labs[l]->name, all_labs[l]->checks[sp->check].name);
                /* The harness picks K within the budget; the L2 flush buffer comes on top. */
                const double flush = 2.0 * d.l2_bytes, problems = sp->memory_bytes - flush;
                EXPECT(problems <= sizing_memory_budget(&d),
                       "%s, lab %s, '%s': K = %d problems within the budget of %.0f MiB; found "
                       "%.0f MiB", gpu_profiles[p].key, all_labs[l]->name,
                       all_labs[l]->checks[sp->check].name, sp->calls_per_unit,
                       sizing_memory_budget(&d) / MIB, problems / MIB);
                EXPECT(sp->memory_bytes <= 0.6 * d.free_mem_bytes,
                       "%s, lab %s, '%s': the check's memory (problems and L2 flush) leaving 40%% "
                       "of the free %.0f MiB to the processes; found %.0f MiB held",
                       gpu_profiles[p].key, all_labs[l]->name,
                       all_labs[l]->checks[sp->check].name, d.free_mem_bytes / MIB,
                       sp->memory_bytes / MIB);
            }
        }
    }
}

/* The model against what it was fitted to: the H200's measured runs. */
static void test_grade_model_matches_the_h200(void)
{
    const device_info d = profile_device("h200");
    const double total = grade_model_total(&d, GRADE_SKELETONS, ROUNDS_EXPECTED);
    const double measured = grade_model_h200_total(GRADE_SKELETONS);
    EXPECT(fabs(total / measured - 1) < 0.15, "the skeletons' make grade on the H200 within 15%% "
           "of the measured %.0f s; predicted %.0f s", measured, total);
    for (int l = 0; l < n_all_labs; l++) {
        lab_prediction lp;
        grade_model_lab(all_labs[l], &d, GRADE_SKELETONS, ROUNDS_EXPECTED, &lp);
        for (int j = 0; j < lp.n_speed; j++) {
            const double m = grade_model_h200_seconds(all_labs[l], lp.speed[j].check,
                                                      GRADE_SKELETONS);
            const double r = lp.speed[j].seconds / m;
            EXPECT(m > 0 && r > 0.5 && r < 2.0, "lab %s, '%s' (skeleton) on the H200 within a "
                   "factor of 2 of the measured %.1f s; predicted %.1f s", all_labs[l]->name,
                   all_labs[l]->checks[lp.speed[j].check].name, m, lp.speed[j].seconds);
        }
        /* The 5-minute bound rests on ROUNDS_AT_MOST being an upper bound for the skeletons. */
        grade_model_lab(all_labs[l], &d, GRADE_SKELETONS, ROUNDS_AT_MOST, &lp);
        for (int j = 0; j < lp.n_speed; j++) {
            const double m = grade_model_h200_seconds(all_labs[l], lp.speed[j].check,
                                                      GRADE_SKELETONS);
            EXPECT(lp.speed[j].seconds >= m, "lab %s, '%s' (skeleton) on the H200: at most "
                   "%.1f s predicted, at least the measured %.1f s", all_labs[l]->name,
                   all_labs[l]->checks[lp.speed[j].check].name, lp.speed[j].seconds, m);
        }
    }
}

static CU_TestInfo profile_tests[] = {
    {"the GPU table: every GPU, every figure", test_profile_table},
    {"a device_info from a profile holds its figures", test_device_from_profile},
    {"bandwidth and FP32 ceilings follow the device", test_ceilings_follow_the_device},
    {"blocks per SM as the occupancy calculator says", test_blocks_per_sm},
    {"every lab's timed problem fits every GPU's budget", test_sizes_fit_memory},
    {"working sets outrun the L2 where the lab says", test_sizes_outrun_the_l2},
    {"lab 08's waves follow the SM count", test_tail_waves_follow_the_sms},
    {"lab 09 is sized for time on every GPU", test_sgemm_sized_for_time},
    {"the H200's sizes are the measured ones", test_h200_sizes_as_measured},
    {"make grade of the skeletons within 5 minutes", test_grade_time_t4},
    {"the grading model covers every check", test_grade_model_covers_every_check},
    {"the grading model matches the H200's runs", test_grade_model_matches_the_h200},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo profiles_suite = {"profiles", NULL, NULL, NULL, NULL, profile_tests};
