/* grade_model.c - predicted grading time and memory per GPU. See grade_model.h. */
#include "grade_model.h"
#include "../wire/proto.h"
#include "speed_plan.h"
#include "config.h"
#include "../../common/sizing.h"
#include "../../common/timing_rule.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* What the H200 measured                                                                     */

typedef enum bound {
    BOUND_DRAM,     /* device memory bandwidth (device_dram_peak_gbps) */
    BOUND_FP32,     /* FP32 FMA issue (device_fma_peak_gflops at the boost clock) */
    BOUND_INT32,    /* integer issue: 64 lanes per SM on every GPU here (the hash of lab 08) */
    BOUND_HOST_LINK /* pinned copies between host and device (gpu_profile.host_link_gbps) */
} bound;

/* One speed check as the H200 ran it. Rates and ratios are from the `speed:` lines of
 * tests/gpu/results/h200-grade-solutions.txt (the reference's rate: every run agrees within
 * 2%) and h200-grade-skeletons.txt. Seconds are from tests/gpu/results/h200-bench-grading.txt
 * (its 2026-11-25 pass with six rounds at least, eight alone): the skeletons' the mean of two
 * warm runs, the solutions' of three; correct_s, on the lab's first speed row only, every
 * correctness check of the lab together, a skeleton run. The skeletons' checks that stop early
 * (far below the mark: they stop after TIMING_EARLY_ROUNDS, three) are from that file's last
 * pass, the mean of three gradings of the skeletons (make grade and two batch students). */
typedef struct calibration {
    const char *lab;        /* lab name */
    int nth;                /* its nth speed check (0-based, table order) */
    bound bound;            /* what limits the reference */
    double ref_rate;        /* the reference's rate on the H200, the task's unit per second */
    double skeleton_ratio;  /* reference time / skeleton time on the H200 */
    double solution_ratio;  /* reference time / solution time (the solution graded as a student) */
    double skeleton_s;      /* the check's measured seconds, skeleton */
    double solution_s;      /* the check's measured seconds, solution */
    double correct_s;       /* the lab's correctness checks, seconds (first speed row only) */
} calibration;

static const calibration calibrations[] = {
    /* lab           nth bound            rate       skel  sol   skel_s sol_s  correct_s */
    {"coalescing",   0, BOUND_DRAM,      3907e9,    0.14, 1.00,  1.33, 1.49,  0.65},
    {"banks",        0, BOUND_DRAM,      1679e9,    0.13, 1.00,  1.19, 1.15,  0.32},
    /* divergence: the task of chains of 256 to 2048 steps by class. Rate and ratios from an
     * H200 run of tests/gpu/lab03-divergence.sh (make bench's reference 1.604 ms for 64.4
     * GFLOP, the skeleton graded 0.283, the reference 1.000). */
    {"divergence",   0, BOUND_FP32,      40165e9,   0.28, 1.00,  0.91, 0.89,  0.53},
    {"ilp",          0, BOUND_DRAM,      2661e9,    0.22, 1.00,  1.12, 1.37,  0.41},
    {"ilp",          1, BOUND_FP32,      62912e9,   0.45, 1.00,  0.60, 0.70,  0.0},
    {"streams",      0, BOUND_HOST_LINK, 93e9,      0.39, 1.00,  2.68, 4.00,  0.46},
    {"transpose",    0, BOUND_DRAM,      3888e9,    0.13, 1.00,  1.16, 1.32,  0.36},
    {"reduction",    0, BOUND_DRAM,      4407e9,    0.10, 1.00,  1.44, 1.67,  0.84},
    {"tail",         0, BOUND_INT32,     364e9,     0.52, 1.00,  0.70, 0.87,  0.15},
    {"tail",         1, BOUND_INT32,     365e9,     0.69, 0.99,  0.58, 0.63,  0.0},
    {"sgemm",        0, BOUND_FP32,      48011e9,   0.01, 0.99,  5.04, 0.88,  0.19},
};
#define N_CALIBRATIONS ((int)(sizeof calibrations / sizeof calibrations[0]))

/* A check without a row (a lab added since, not yet graded on an H200): a memory-bound
 * reference at 0.8 of the H200's copy rate, the skeleton at a quarter of it, the solution at
 * par, and the lab's correctness checks a second. A guess to size and time the check by,
 * until an H200 run gives the row; make profiles marks it. */
static const calibration uncalibrated = {NULL, 0, BOUND_DRAM, 3300e9, 0.25, 1.00, 5.0, 4.0, 1.0};

static const calibration *calibration_of(const char *lab, int nth)
{
    for (int i = 0; i < N_CALIBRATIONS; i++)
        if (!strcmp(calibrations[i].lab, lab) && calibrations[i].nth == nth)
            return &calibrations[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The fitted costs                                                                           */

/* Least squares of the log of each time over the measured checks above (ROUNDS_EXPECTED, the
 * skeletons and the solutions), the null call's cost and the pinning rate held at what was
 * measured; fitted while a skeleton's early stop took four rounds, and not fitted again when
 * the rows of the skeletons' checks that stop early were measured with three. The skeletons'
 * check times add up to 20 s against 21 s measured, the solutions' to 20 s against 19 s;
 * single checks within a factor of two (furthest under: the skeletons of labs 01 and 04's
 * memory task, 0.94 s for 1.33 s and 0.79 s for 1.12 s; furthest over: lab 04's arithmetic
 * task's skeleton, 0.95 s for 0.60 s). */

/* A null call through the worker path, seconds (H200, grader/harness/harness.cu). */
#define NULL_CALL_S 0.15e-3
/* Bytes a round moves per byte of its K problems (fresh inputs, hashed inputs, poisoned, saved
 * and compared outputs), at DRAM speed. */
#define ROUND_TRAFFIC 3.4
/* A round's host work per GB of pinned host arrays (lab 05: its checks over the host link). */
#define HOST_S_PER_GB 0.026
/* A check's cost once: two clock probes, K's calibration, creating the problems, records. */
#define CHECK_FIXED_S 0.36
/* The student's fresh process pins the problem's host arrays it is handed, once per phase:
 * seconds per GB of the problem's pinned host memory (lab 05 on the H200: 1.2-1.4 s of its
 * warm-up round for 3.2 GB, its input and the two outputs). */
#define PIN_S_PER_GB 0.4

/* The resource a bound names, on d, in its own unit per second. */
static double resource(bound b, const device_info *d, double host_link_gbps)
{
    switch (b) {
    case BOUND_DRAM: return device_dram_peak_gbps(d) * 1e9;
    case BOUND_FP32: return device_fma_peak_gflops(d, d->sm_clock_khz / 1e3) * 1e9;
    case BOUND_INT32: return 64.0 * d->sm_count * d->sm_clock_khz * 1e3;
    case BOUND_HOST_LINK:
        /* One copy engine cannot overlap the two directions (lab 05's reference does). */
        return host_link_gbps * 1e9 * (d->async_engines >= 2 ? 1.0 : 0.5);
    }
    return 0;
}

/* The host link of the profile whose device this is (not in device_info: the harness measures
 * nothing of it); the H200's when the name matches no profile. */
static double host_link_of(const device_info *d)
{
    for (int i = 0; i < n_gpu_profiles; i++)
        if (!strcmp(gpu_profiles[i].name, d->name))
            return gpu_profiles[i].host_link_gbps;
    return gpu_profile_find("h200")->host_link_gbps;
}

/* The rules in force (grade_model_rules); NULL: the tables' own. */
static const config *model_rules;

void grade_model_rules(const config *cfg)
{
    model_rules = cfg;
}

/* Interleaved rounds kept (warm-up not counted) for a verdict at `ratio` against `threshold`,
 * when a round lasts round_s. Expected: a ratio below TIMING_EARLY_BELOW x the threshold stops
 * after TIMING_EARLY_ROUNDS rounds (an untouched skeleton, mostly); at most, the full plan. */
static int phase_rounds(double ratio, double threshold, double round_s, grade_rounds mode)
{
    const int clear = ratio < TIMING_CLEAR_BELOW * threshold || ratio > TIMING_CLEAR_ABOVE * threshold;
    const speed_phase *ph = &speed_phases[PHASE_SAMPLE];
    int n;
    if (mode == ROUNDS_EXPECTED && ratio < TIMING_EARLY_BELOW * threshold)
        n = TIMING_EARLY_ROUNDS;
    else if (clear)
        n = TIMING_CLEAR_ROUNDS * ph->min_rounds; /* STOP_CLEAR, if not precise before */
    else
        n = mode == ROUNDS_AT_MOST ? ph->max_rounds : ph->min_rounds; /* precise, at best */
    /* The soft cap stops it once min_rounds are kept (the skeleton never straddles the mark). */
    const int by_cap = (int)ceil(SPEED_CAP_S / round_s);
    if (n > by_cap)
        n = by_cap > ph->min_rounds ? by_cap : ph->min_rounds;
    return n;
}

/* Seconds of phase `id` of the timing plan (speed_plan.h) when it keeps `kept` rounds (its
 * own fixed rounds where kept < 0), each round_s long, its warm-up first: at most its hard cap
 * and the round that crosses it. */
static double phase_seconds(speed_phase_id id, int kept, double round_s)
{
    const speed_phase *ph = &speed_phases[id];
    const double s = (ph->warmup_rounds + (kept < 0 ? ph->max_rounds : kept)) * round_s;
    const double cap = speed_phase_cap_s(ph, SPEED_CAP_S) + round_s;
    return s > cap ? cap : s;
}

static void predict_speed(const lab_info *lab, int check, const calibration *cal,
                          const device_info *d, grade_subject who, grade_rounds mode,
                          speed_prediction *p)
{
    const lab_check *c = &lab->checks[check];
    memset(p, 0, sizeof *p);
    p->check = check;
    lab_speed_problem_size(lab, c, d, p->size);
    lab->footprint(c->task, p->size, &p->f);
    p->modelled = 1;
    p->calibrated = cal != NULL;
    if (!cal)
        cal = &uncalibrated;
    const device_info *h200 = NULL;
    static device_info h200_info;
    if (!h200_info.sm_count)
        device_from_profile(gpu_profile_find("h200"), &h200_info);
    h200 = &h200_info;
    const double rate = cal->ref_rate * resource(cal->bound, d, host_link_of(d)) /
                        resource(cal->bound, h200, host_link_of(h200));
    const double ratio = who == GRADE_SKELETONS ? cal->skeleton_ratio : cal->solution_ratio;
    p->ref_call_s = p->f.work / rate;
    p->student_call_s = p->ref_call_s / ratio;

    /* K as speed_instances picks it: a unit of SPEED_UNIT_MS at the reference's speed, at most
     * PROTO_MAX_CALLS problems, all of them within the memory budget. */
    const double per = p->f.device_bytes + p->f.output_bytes;
    int k = (int)ceil(SPEED_UNIT_MS * 1e-3 / p->ref_call_s);
    const double budget = (double)sizing_memory_budget(d);
    if (k * per > budget)
        k = (int)(budget / per);
    k = k < 1 ? 1 : k > PROTO_MAX_CALLS ? PROTO_MAX_CALLS : k;
    p->calls_per_unit = k;
    p->memory_bytes = k * per + 2.0 * d->l2_bytes; /* + the L2 flush buffer (timing.cu) */

    const double dram = device_dram_peak_gbps(d) * 1e9;
    const double traffic_s =
        ROUND_TRAFFIC * k * per / dram + HOST_S_PER_GB * k * p->f.host_bytes / 1e9;
    const double round_s = k * (p->ref_call_s + p->student_call_s) + NULL_CALL_S + traffic_s;
    const double threshold = config_pass_mark(model_rules, lab, NULL);
    const int kept = phase_rounds(ratio, threshold, round_s, mode);
    p->rounds = speed_phases[PHASE_SAMPLE].warmup_rounds + kept;
    const double phase1 = phase_seconds(PHASE_SAMPLE, kept, round_s);
    /* The reference alone (its own traffic as well), then the ceiling: K calls a round. A
     * check whose ratio is surely below the pass mark (harness_speed.cu, ratio_surely_below), a
     * skeleton's, skips the reference alone: expected, it is left out there; at most, it is
     * counted all the same. */
    const double alone_round = k * p->ref_call_s + NULL_CALL_S + traffic_s;
    double alone = phase_seconds(PHASE_ALONE, -1, alone_round);
    if (mode == ROUNDS_EXPECTED && ratio < TIMING_CLEAR_BELOW * threshold)
        alone = 0;
    /* At most, the reference ran slower beside the student than alone: both are measured
     * again (harness_speed.cu, reference_alone), each its fixed rounds, within its cap. */
    double again = 0;
    if (mode == ROUNDS_AT_MOST)
        again = phase_seconds(PHASE_AGAIN_BESIDE, -1, round_s) +
                phase_seconds(PHASE_AGAIN_ALONE, -1, alone_round);
    /* The ceiling timed alone (where the lab times it) */
    const double ceiling = phase_seconds(PHASE_CEILING, -1, k * p->ref_call_s);
    const double setup = CHECK_FIXED_S + 3 * p->ref_call_s + PIN_S_PER_GB * k * p->f.host_bytes / 1e9;
    p->seconds = setup + phase1 + alone + again + ceiling;
}

void grade_model_lab(const lab_info *lab, const device_info *d, grade_subject who,
                     grade_rounds rounds, lab_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->lab = lab;
    int nth = 0;
    for (int i = 0; i < lab->n_checks; i++) {
        if (lab->checks[i].kind != CHECK_SPEED)
            continue;
        const calibration *cal = calibration_of(lab->name, nth);
        if (nth == 0)
            out->correctness_s = (cal ? cal : &uncalibrated)->correct_s;
        if (out->n_speed < GRADE_MODEL_MAX_SPEED) {
            speed_prediction *p = &out->speed[out->n_speed++];
            predict_speed(lab, i, cal, d, who, rounds, p);
            out->seconds += p->seconds;
        }
        nth++;
    }
    out->seconds += out->correctness_s;
}

double grade_model_total(const device_info *d, grade_subject who, grade_rounds rounds)
{
    double s = 0;
    for (int i = 0; i < n_all_labs; i++) {
        lab_prediction p;
        grade_model_lab(all_labs[i], d, who, rounds, &p);
        s += p.seconds;
    }
    return s;
}

double grade_model_h200_seconds(const lab_info *lab, int check, grade_subject who)
{
    int nth = 0;
    for (int i = 0; i < lab->n_checks && i < check; i++)
        nth += lab->checks[i].kind == CHECK_SPEED;
    if (lab->checks[check].kind != CHECK_SPEED)
        return -1;
    const calibration *cal = calibration_of(lab->name, nth);
    if (!cal)
        return -1;
    return who == GRADE_SKELETONS ? cal->skeleton_s : cal->solution_s;
}

double grade_model_h200_total(grade_subject who)
{
    double s = 0;
    for (int i = 0; i < N_CALIBRATIONS; i++)
        s += (who == GRADE_SKELETONS ? calibrations[i].skeleton_s : calibrations[i].solution_s) +
             calibrations[i].correct_s;
    return s;
}
