/* profiles.c - `make profiles`: for every GPU of common/gpu_profiles.h, each lab's timed
 * problem as the lab's sizing code makes it there, the device memory it holds, and how long
 * `make grade` would take (grader/plan/grade_model.h). No GPU needed.
 *
 *     profiles            every profile, then a summary table
 *     profiles KEY...     only these (t4, h200, ...)
 *     profiles --h200     the model against the H200's measured per-check times
 *     profiles --sms KEY  KEY's SM count <tab> its name (make explain GPU_PROFILE=KEY)
 *     profiles --ceilings KEY  KEY's SMs <tab> SM clock (Hz) <tab> DRAM bandwidth (bytes/s)
 *                         <tab> threads an SM holds <tab> its name: the speed estimate's ceilings (feedback/estimate.sh) */
#include "../plan/config.h"
#include "../plan/grade_model.h"
#include "../feedback/estimate.h"
#include "../../common/sizing.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

static void size_text(const long long size[LAB_MAX_DIMS], char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    for (int i = 0; i < LAB_MAX_DIMS && size[i] > 0; i++)
        n += snprintf(buf + n, len - n, "%s%lld", i ? " x " : "", size[i]);
}

static void bytes_text(double b, char *buf, size_t len)
{
    if (b >= 10 * GIB)
        snprintf(buf, len, "%.0f GiB", b / GIB);
    else if (b >= GIB)
        snprintf(buf, len, "%.1f GiB", b / GIB);
    else
        snprintf(buf, len, "%.0f MiB", b / MIB);
}

static void print_profile(const gpu_profile *g)
{
    device_info d;
    device_from_profile(g, &d);
    char l2[32], mem[32], budget[32];
    bytes_text((double)d.l2_bytes, l2, sizeof l2);
    bytes_text((double)d.global_mem_bytes, mem, sizeof mem);
    bytes_text((double)sizing_memory_budget(&d), budget, sizeof budget);
    printf("== %s (%s): cc %d.%d, %d SMs, %s L2, %s (budget %s), %.0f GB/s, %.1f TFLOP/s FP32\n",
           g->name, g->key, d.cc_major, d.cc_minor, d.sm_count, l2, mem, budget,
           device_dram_peak_gbps(&d), device_fma_peak_gflops(&d, d.sm_clock_khz / 1e3) / 1e3);
    printf("  %-13s %-42s %-22s %9s %5s %3s %8s %8s\n", "lab", "speed check", "size", "memory",
           "L2x", "K", "skel s", "sol s");
    double total_skel = 0, total_sol = 0;
    for (int i = 0; i < n_all_labs; i++) {
        lab_prediction skel, sol;
        grade_model_lab(all_labs[i], &d, GRADE_SKELETONS, ROUNDS_AT_MOST, &skel);
        grade_model_lab(all_labs[i], &d, GRADE_SOLUTIONS, ROUNDS_AT_MOST, &sol);
        total_skel += skel.seconds;
        total_sol += sol.seconds;
        for (int j = 0; j < skel.n_speed; j++) {
            const speed_prediction *p = &skel.speed[j];
            char sz[64], m[32], lab[32];
            size_text(p->size, sz, sizeof sz);
            bytes_text(p->memory_bytes, m, sizeof m);
            snprintf(lab, sizeof lab, "%s %s", all_labs[i]->number, all_labs[i]->name);
            printf("  %-13s %-42.42s %-22s %9s %5.0f %3d %8.1f %8.1f%s\n", j ? "" : lab,
                   all_labs[i]->checks[p->check].name, sz, m, p->f.working_set / d.l2_bytes,
                   p->calls_per_unit, p->seconds, sol.speed[j].seconds,
                   p->calibrated ? "" : "  (no H200 row yet: the model's default)");
        }
    }
    printf("  make grade (checks, not the build): skeletons at most %.0f s (%.1f min), "
           "solutions at most %.0f s\n\n", total_skel, total_skel / 60, total_sol);
}

static void print_summary(void)
{
    printf("%-18s %5s %8s %9s %9s %12s %12s\n", "profile", "SMs", "L2", "memory", "budget",
           "skeletons s", "solutions s");
    for (int i = 0; i < n_gpu_profiles; i++) {
        device_info d;
        device_from_profile(&gpu_profiles[i], &d);
        char l2[32], mem[32], budget[32];
        bytes_text((double)d.l2_bytes, l2, sizeof l2);
        bytes_text((double)d.global_mem_bytes, mem, sizeof mem);
        bytes_text((double)sizing_memory_budget(&d), budget, sizeof budget);
        printf("%-18s %5d %8s %9s %9s %12.0f %12.0f\n", gpu_profiles[i].key, d.sm_count, l2, mem,
               budget, grade_model_total(&d, GRADE_SKELETONS, ROUNDS_AT_MOST),
               grade_model_total(&d, GRADE_SOLUTIONS, ROUNDS_AT_MOST));
    }
    printf("(predicted seconds of a whole `make grade`, the build not included: the rounds the\n"
           " stopping rule takes at most, the rates the reference and the skeletons reached on\n"
           " the H200 scaled by each GPU's bandwidth or FP32 rate; grader/plan/grade_model.h)\n");
}

static void print_h200(void)
{
    device_info d;
    device_from_profile(gpu_profile_find("h200"), &d);
    printf("The model (rounds an H200 run takes) against the H200's measured seconds per check:\n");
    printf("  %-13s %-42s %8s %8s %8s %8s\n", "lab", "speed check", "skel", "measured", "sol",
           "measured");
    for (int i = 0; i < n_all_labs; i++) {
        lab_prediction skel, sol;
        grade_model_lab(all_labs[i], &d, GRADE_SKELETONS, ROUNDS_EXPECTED, &skel);
        grade_model_lab(all_labs[i], &d, GRADE_SOLUTIONS, ROUNDS_EXPECTED, &sol);
        for (int j = 0; j < skel.n_speed; j++) {
            const int c = skel.speed[j].check;
            char lab[32];
            snprintf(lab, sizeof lab, "%s %s", all_labs[i]->number, all_labs[i]->name);
            printf("  %-13s %-42.42s %8.1f %8.1f %8.1f %8.1f\n", j ? "" : lab,
                   all_labs[i]->checks[c].name, skel.speed[j].seconds,
                   grade_model_h200_seconds(all_labs[i], c, GRADE_SKELETONS), sol.speed[j].seconds,
                   grade_model_h200_seconds(all_labs[i], c, GRADE_SOLUTIONS));
        }
    }
    printf("  whole make grade: skeletons %.0f s (measured %.0f), solutions %.0f s (measured %.0f)\n",
           grade_model_total(&d, GRADE_SKELETONS, ROUNDS_EXPECTED),
           grade_model_h200_total(GRADE_SKELETONS),
           grade_model_total(&d, GRADE_SOLUTIONS, ROUNDS_EXPECTED),
           grade_model_h200_total(GRADE_SOLUTIONS));
}

int main(int argc, char **argv)
{
    /* the course config in force: its pass marks set how long each speed check runs */
    static config cfg;
    char err[512];
    if (config_load(&cfg, err, sizeof err)) {
        fprintf(stderr, "profiles: %s\n", err);
        return 2;
    }
    grade_model_rules(&cfg);
    if (argc > 1 && !strcmp(argv[1], "--h200")) {
        print_h200();
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--ceilings")) {
        const gpu_profile *g = gpu_profile_find(argv[2]);
        if (!g) {
            fprintf(stderr, "profiles: no GPU profile '%s' (make profiles lists them)\n", argv[2]);
            return 2;
        }
        printf("%d\t%.0f\t%.0f\t%d\t%s\n", g->sm_count, g->sm_clock_khz * 1e3, estimate_dram_bps(g),
               g->max_threads_per_sm, g->name);
        return 0;
    }
    const int sms_only = argc > 2 && !strcmp(argv[1], "--sms");
    if (argc > 1) {
        for (int i = 1 + sms_only; i < argc; i++) {
            const gpu_profile *g = gpu_profile_find(argv[i]);
            if (!g) {
                fprintf(stderr, "profiles: no GPU profile '%s' (expected one of:", argv[i]);
                for (int j = 0; j < n_gpu_profiles; j++)
                    fprintf(stderr, " %s", gpu_profiles[j].key);
                fprintf(stderr, ")\n");
                return 2;
            }
            if (sms_only)
                printf("%d\t%s\n", g->sm_count, g->name);
            else
                print_profile(g);
        }
        return 0;
    }
    for (int i = 0; i < n_gpu_profiles; i++)
        print_profile(&gpu_profiles[i]);
    print_summary();
    return 0;
}
