/* driver.c - `make grade` and `make bench`: the trusted grader's main program.
 *
 *   grade-driver --runners DIR --mode gpu|emu [--lab NAME,...] [--seed S] [--student DIR]
 *                [--build 'COMMAND %s'] [--json FILE] [--logs DIR] [--bench]
 *
 * For each lab: build its runner (the command, with %s replaced by the lab's name), then run
 * each row of the lab's table in its own child process with a time limit, and decide each
 * verdict here from the records the runner wrote. A build failure, crash or hang costs that
 * lab's points and grading goes on. Prints one line per check and `Score: N/M`; writes
 * everything needed to regrade to the JSON file. Exit: 0 full marks, 1 a point was lost,
 * 2 a check could not run (and none failed). */
#include "config.h"
#include "driver.h"
#include "../common/json.h"
#include "../common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct options {
    const char *runners;  /* directory holding <lab>/runner */
    const char *mode;     /* "gpu" or "emu" */
    const char *labs;     /* comma-separated lab names or numbers, or NULL for all */
    const char *student;  /* the student directory graded, for the report */
    const char *build;    /* build command with %s for the lab name, or NULL */
    const char *json;     /* where results.json goes */
    const char *logs;     /* where per-check logs go */
    unsigned long long seed; /* the run's secret seed */
    int bench;            /* 1: print the bench table instead of grading */
} options;

/* ------------------------------------------------------------------------------------------ */
/* Terminal output                                                                             */

static int use_colour;

static const char *colour(verdict v)
{
    if (!use_colour)
        return "";
    switch (v) {
    case VERDICT_OK: return "\033[32m";
    case VERDICT_FAIL: return "\033[31m";
    default: return "\033[33m";
    }
}

static const char *verdict_word(verdict v)
{
    static const char *const words[] = {"OK", "FAIL", "SKIP", "ERROR"};
    return words[v];
}

static void print_line(const char *name, verdict v, double seconds, const char *message)
{
    char dotted[56];
    snprintf(dotted, sizeof dotted, "%.53s ", name);
    for (size_t i = strlen(dotted); i < sizeof dotted - 1; i++)
        dotted[i] = '.';
    dotted[sizeof dotted - 1] = 0;
    printf("  %s %s%-5s%s (%5.1fs) %s\n", dotted, colour(v), verdict_word(v),
           use_colour ? "\033[0m" : "", seconds, message);
}

static void print_indented(const char *label, const char *text)
{
    if (text && *text)
        printf("      %s%s\n", label, text);
}

/* Print the last `lines` lines of a log file, indented: what the student's code printed. */
static void print_log_tail(const char *path, int lines)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *all[64] = {0};
    char buf[512];
    int n = 0;
    while (fgets(buf, sizeof buf, f)) {
        free(all[n % 64]);
        all[n % 64] = strdup(buf);
        n++;
    }
    fclose(f);
    const int first = n > lines ? n - lines : 0;
    if (n > 0)
        printf("      output (%s):\n", path);
    for (int i = first; i < n; i++)
        printf("      | %s", all[i % 64]);
    for (int i = 0; i < 64; i++)
        free(all[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* Building a lab                                                                              */

/* Run the build command for `lab`; 1 on success. On failure prints the interesting lines. */
static int build_lab(const options *o, const lab_info *lab, char *log_path, size_t len)
{
    if (!o->build)
        return 1;
    char cmd[2048];
    const char *pct = strstr(o->build, "%s");
    if (pct)
        snprintf(cmd, sizeof cmd, "%.*s%s%s", (int)(pct - o->build), o->build, lab->name, pct + 2);
    else
        snprintf(cmd, sizeof cmd, "%s", o->build);
    snprintf(log_path, len, "%s/%s.build.log", o->logs, lab->name);
    unlink(log_path);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    child_outcome out;
    run_child(argv, log_path, 1800, &out);
    return out.exited && out.status == 0;
}

static void print_build_errors(const char *log_path)
{
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char buf[1024];
    int shown = 0;
    while (fgets(buf, sizeof buf, f) && shown < 20)
        if (strstr(buf, "error") || strstr(buf, "rejected") || strstr(buf, "Error")) {
            printf("      | %s", buf);
            shown++;
        }
    fclose(f);
    if (!shown)
        print_log_tail(log_path, 15);
    printf("      full build log: %s\n", log_path);
}

/* ------------------------------------------------------------------------------------------ */
/* Grading                                                                                     */

typedef struct totals {
    int earned, possible; /* points */
    int failed;           /* checks that lost points */
    int not_run;          /* checks skipped or in error */
} totals;

static void json_speed(json_writer *w, const speed_figures *f, double threshold,
                       const record_list *l)
{
    json_object_begin(w, "speed");
    json_number(w, "ratio_median", f->ratio);
    json_number(w, "ratio_ci95_lo", f->ci_lo);
    json_number(w, "ratio_ci95_hi", f->ci_hi);
    json_number(w, "threshold", threshold);
    json_bool(w, "close_call", f->close_call);
    json_int(w, "rounds", f->rounds);
    json_number(w, "student_ms_median", f->stu_ms);
    json_number(w, "reference_ms_median", f->ref_ms);
    json_number(w, "rate", f->rate);
    json_string(w, "unit", f->unit);
    json_string(w, "ceiling", f->ceiling);
    json_number(w, "ceiling_rate", f->ceiling_rate);
    const char *keys[] = {"stu_ms", "ref_ms", "stu_host_ms", "ref_host_ms"};
    const char *names[] = {"student_event_ms", "reference_event_ms", "student_host_ms",
                           "reference_host_ms"};
    for (int k = 0; k < 4; k++) {
        json_array_begin(w, names[k]);
        for (int i = 0; i < l->n; i++) {
            double v;
            if (!strcmp(l->rec[i].type, "sample") && !record_get_num(&l->rec[i], keys[k], &v))
                json_number(w, NULL, v);
        }
        json_array_end(w);
    }
    json_object_end(w);
}

static void json_device(json_writer *w, const record *dev)
{
    json_object_begin(w, "device");
    for (int i = 0; i < dev->n; i++)
        json_string(w, dev->key[i], dev->value[i]);
    json_object_end(w);
}

static void grade_lab(const options *o, const config *cfg, const lab_info *lab, json_writer *w,
                      totals *t)
{
    const char *thr_src, *spd_src, *cor_src, *tmo_src;
    const double threshold = config_get(cfg, lab->name, "threshold", lab->threshold, &thr_src);
    const double speed_pts = config_get(cfg, lab->name, "speed_points", -1, &spd_src);
    const double correct_pts = config_get(cfg, lab->name, "correct_points", -1, &cor_src);
    double timeout = config_get(cfg, lab->name, "timeout", lab->timeout_s, &tmo_src);
    if (!strcmp(o->mode, "emu") && !strcmp(tmo_src, "default"))
        timeout *= 5; /* the emulator with sanitizers is far slower than a GPU */

    printf("\n== %s %s: %s (%s/%s-%s/%s.cu)\n", lab->number, lab->name, lab->title, o->student,
           lab->number, lab->name, lab->name);
    json_object_begin(w, NULL);
    json_string(w, "lab", lab->name);
    json_string(w, "number", lab->number);
    json_number(w, "threshold", threshold);
    json_string(w, "threshold_source", thr_src);
    json_number(w, "timeout_s", timeout);

    char build_log[512];
    const int built = build_lab(o, lab, build_log, sizeof build_log);
    json_bool(w, "built", built);
    if (!built) {
        printf("  build failed: your file did not compile or was rejected\n");
        print_build_errors(build_log);
        json_string(w, "build_log", build_log);
    }
    json_array_begin(w, "checks");
    int lab_earned = 0, lab_possible = 0, all_correct = 1;
    int env_error = 0; /* set once a check could not run for a reason outside the code */
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *c = &lab->checks[i];
        int points = c->points;
        if (c->kind == CHECK_SPEED && speed_pts >= 0)
            points = (int)speed_pts;
        if (c->kind != CHECK_SPEED && correct_pts >= 0)
            points = (int)correct_pts;
        lab_possible += points;

        check_decision d;
        memset(&d, 0, sizeof d);
        record_list l;
        memset(&l, 0, sizeof l);
        child_outcome out;
        memset(&out, 0, sizeof out);
        char log_path[512] = "";
        char name[160];
        snprintf(name, sizeof name, "%s", c->name);
        if (!built) {
            d.v = VERDICT_FAIL;
            snprintf(d.message, sizeof d.message, "not run: the build failed");
        } else if (env_error) { /* the machine cannot run this lab: say it once */
            d.v = VERDICT_ERROR;
            snprintf(d.message, sizeof d.message, "not run (same reason as above)");
        } else if (c->kind == CHECK_SPEED && !all_correct) {
            d.v = VERDICT_SKIP;
            snprintf(d.message, sizeof d.message,
                     "skipped: speed counts only once every correctness check passes");
        } else {
            char runner[512], results[512], check_s[16], seed_s[32], thr_s[32];
            snprintf(runner, sizeof runner, "%s/%s/runner", o->runners, lab->name);
            snprintf(results, sizeof results, "%s/%s.%d.records", o->logs, lab->name, i);
            snprintf(log_path, sizeof log_path, "%s/%s.%d.log", o->logs, lab->name, i);
            snprintf(check_s, sizeof check_s, "%d", i);
            snprintf(seed_s, sizeof seed_s, "0x%llx", o->seed);
            snprintf(thr_s, sizeof thr_s, "%.6g", threshold);
            unlink(results);
            unlink(log_path);
            char *argv[] = {runner, "--check", check_s, "--seed", seed_s, "--threshold", thr_s,
                            "--results", results, NULL};
            run_child(argv, log_path, timeout, &out);
            read_records(results, &l);
            decide_check(lab, c, threshold, &out, &l, &d);
        }
        if (c->kind != CHECK_SPEED && d.v != VERDICT_OK)
            all_correct = 0;
        if (d.v == VERDICT_ERROR)
            env_error = 1;
        const int earned = d.v == VERDICT_OK ? points : 0;
        lab_earned += earned;
        if (d.v == VERDICT_FAIL)
            t->failed++;
        if (d.v == VERDICT_SKIP || d.v == VERDICT_ERROR)
            t->not_run++;
        if (c->kind == CHECK_HIDDEN && d.size[0]) /* show what the seed drew */
            snprintf(name, sizeof name, "%s: %s", c->name, d.size);
        print_line(name, d.v, out.seconds, d.message);
        if (d.v == VERDICT_FAIL) {
            print_indented("HINT: ", d.detail);
            if (log_path[0] && (out.timed_out || !out.exited || out.status != 0))
                print_log_tail(log_path, 8);
        }
        const record *dev = find_record(&l, "device", 0);
        json_object_begin(w, NULL);
        json_string(w, "name", c->name);
        json_string(w, "kind", c->kind == CHECK_VISIBLE ? "visible"
                               : c->kind == CHECK_HIDDEN ? "hidden" : "speed");
        json_string(w, "size", d.size);
        json_string(w, "verdict", verdict_word(d.v));
        json_string(w, "message", d.message);
        json_string(w, "detail", d.detail);
        json_int(w, "points", points);
        json_int(w, "earned", earned);
        json_number(w, "seconds", out.seconds);
        if (log_path[0])
            json_string(w, "log", log_path);
        if (dev)
            json_device(w, dev);
        if (d.has_speed)
            json_speed(w, &d.speed, threshold, &l);
        json_object_end(w);
        free_records(&l);
    }
    json_array_end(w);
    json_int(w, "score", lab_earned);
    json_int(w, "max", lab_possible);
    json_object_end(w);
    printf("  %s: %d/%d\n", lab->name, lab_earned, lab_possible);
    t->earned += lab_earned;
    t->possible += lab_possible;
}

/* ------------------------------------------------------------------------------------------ */
/* Bench                                                                                       */

static int bench_lab(const options *o, const lab_info *lab)
{
    char build_log[512];
    if (!build_lab(o, lab, build_log, sizeof build_log)) {
        printf("%s %-12s build failed (%s)\n", lab->number, lab->name, build_log);
        print_build_errors(build_log);
        return 1;
    }
    char runner[512], results[512], log_path[512];
    snprintf(runner, sizeof runner, "%s/%s/runner", o->runners, lab->name);
    snprintf(results, sizeof results, "%s/%s.bench.records", o->logs, lab->name);
    snprintf(log_path, sizeof log_path, "%s/%s.bench.log", o->logs, lab->name);
    unlink(results);
    unlink(log_path);
    char *argv[] = {runner, "--bench", "--results", results, "--cap", "20", NULL};
    child_outcome out;
    run_child(argv, log_path, 600, &out);
    record_list l;
    read_records(results, &l);
    check_decision d;
    memset(&d, 0, sizeof d);
    if (decide_process(lab, &out, &l, &d)) {
        printf("%s %-12s %s\n", lab->number, lab->name, d.message[0] ? d.message : "failed");
        print_log_tail(log_path, 12);
        free_records(&l);
        return 1;
    }
    const record *dev = find_record(&l, "device", 0);
    if (dev) {
        double mhz = 0;
        record_get_num(dev, "measured_clock_mhz", &mhz);
        printf("%s %-12s on %s, SM clock under load %.0f MHz\n", lab->number, lab->name,
               record_get(dev, "name") ? record_get(dev, "name") : "?", mhz);
    }
    /* The skeleton and reference rows of a task set the columns "x ref" and "x ceiling". */
    for (int i = 0; i < l.n; i++) {
        const record *r = &l.rec[i];
        if (strcmp(r->type, "bench"))
            continue;
        const char *task = record_get(r, "task");
        double ms = 0, rate = 0, impl = 0, ref_ms = 0, ceil_ms = 0;
        record_get_num(r, "ms", &ms);
        record_get_num(r, "rate", &rate);
        record_get_num(r, "impl", &impl);
        for (int j = 0; j < l.n; j++) {
            const record *q = &l.rec[j];
            double qi;
            if (strcmp(q->type, "bench") || strcmp(record_get(q, "task"), task) ||
                record_get_num(q, "impl", &qi))
                continue;
            if (qi == 1)
                record_get_num(q, "ms", &ref_ms);
            if (qi == 2)
                record_get_num(q, "ms", &ceil_ms);
        }
        printf("%s %-12s %-14s %-18s %-30s %10.4f %10.1f %-8s %8.2f %8.2f\n", lab->number,
               lab->name, task, record_get(r, "size"), record_get(r, "variant"), ms, rate,
               record_get(r, "unit"), ref_ms > 0 ? ref_ms / ms : 0, ceil_ms > 0 ? ceil_ms / ms : 0);
    }
    free_records(&l);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                        */

static void usage(void)
{
    fprintf(stderr, "usage: grade-driver --runners DIR --mode gpu|emu [--lab NAME,...] [--seed S]\n"
                    "                    [--student DIR] [--build 'CMD %%s'] [--json FILE]\n"
                    "                    [--logs DIR] [--bench]\n"
                    "Run it through `make grade` or `make bench`.\n");
    exit(2);
}

static options parse_options(int argc, char **argv)
{
    options o = {NULL, "gpu", NULL, "labs", NULL, "build/grade/results.json", "build/grade", 0, 0};
    int have_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--bench")) { o.bench = 1; continue; }
        if (!v) usage();
        if (!strcmp(a, "--runners")) o.runners = v;
        else if (!strcmp(a, "--mode")) o.mode = v;
        else if (!strcmp(a, "--lab")) o.labs = *v ? v : NULL;
        else if (!strcmp(a, "--student")) o.student = v;
        else if (!strcmp(a, "--build")) o.build = *v ? v : NULL;
        else if (!strcmp(a, "--json")) o.json = v;
        else if (!strcmp(a, "--logs")) o.logs = v;
        else if (!strcmp(a, "--seed")) {
            if (*v) {
                char *end;
                o.seed = strtoull(v, &end, 0);
                if (*end) fatal("SEED=%s is not a number (try SEED=0x1234abcd)", v);
                have_seed = 1;
            }
        } else usage();
        i++;
    }
    if (!o.runners)
        usage();
    if (!have_seed && getrandom(&o.seed, sizeof o.seed, 0) != sizeof o.seed)
        o.seed = (unsigned long long)time(NULL) * 2654435761u ^ (unsigned long long)getpid();
    return o;
}

/* The labs named in o->labs (comma-separated), or all; exits with a clear message on a typo. */
static int select_labs(const options *o, const lab_info **out)
{
    if (!o->labs) {
        for (int i = 0; i < n_all_labs; i++)
            out[i] = all_labs[i];
        return n_all_labs;
    }
    int n = 0;
    char *copy = strdup(o->labs), *save = NULL;
    for (char *k = strtok_r(copy, ", ", &save); k; k = strtok_r(NULL, ", ", &save)) {
        const lab_info *lab = find_lab(k);
        if (!lab) {
            fprintf(stderr, "error: no lab called `%s`. Labs:", k);
            for (int i = 0; i < n_all_labs; i++)
                fprintf(stderr, " %s (%s)", all_labs[i]->name, all_labs[i]->number);
            fprintf(stderr, "\n");
            exit(2);
        }
        out[n++] = lab;
    }
    free(copy);
    return n;
}

static void load_config(config *cfg, json_writer *w)
{
    char err[512];
    const char *path = getenv("GRADER_CONFIG");
    if (!path && access("grader/course.conf", R_OK) == 0)
        path = "grader/course.conf";
    if (path && config_parse_file(cfg, path, err, sizeof err))
        fatal("%s", err);
    const char *set = getenv("GRADER_SET");
    if (set && config_parse_list(cfg, set, "GRADER_SET", err, sizeof err))
        fatal("%s", err);
    json_array_begin(w, "overrides");
    for (int i = 0; i < cfg->n; i++) {
        json_object_begin(w, NULL);
        json_string(w, "lab", cfg->entry[i].lab);
        json_string(w, "key", cfg->entry[i].key);
        json_number(w, "value", cfg->entry[i].value);
        json_string(w, "source", cfg->entry[i].source);
        json_object_end(w);
    }
    json_array_end(w);
}

int main(int argc, char **argv)
{
    const options o = parse_options(argc, argv);
    use_colour = isatty(1) && !getenv("NO_COLOR") && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
    mkdir(o.logs, 0755);
    const lab_info *labs[64];
    const int n = select_labs(&o, labs);

    if (o.bench) {
        printf("%-2s %-12s %-14s %-18s %-30s %10s %10s %-8s %8s %8s\n", "#", "lab", "task", "size",
               "variant", "ms", "rate", "unit", "x ref", "x ceil");
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad |= bench_lab(&o, labs[i]);
        return bad ? 1 : 0;
    }

    FILE *jf = fopen(o.json, "w");
    if (!jf)
        fatal("cannot write %s", o.json);
    json_writer w;
    json_init(&w, jf);
    json_object_begin(&w, NULL);
    json_int(&w, "schema", 1);
    char when[64];
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_string(&w, "started", when);
    json_string(&w, "mode", o.mode);
    char seed_s[32];
    snprintf(seed_s, sizeof seed_s, "0x%llx", o.seed);
    json_string(&w, "seed", seed_s);
    json_string(&w, "student", o.student);
    config cfg = {.n = 0};
    load_config(&cfg, &w);

    printf("Grading %s on %s. Hidden cases use seed %s (SEED=%s reproduces this run).\n",
           o.student, strcmp(o.mode, "emu") ? "the GPU" : "the CPU emulator (no GPU: speed is "
           "skipped)", seed_s, seed_s);
    totals t = {0, 0, 0, 0};
    json_array_begin(&w, "labs");
    for (int i = 0; i < n; i++)
        grade_lab(&o, &cfg, labs[i], &w, &t);
    json_array_end(&w);
    json_int(&w, "score", t.earned);
    json_int(&w, "max", t.possible);
    const int status = t.failed ? 1 : t.not_run ? 2 : 0;
    json_int(&w, "exit_status", status);
    json_object_end(&w);
    fclose(jf);

    printf("\nScore: %d/%d\n", t.earned, t.possible);
    static const char *const meaning[] = {"full marks", "a point was lost",
                                          "a check could not run here (and none failed)"};
    printf("Exit status %d: %s. Details: %s\n", status, meaning[status], o.json);
    return status;
}
