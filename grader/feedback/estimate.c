/* estimate.c - see estimate.h. The model is estimate.awk's; this file names the GPU, its
 * ceilings, and words the line. */
#include "estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const gpu_profile *estimate_gpu(void)
{
    const char *key = getenv("GPU_PROFILE");
    return gpu_profile_find(key && *key ? key : "t4");
}

double estimate_dram_bps(const gpu_profile *g)
{
    return g->mem_clock_khz * 1e3 * 2.0 * g->mem_bus_bits / 8.0;
}

int estimate_command_make(estimate_command *c, const char *tools, const char *table,
                          const char *sections, const char *counts, const char *second,
                          const char *source)
{
    const gpu_profile *g = estimate_gpu();
    if (!g)
        return -1;
    memset(c, 0, sizeof *c);
    snprintf(c->vars[0], sizeof c->vars[0], "sms=%d", g->sm_count);
    snprintf(c->vars[1], sizeof c->vars[1], "clock_hz=%.0f", g->sm_clock_khz * 1e3);
    snprintf(c->vars[2], sizeof c->vars[2], "dram_bps=%.0f", estimate_dram_bps(g));
    snprintf(c->vars[3], sizeof c->vars[3], "table=%s", table);
    snprintf(c->vars[4], sizeof c->vars[4], "mode=tsv");
    snprintf(c->vars[5], sizeof c->vars[5], "threads_per_sm=%d", g->max_threads_per_sm);
    snprintf(c->vars[6], sizeof c->vars[6], "%s/counts.awk", tools);
    snprintf(c->vars[7], sizeof c->vars[7], "%s/timeline.awk", tools);
    snprintf(c->vars[8], sizeof c->vars[8], "%s/estimate.awk", tools);
    snprintf(c->vars[9], sizeof c->vars[9], "sizes=2"); /* a check without a second: none */
    snprintf(c->vars[10], sizeof c->vars[10], "source=%s", source ? source : "");
    int n = 0;
    c->argv[n++] = "awk", c->argv[n++] = "-F", c->argv[n++] = "\t";
    for (int i = 0; i < 6; i++)
        c->argv[n++] = "-v", c->argv[n++] = c->vars[i];
    c->argv[n++] = "-v", c->argv[n++] = c->vars[9];
    c->argv[n++] = "-v", c->argv[n++] = c->vars[10];
    for (int i = 6; i < 9; i++)
        c->argv[n++] = "-f", c->argv[n++] = c->vars[i];
    c->argv[n++] = (char *)sections, c->argv[n++] = (char *)counts;
    if (second)
        c->argv[n++] = (char *)second;
    c->argv[n] = NULL;
    return 0;
}

const char *estimate_side(double ratio, double threshold)
{
    if (ratio <= threshold * ESTIMATE_ERROR && ratio >= threshold / ESTIMATE_ERROR)
        return ratio >= threshold ? "just above the mark, within the estimate's own error of it "
                                    "(a GPU may measure it on either side)"
                                  : "just below the mark, within the estimate's own error of it "
                                    "(a GPU may measure it on either side)";
    return ratio >= threshold ? "at or above the mark" : "below it";
}

static const char *bound_words(const char *b)
{
    if (!strcmp(b, "dram"))
        return "DRAM traffic";
    if (!strcmp(b, "shared"))
        return "shared-memory passes";
    if (!strcmp(b, "issue"))
        return "instruction issue";
    if (!strcmp(b, "latency"))
        return "loads in flight";
    if (!strcmp(b, "timeline"))
        return "its copies' and kernels' order on the engines";
    return "-";
}

int estimate_none(const char *limits, const char *lab_number, char *why, size_t len)
{
    why[0] = 0;
    FILE *f = limits ? fopen(limits, "r") : NULL;
    if (!f)
        return 0;
    char buf[1024];
    const size_t n = strlen(lab_number);
    int listed = 0;
    while (!listed && fgets(buf, sizeof buf, f))
        if (buf[0] != '#' && n && !strncmp(buf, lab_number, n) && buf[n] == '\t') {
            const char *words = buf + n + 1; /* the second column: the student's words */
            snprintf(why, len, "%.*s", (int)strcspn(words, "\t\n"), words);
            if (!why[0])
                snprintf(why, len, "the CPU emulator's counts do not see what sets its speed");
            listed = 1;
        }
    fclose(f);
    return listed;
}

/* What the estimate's figure `what` (estimate.awk's sizes line) is, for the student. */
static const char *figure_words(const char *what)
{
    static const struct { const char *key, *words; } names[] = {
        {"dram", "DRAM sectors"},
        {"shared", "shared-memory wavefronts"},
        {"issue", "warp instructions (loads, stores and branch bodies)"},
        {"latency", "time waiting on loads in flight"},
        {"span", "span on the copy and compute engines"},
        {"in", "bytes copied in"},
        {"out", "bytes copied out"},
        {"compute", "kernel threads"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(what, names[i].key))
            return names[i].words;
    return NULL;
}

/* The awk's extra line of check `check` saying that its call did work whose cost the counts do
 * not hold (atomics, printf, sleep or host: estimate.awk's unseen), worded into line; 0 when
 * there is none. */
static int estimate_unseen(const char *buf, int check, const char *lab_number,
                           const gpu_profile *g, char *line, size_t len)
{
    int c;
    double yours, theirs;
    if (sscanf(buf, "atomics %d\t%lf\t%lf", &c, &yours, &theirs) == 3 && c == check) {
        snprintf(line, len, "none: your counted call made %.0f atomic operations on global "
                 "memory (on %.0f%s addresses), and what they cost on a GPU turns on how many "
                 "threads contend for one address, which the CPU emulator's counts do not "
                 "model. make explain LAB=%s GPU_PROFILE=%s shows the counts; a GPU measures",
                 yours, theirs, theirs >= 4096 ? " or more" : "", lab_number, g->key);
        return 1;
    }
    if (sscanf(buf, "printf %d\t%lf\t%lf", &c, &yours, &theirs) == 3 && c == check) {
        snprintf(line, len, "none: your counted call made %.0f device printf calls (%.0f bytes "
                 "printed), and what they cost on a GPU, the driver's formatting and a buffer "
                 "every printing thread contends for, is not in the CPU emulator's counts. make "
                 "explain LAB=%s GPU_PROFILE=%s shows the counts; a GPU measures",
                 yours, theirs, lab_number, g->key);
        return 1;
    }
    if (sscanf(buf, "sleep %d\t%lf\t%lf", &c, &yours, &theirs) == 3 && c == check) {
        snprintf(line, len, "none: your counted call made %.0f __nanosleep calls (%.0f ns asked "
                 "for in all), and the time a thread sleeps is not in the CPU emulator's counts, "
                 "which hold loads, stores and instructions. make explain LAB=%s GPU_PROFILE=%s "
                 "shows the counts; a GPU measures", yours, theirs, lab_number, g->key);
        return 1;
    }
    if (sscanf(buf, "host %d\t%lf\t%lf", &c, &yours, &theirs) == 3 && c == check && theirs > 0) {
        snprintf(line, len, "none: your counted call copied %.0f bytes to or from the host "
                 "(%.1f%% of the %.0f the task moves), and the host's link and any work done on "
                 "the host are not in the CPU emulator's counts, which hold kernels' loads and "
                 "stores. make explain LAB=%s GPU_PROFILE=%s shows the counts; a GPU measures",
                 yours, 100 * yours / theirs, theirs, lab_number, g->key);
        return 1;
    }
    return 0;
}

/* The awk's extra line of check `check` saying why it gave no estimate (short or sizes, as
 * estimate.awk's tsv mode writes them, estimate_unseen's too), worded into line; 0 when there
 * is none. */
static int estimate_refused(const char *buf, int check, const char *lab_number,
                            const gpu_profile *g, char *line, size_t len)
{
    int c;
    char what[32], s1[64], s2[64], a[32], b[32], ea[32], eb[32];
    double yours, theirs;
    if (sscanf(buf, "short %d\t%31[a-z]\t%lf\t%lf", &c, what, &yours, &theirs) == 4 && c == check &&
        theirs > 0) {
        snprintf(line, len, "none: your counted call %s %.0f bytes where the task moves %.0f at "
                 "the least (%.0f%%), so the rest of its work was done where the CPU emulator "
                 "does not count it (on the host, say) and its count says nothing of its speed "
                 "on a GPU. make explain LAB=%s GPU_PROFILE=%s shows the counts; a GPU measures",
                 !strcmp(what, "copies") ? "copied in and out"
                                         : "touched in its kernels' loads and stores",
                 yours, theirs, 100 * yours / theirs, lab_number, g->key);
        return 1;
    }
    if (estimate_unseen(buf, check, lab_number, g, line, len))
        return 1;
    if (sscanf(buf, "other %d\t%31[A-Z_]", &c, what) == 2 && c == check) {
        snprintf(line, len, "none: your file compiles other code for the CPU emulator than for a "
                 "GPU (it names CUDA_EMU), so its count is of code that a GPU does not run; a GPU "
                 "measures");
        return 1;
    }
    if (sscanf(buf,
               "sizes %d\t%31[a-z:]\t%63[^\t]\t%31[^\t]\t%63[^\t]\t%31[^\t]\t%31[^\t]\t%31[^\t\n]",
               &c, what, s1, a, s2, b, ea, eb) != 8 ||
        c != check)
        return 0;
    if (!strcmp(what, "missing")) {
        snprintf(line, len, "none: the estimate counts your code at two sizes, and the second "
                 "was not counted (make explain LAB=%s GPU_PROFILE=%s says why)", lab_number,
                 g->key);
        return 1;
    }
    char *call = strstr(what, ":call");
    if (call)
        *call = 0;
    char figures[400];
    const char *w = figure_words(what);
    if (!w) /* the estimate itself */
        snprintf(figures, sizeof figures, "your code is estimated at %sx the reference at %s "
                 "but %sx at %s", a, s1, b, s2);
    else if (call) /* the reference has none of it: in its call's time */
        snprintf(figures, sizeof figures, "your %s come to %s of the reference's whole call at "
                 "%s but %s at %s (estimates %sx and %sx)", w, a, s1, b, s2, ea, eb);
    else if (!strcmp(what, "span")) /* in engine-lengths: per element already */
        snprintf(figures, sizeof figures, "your %s is %s engine-lengths at %s but %s at %s "
                 "(estimates %sx and %sx)", w, a, s1, b, s2, ea, eb);
    else
        snprintf(figures, sizeof figures, "your %s are %sx the reference's at %s but %sx at %s "
                 "(estimates %sx and %sx)", w, a, s1, b, s2, ea, eb);
    snprintf(line, len, "none: your code behaves differently at the two sizes counted, each "
             "against the reference at that size: %s. Code whose counts change with the size (or "
             "from run to run, as work issued from several host threads can) would be estimated "
             "for work the graded size may not do. make explain LAB=%s GPU_PROFILE=%s shows both "
             "counts; a GPU measures",
             figures, lab_number, g->key);
    return 1;
}

void estimate_line(const char *file, const char *limits, int check, double threshold,
                   const char *lab_number, char *line, size_t len)
{
    line[0] = 0;
    char why[600];
    if (estimate_none(limits, lab_number, why, sizeof why)) { /* no number at all */
        snprintf(line, len, "none for this lab: %s. Only a GPU can tell (make grade on a "
                 "machine with one times it)", why);
        return;
    }
    const gpu_profile *g = estimate_gpu();
    if (!g) { /* (the key is not repeated: it is whatever was typed) */
        snprintf(line, len, "none: GPU_PROFILE names no GPU of make profiles (t4, h200, ...: make "
                 "profiles lists them)");
        return;
    }
    FILE *f = file && *file ? fopen(file, "r") : NULL;
    if (!f)
        return;
    char buf[512], task[128], yb[32], rb[32], extra[64], ybound[32] = "", rbound[32] = "";
    int c, refused = 0;
    double ratio = -1, r;
    while (!refused && fgets(buf, sizeof buf, f)) {
        /* the awk's own output (numbers and words it chose), checked all the same */
        refused = estimate_refused(buf, check, lab_number, g, line, len);
        if (!refused &&
            sscanf(buf, "check %d\t%127[^\t]\t%lf\t%31[a-z]\t%31[a-z]%63s", &c, task, &r, yb, rb,
                   extra) == 5 &&
            c == check && r > 0 && r < 1e6) {
            ratio = r;
            snprintf(ybound, sizeof ybound, "%s", yb);
            snprintf(rbound, sizeof rbound, "%s", rb);
        }
    }
    fclose(f);
    if (!refused && ratio > 0)
        snprintf(line, len, "about %.2fx the reference on the %s (the mark: %.2fx), %s; yours "
                 "bound by %s, the reference by %s. An estimate from the CPU emulator's counts "
                 "at two sizes, not a measurement: it earns nothing and decides nothing (make "
                 "explain LAB=%s GPU_PROFILE=%s shows how it was reached; a GPU measures)",
                 ratio, g->name, threshold, estimate_side(ratio, threshold),
                 bound_words(ybound), bound_words(rbound), lab_number, g->key);
}
