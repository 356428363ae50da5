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
                          const char *sections, const char *counts)
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
    int n = 0;
    c->argv[n++] = "awk", c->argv[n++] = "-F", c->argv[n++] = "\t";
    for (int i = 0; i < 6; i++)
        c->argv[n++] = "-v", c->argv[n++] = c->vars[i];
    for (int i = 6; i < 9; i++)
        c->argv[n++] = "-f", c->argv[n++] = c->vars[i];
    c->argv[n++] = (char *)sections, c->argv[n++] = (char *)counts, c->argv[n] = NULL;
    return 0;
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

/* The reason lab_number's estimate is not to be trusted (limits: estimate-limits.tsv), or "". */
static void estimate_limit(const char *limits, const char *lab_number, char *why, size_t len)
{
    why[0] = 0;
    FILE *f = limits ? fopen(limits, "r") : NULL;
    if (!f)
        return;
    char buf[1024];
    const size_t n = strlen(lab_number);
    while (fgets(buf, sizeof buf, f))
        if (buf[0] != '#' && n && !strncmp(buf, lab_number, n) && buf[n] == '\t') {
            buf[strcspn(buf, "\n")] = 0;
            snprintf(why, len, "%s", buf + n + 1);
            break;
        }
    fclose(f);
}

void estimate_line(const char *file, const char *limits, int check, double threshold,
                   const char *lab_number, char *line, size_t len)
{
    line[0] = 0;
    const gpu_profile *g = estimate_gpu();
    if (!g) { /* (the key is not repeated: it is whatever was typed) */
        snprintf(line, len, "none: GPU_PROFILE names no GPU of make profiles (t4, h200, ...: make "
                 "profiles lists them)");
        return;
    }
    FILE *f = fopen(file, "r");
    if (!f)
        return;
    char buf[512], task[128], yb[32], rb[32], extra[64];
    int c;
    double ratio;
    while (fgets(buf, sizeof buf, f)) {
        /* the awk's own output (numbers and words it chose), checked all the same */
        if (sscanf(buf, "check %d\t%127[^\t]\t%lf\t%31[a-z]\t%31[a-z]%63s", &c, task, &ratio, yb,
                   rb, extra) != 5 || c != check || !(ratio > 0 && ratio < 1e6))
            continue;
        char why[600];
        estimate_limit(limits, lab_number, why, sizeof why);
        if (why[0]) /* the counts miss what costs the time here: said first, with the reason */
            snprintf(line, len, "not to be trusted for this lab (%s); the counts give about %.2fx "
                     "the reference on the %s (the mark: %.2fx). Not a measurement: it earns "
                     "nothing and decides nothing; a GPU measures",
                     why, ratio, g->name, threshold);
        else
            snprintf(line, len, "about %.2fx the reference on the %s (the mark: %.2fx), %s; yours "
                     "bound by %s, the reference by %s. An estimate from the CPU emulator's "
                     "counts, not a measurement: it earns nothing and decides nothing (make "
                     "explain LAB=%s GPU_PROFILE=%s shows how it was reached; a GPU measures)",
                     ratio, g->name, threshold, ratio >= threshold ? "at or above the mark" : "below it",
                     bound_words(yb), bound_words(rb), lab_number, g->key);
        break;
    }
    fclose(f);
}
