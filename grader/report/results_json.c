/* results_json.c - TRUSTED, NO GPU: a grading run's results.json (results_json.h). */
#include "results_json.h"

#include "shown.h"
#include "terminal.h"
#include "../wire/stop.h"
#include "../../common/util.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/* json_string of a student-facing message: shown_text's form. */
static void json_shown(json_writer *w, const char *key, const char *text)
{
    static char buf[8192];
    json_string(w, key, shown_text(text, buf, sizeof buf));
}

static void json_samples(json_writer *w, const record_list *l, const char *type, const char *key,
                         const char *name)
{
    json_array_begin(w, name);
    for (int i = 0; i < l->n; i++) {
        double v;
        if (!strcmp(l->rec[i].type, type) && !record_get_num(&l->rec[i], key, &v))
            json_number(w, NULL, v);
    }
    json_array_end(w);
}

/* The same for the records of `type` of one `phase` (records without a phase are phase 1). */
static void json_phase_samples(json_writer *w, const record_list *l, const char *type, int phase,
                               const char *key, const char *name)
{
    json_array_begin(w, name);
    for (int i = 0; i < l->n; i++) {
        double v, p = 1;
        if (strcmp(l->rec[i].type, type) || record_get_num(&l->rec[i], key, &v))
            continue;
        record_get_num(&l->rec[i], "phase", &p);
        if ((int)p == phase)
            json_number(w, NULL, v);
    }
    json_array_end(w);
}

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
    json_int(w, "calls_per_unit", f->calls);
    json_int(w, "student_calls_per_unit", f->stu_calls);
    json_number(w, "student_ms_median", f->stu_ms);
    json_number(w, "reference_ms_median", f->ref_ms);
    json_number(w, "null_call_ms_median", f->null_ms);
    json_number(w, "reference_alone_ms_median", f->ref_alone_ms);
    json_number(w, "rate", f->rate);
    json_string(w, "unit", f->unit);
    json_string(w, "ceiling", f->ceiling);
    json_number(w, "ceiling_rate", f->ceiling_rate);
    /* Where the check's time went, stage by stage (make bench-grading; no verdict reads it) */
    const record *sp = find_record(l, "speed", 0);
    if (sp) {
        static const char *const stages[] = {"setup_s", "phase_s", "alone_s",
                                             "alone_cached_age_s", "again_s",
                                             "ceiling_s", "verify_s", "refresh_s",
                                             "prepare_s", "settle_s", "probe_s", "seconds"};
        json_object_begin(w, "stages");
        for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
            double v;
            if (record_get_num(sp, stages[i], &v) == 0)
                json_number(w, !strcmp(stages[i], "seconds") ? "interleaved_s" : stages[i], v);
        }
        /* before the speed check's setup (the clock measured) and after it (frees) */
        const record *head = find_record(l, "head", 0), *tail = find_record(l, "tail", 0);
        double v;
        if (head && record_get_num(head, "head_s", &v) == 0)
            json_number(w, "head_s", v);
        if (tail && record_get_num(tail, "tail_s", &v) == 0)
            json_number(w, "tail_s", v);
        const char *stop = record_get(sp, "stop");
        if (stop)
            json_string(w, "stop", stop);
        json_object_end(w);
    }
    json_samples(w, l, "sample", "stu_ms", "student_unit_ms");
    json_samples(w, l, "sample", "ref_ms", "reference_unit_ms");
    json_samples(w, l, "sample", "null_ms", "null_call_ms");
    json_phase_samples(w, l, "alone", 1, "ref_ms", "reference_alone_unit_ms");
    json_phase_samples(w, l, "alone", 1, "null_ms", "null_call_alone_ms");
    /* Whether the reference was slowed beside the student, and what the idle probes saw */
    json_number(w, "slowdown_bound", f->slowdown_bound);
    json_array_begin(w, "reference_slowdowns");
    for (int i = 0; i < f->n_slowdowns; i++)
        json_number(w, NULL, f->slowdowns[i]);
    json_array_end(w);
    json_int(w, "left_running_units", f->left_units);
    json_int(w, "left_running_units_counted", f->left_counted);
    json_int(w, "left_running_reference_units", f->left_ref_units);
    json_int(w, "left_running_reference_units_counted", f->left_ref_counted);
    json_number(w, "left_running_max_ms", f->left_max_ms);
    if (f->gpu_watch[0]) { /* the GPU's clock while timed (harness_speed.cu's watch) */
        json_string(w, "gpu_watch", f->gpu_watch);
        json_string(w, "gpu_watch_why", f->gpu_watch_why);
        json_bool(w, "gpu_watch_timed_again", f->gpu_watch_again);
    }
    json_samples(w, l, "sample", "stu_left_ms", "student_left_running_ms");
    json_samples(w, l, "sample", "ref_left_ms", "reference_left_running_ms");
    if (f->n_slowdowns == 3) { /* measured again, beside and alone */
        json_object_begin(w, "measured_again");
        json_phase_samples(w, l, "beside", 2, "stu_ms", "student_unit_ms");
        json_phase_samples(w, l, "beside", 2, "ref_ms", "reference_unit_ms");
        json_phase_samples(w, l, "beside", 2, "null_ms", "null_call_ms");
        json_phase_samples(w, l, "alone", 2, "ref_ms", "reference_alone_unit_ms");
        json_phase_samples(w, l, "alone", 2, "null_ms", "null_call_alone_ms");
        json_object_end(w);
    }
    json_object_end(w);
}

/* The device of a check: what the harness's greeting said (before any student code could be
 * in its process), and the SM clock the check measured under load, from `check`, the check's
 * `device` record: pass NULL where the harness held student code (the fallback), whose
 * records can say any clock. */
static void json_device(json_writer *w, const record *greeted, const record *check)
{
    json_object_begin(w, "device");
    for (int i = 0; i < greeted->n; i++)
        if (strcmp(greeted->key[i], "measured_clock_mhz"))
            json_string(w, greeted->key[i], greeted->value[i]);
    double v;
    if (check && record_get_num(check, "measured_clock_mhz", &v) == 0)
        json_number(w, "measured_clock_mhz", v);
    json_object_end(w);
}

/* A failing check's fault as its report named it (grader/fault/fault.h, read once): every text
 * in it is the student's process's, kept as shown_text shows it (made visible; paths as the
 * student knows them), then escaped as JSON. */
static void json_fault(json_writer *w, const fault_record *f)
{
    json_object_begin(w, "fault");
    json_string(w, "source", f->sanitizer ? "sanitizer" : "emulator");
    json_shown(w, "kind", f->kind);
    json_shown(w, "file", f->file);
    json_int(w, "line", f->line);
    json_shown(w, "places", f->places);
    json_shown(w, "kernel", f->kernel);
    json_shown(w, "block", f->block);
    json_shown(w, "thread", f->thread);
    json_shown(w, "hint", f->hint);
    if (f->fold[0]) { /* its kind and places as shown above, joined as the key joins them */
        static char kind[1024], places[1024], fold[2100];
        snprintf(fold, sizeof fold, "%s|%s", shown_text(f->kind, kind, sizeof kind),
                 shown_text(f->places, places, sizeof places));
        json_string(w, "fold", fold);
    } else {
        json_string(w, "fold", "");
    }
    json_shown(w, "report", f->path);
    json_object_end(w);
}

void results_open(results_file *r, const char *path, const char *mode, const char *seed,
                  const char *student, const char *student_objects)
{
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->tmp, sizeof r->tmp, "%s.tmp.%d", path, (int)getpid());
    stop_temp(r->tmp); /* a stopped run removes it */
    r->f = fopen(r->tmp, "w");
    if (!r->f)
        fatal("cannot write %s", r->tmp);
    json_writer *w = &r->w;
    json_init(w, r->f);
    json_object_begin(w, NULL);
    json_int(w, "schema", 1);
    char when[64];
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_string(w, "started", when);
    json_string(w, "mode", mode);
    json_string(w, "seed", seed);
    json_string(w, "student", student);
    json_string(w, "student_objects", student_objects); /* this tree's built objects (grade-batch removes them) */
}

void results_overrides(json_writer *w, const config *cfg)
{
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

void results_lab_begin(json_writer *w, const lab_info *lab, const score_rules *rules,
                       double timeout, const build_report *b)
{
    json_object_begin(w, NULL);
    json_string(w, "lab", lab->name);
    json_string(w, "number", lab->number);
    json_number(w, "threshold", rules->threshold);
    json_string(w, "threshold_source", rules->threshold_source);
    json_number(w, "timeout_s", timeout);
    json_number(w, "partial_threshold", rules->partial_threshold);
    json_bool(w, "built", b->build == LAB_BUILT);
    if (b->refusal[0]) {
        json_shown(w, "build_log", b->build_log);
        json_string(w, "reason", "refused by the CPU emulator");
        json_string(w, "refused", b->refusal);
    } else if (b->missing) {
        json_string(w, "build_log", "");
        json_string(w, "reason", "file not found");
    } else if (b->build == LAB_STUDENT_FAILED) {
        json_shown(w, "build_log", b->build_log);
        json_string(w, "reason", "build failed");
    } else if (b->build == LAB_GRADER_FAILED || b->build == LAB_NOT_BUILT ||
               b->build == LAB_STEPS_FAILED) {
        json_shown(w, "build_log", b->build_log);
        json_string(w, "reason", "grader build failed");
    }
    json_array_begin(w, "checks");
}

void results_check(json_writer *w, const check_report *r)
{
    const check_decision *d = r->d;
    const lab_check *c = r->check;
    json_object_begin(w, NULL);
    json_string(w, "name", r->run_name);
    json_string(w, "kind", c->kind == CHECK_VISIBLE ? "visible"
                           : c->kind == CHECK_HIDDEN ? "hidden" : "speed");
    json_string(w, "size", d->size);
    json_string(w, "verdict", verdict_word(r->s->v));
    json_shown(w, "message", d->message);
    json_shown(w, "detail", d->detail);
    json_shown(w, "blame", d->blame);
    if (r->where[0])
        json_shown(w, "where", r->where);
    if (r->estimate && r->estimate[0])
        json_shown(w, "estimate", r->estimate);
    json_int(w, "points", r->s->points);
    json_int(w, "earned", r->s->earned);
    json_number(w, "seconds", r->out->seconds);
    if (r->log_path[0])
        json_shown(w, "log", r->log_path);
    if (r->fault && r->fault->log[0]) /* a GPU's fault run once more on the CPU emulator */
        json_shown(w, "emulator_log", r->fault->log);
    if (r->faults && r->faults->shown)
        json_fault(w, r->faults->shown);
    if (r->device->type[0] && r->log_path[0])
        json_device(w, r->device, r->out->isolated ? find_record(r->records, "device", 0) : NULL);
    if (d->has_speed)
        json_speed(w, &d->speed, r->threshold, r->records);
    json_object_end(w);
}

void results_lab_end(json_writer *w, const char *refused_at_run, const char *neighbours,
                     const lab_score *score, const lab_close_times *t, const build_report *b)
{
    json_array_end(w);
    if (refused_at_run[0]) {
        json_string(w, "reason", "refused by the CPU emulator");
        json_string(w, "refused", refused_at_run);
    }
    json_string(w, "gpu_neighbours", neighbours);
    json_int(w, "score", score->earned);
    json_int(w, "max", score->possible);
    json_int(w, "correct_passed", score->correct_ok);
    json_int(w, "correct_checks", score->correct_n);
    json_int(w, "correct_score", score->correct_earned);
    json_int(w, "correct_max", score->correct_possible);
    json_string(w, "not_started", b->started == STARTED_MISSING    ? "missing"
                                  : b->started == STARTED_SKELETON ? "skeleton" : "");
    json_string(w, "not_started_why", started_words(b->started));
    json_number(w, "seconds", t->seconds); /* the lab's whole wall time */
    json_number(w, "where_seconds", t->where_s);
    json_number(w, "start_seconds", t->start_s);
    json_number(w, "stop_seconds", t->stop_s);
    json_number(w, "neighbours_seconds", t->neighbours_s);
    json_object_end(w);
}

void results_close(results_file *r, const totals *t, int status, int interrupted)
{
    json_writer *w = &r->w;
    json_bool(w, "tamper_proof", t->tamper_proof);
    json_string(w, "isolation", t->isolation);
    json_string(w, "sandbox", t->sandbox);
    json_int(w, "score", t->earned);
    json_int(w, "max", t->possible);
    json_bool(w, "speed_graded", t->speed_graded);
    json_int(w, "correct_passed", t->correct_ok);
    json_int(w, "correct_checks", t->correct_n);
    json_int(w, "correct_score", t->correct_earned);
    json_int(w, "correct_max", t->correct_possible);
    json_int(w, "not_started", t->not_started);
    json_int(w, "exit_status", status);
    json_bool(w, "interrupted", interrupted);
    json_object_end(w);
    if (fclose(r->f) != 0 || rename(r->tmp, r->path) != 0)
        fatal("cannot write %s", r->path);
    stop_temp_done(r->tmp);
}
