/* bench.c - TRUSTED, NO GPU: make bench in the driver: each lab's harness run with --bench and
 * its variants, its records made into the bench table (../tools/bench_table.h). */
#include "driver.h"
#include "../decide/verdict.h"
#include "../report/terminal.h"
#include "../tools/bench_table.h"
#include "../wire/child.h"
#include "../wire/records.h"
#include "../../common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lab's bench run: its harness with --bench, the lab's variants (--variants) named, under a
 * 1200 s limit, its records into l. 0, or 1 with what went wrong printed. */
static int bench_run(const options *o, const lab_info *lab, record_list *l)
{
    char exe[512], ref[512], worker_arg[512], results[512], log_path[512];
    snprintf(exe, sizeof exe, "%s/%s/harness", o->labdir, lab->name);
    snprintf(ref, sizeof ref, "%s/%s/reference.so", o->labdir, lab->name);
    snprintf(worker_arg, sizeof worker_arg, "%s", o->worker);
    report_lab_file(results, sizeof results, o->logs, lab->name, REPORT_BENCH_RECORDS);
    report_lab_file(log_path, sizeof log_path, o->logs, lab->name, REPORT_BENCH_LOG);
    unlink(results);
    unlink(log_path);
    char *argv[64];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "--bench";
    argv[n++] = "--worker";
    argv[n++] = worker_arg;
    argv[n++] = "--reference";
    argv[n++] = ref;
    argv[n++] = "--cap";
    argv[n++] = "20";
    argv[n++] = "--results";
    argv[n++] = results;
    char *copy = NULL;
    size_t name_len = strlen(lab->name);
    for (int i = 0; i < o->n_variants; i++)
        if (!strncmp(o->variants[i], lab->name, name_len) && o->variants[i][name_len] == ':') {
            copy = strdup(o->variants[i] + name_len + 1);
            char *save = NULL;
            for (char *v = strtok_r(copy, " ", &save); v && n < 60; v = strtok_r(NULL, " ", &save)) {
                argv[n++] = "--variant";
                argv[n++] = v;
            }
        }
    argv[n] = NULL;
    child_outcome out;
    run_child(argv, log_path, 1200, &out);
    free(copy);
    read_records(results, l);
    check_decision d;
    memset(&d, 0, sizeof d);
    if (decide_process(lab, &out, l, &d)) {
        printf("%s %-12s %s\n", lab->number, lab->name, d.message[0] ? d.message : "failed");
        print_log_tail(log_path, 12);
        return 1;
    }
    return 0;
}

/* make bench, one lab: its rows (bench_row), printed and written to <logs>/<lab>.tsv for the
 * lessons' tables and charts. 0, or 1 if it did not build or run. */
static int bench_lab(const options *o, const lab_info *lab)
{
    char build_log[1024];
    const lab_build build = built_lab(o, lab, build_log, sizeof build_log);
    if (build != LAB_BUILT) {
        printf("%s %-12s %s (%s)\n", lab->number, lab->name,
               build == LAB_STUDENT_FAILED ? "your file did not build"
               : build == LAB_REFUSED ? "the CPU emulator cannot run a feature of your file"
               : build == LAB_STEPS_FAILED ? "a ladder rung did not build"
               : build == LAB_NOT_BUILT ? "not built" : "the lab's own pieces did not build",
               build_log);
        if (build_log[0] && access(build_log, R_OK) == 0)
            print_build_errors(build_log);
        return 1;
    }
    record_list l;
    memset(&l, 0, sizeof l);
    if (bench_run(o, lab, &l)) {
        free_records(&l);
        return 1;
    }
    char tsv_path[600];
    report_lab_file(tsv_path, sizeof tsv_path, o->logs, lab->name, REPORT_BENCH_TABLE);
    bench_table_lab(lab, &l, tsv_path);
    free_records(&l);
    return 0;
}

/* make bench: the table's heading, then each lab's rows. Returns main's exit status. */
int bench_all(const options *o, const lab_info *const *labs, int n)
{
    bench_table_heading();
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad |= bench_lab(o, labs[i]);
    remove_built_dir(o);
    return bad ? 1 : 0;
}
