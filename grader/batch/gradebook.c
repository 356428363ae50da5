/* gradebook.c - what grade-batch writes from each student's result (grader/batch/batch.h):
 * the student's record (OUT/students/<id>/record.json, written last and atomically, with the
 * fingerprint that makes it final), its exports beside it (Gradescope, JUnit, Markdown, HTML:
 * grader/report/exports.h), the gradebook of every student from the records on disk (CSV,
 * JSON Lines, JUnit XML), and `grade-batch export`, one results.json's exports. Trusted:
 * written from structured data (results.json, the records), never from what a student's code
 * printed. Nothing written here depends on the time, so a batch killed and resumed writes the
 * same bytes as one that was not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/json.h"
#include "../../common/json_read.h"
#include "../lab.h"
#include "../report/exports.h"
#include "batch.h"

void student_dir(const batch_state *b, const student *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s/students/%s", b->out, s->id);
}

void init_row(const batch_state *b, grade_row *row, const student *s)
{
    memset(row, 0, sizeof *row);
    row->tamper_proof = -1;
    row->name = s->name;
    snprintf(row->id, sizeof row->id, "%s", s->id);
    for (int k = 0; k < n_all_labs; k++) {
        row->selected[k] = b->selected[k];
        row->absent[k] = s->refusal[0] ? 0 : s->absent[k];
        row->absent_detail[k] = s->absent_detail[k];
        row->lab_max[k] = b->lab_max[k];
        if (b->selected[k])
            row->max += b->lab_max[k];
    }
}

/* record.json: the row, the name's exact bytes and the fingerprint. Written last. */
void write_record(const batch_state *b, const student *s, const grade_row *row)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    student_dir(b, s, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/record.json", dir);
    atomic_file a;
    FILE *f = atomic_open(&a, path);
    json_writer w;
    json_init(&w, f);
    json_object_begin(&w, NULL);
    json_int(&w, "schema", 1);
    char *hex = malloc(strlen(s->name) * 2 + 1);
    for (size_t i = 0; s->name[i]; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)s->name[i]);
    hex[strlen(s->name) * 2] = 0;
    json_string(&w, "name_hex", hex);
    free(hex);
    json_string(&w, "id", s->id);
    json_string(&w, "fingerprint", s->fingerprint);
    json_string(&w, "state", row->state);
    json_int(&w, "tamper_proof", row->tamper_proof);
    json_object_begin(&w, "labs");
    for (int k = 0; k < n_all_labs; k++) {
        if (!row->selected[k])
            continue;
        json_object_begin(&w, all_labs[k]->name);
        json_int(&w, "score", row->lab_score[k]);
        json_int(&w, "max", row->lab_max[k]);
        json_bool(&w, "not_started", row->absent[k] == ABSENT_NOT_STARTED);
        json_object_end(&w);
    }
    json_object_end(&w);
    json_int(&w, "total", row->total);
    json_int(&w, "max", row->max);
    json_bool(&w, "speed_graded", row->speed_graded);
    json_int(&w, "correct_passed", row->correct_passed);
    json_int(&w, "correct_checks", row->correct_checks);
    json_int(&w, "correct_score", row->correct_score);
    json_int(&w, "correct_max", row->correct_max);
    json_int(&w, "exit_status", row->exit_status);
    json_string(&w, "reason", row->reason);
    json_object_end(&w);
    fputc('\n', f);
    atomic_commit(&a);
}

/* The row of a record whose fingerprint matches s; 0, or -1 when there is none. */
int read_record(const batch_state *b, const student *s, grade_row *row)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], err[512];
    student_dir(b, s, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/record.json", dir);
    if (access(path, F_OK))
        return -1;
    jv *r = jv_parse_file(path, 1 << 20, err, sizeof err);
    if (!r) {
        fprintf(stderr, "grade-batch: warning: %s; grading this student again\n", err);
        return -1;
    }
    int ok = !strcmp(jv_str(jv_get(r, "fingerprint"), ""), s->fingerprint) &&
             !strcmp(jv_str(jv_get(r, "id"), ""), s->id);
    if (ok) {
        init_row(b, row, s);
        const char *state = jv_str(jv_get(r, "state"), "missing");
        snprintf(row->state, sizeof row->state, "%s", state);
        const jv *labs = jv_get(r, "labs");
        for (int k = 0; k < n_all_labs; k++) {
            if (!row->selected[k])
                continue;
            const jv *l = jv_get(labs, all_labs[k]->name);
            if (!l)
                ok = 0;
            row->lab_score[k] = (int)jv_num(jv_get(l, "score"), 0);
            row->lab_max[k] = (int)jv_num(jv_get(l, "max"), 0);
            if (!row->absent[k] && jv_bool(jv_get(l, "not_started"), 0))
                row->absent[k] = ABSENT_NOT_STARTED;
        }
        row->speed_graded = jv_bool(jv_get(r, "speed_graded"), 0);
        row->correct_passed = (int)jv_num(jv_get(r, "correct_passed"), 0);
        row->correct_checks = (int)jv_num(jv_get(r, "correct_checks"), 0);
        row->correct_score = (int)jv_num(jv_get(r, "correct_score"), 0);
        row->correct_max = (int)jv_num(jv_get(r, "correct_max"), 0);
        row->total = (int)jv_num(jv_get(r, "total"), 0);
        row->max = (int)jv_num(jv_get(r, "max"), 0);
        row->exit_status = (int)jv_num(jv_get(r, "exit_status"), 2);
        row->tamper_proof = (int)jv_num(jv_get(r, "tamper_proof"), -1);
        snprintf(row->reason, sizeof row->reason, "%s", jv_str(jv_get(r, "reason"), ""));
    }
    jv_free(r);
    return ok ? 0 : -1;
}

/* One student's exports beside the record: Gradescope, JUnit, Markdown, HTML. */
void write_exports(const char *dir, const grade_row *row, const jv *results)
{
    char path[PATH_MAX + 32];
    atomic_file a;
    snprintf(path, sizeof path, "%s/gradescope.json", dir);
    write_gradescope(atomic_open(&a, path), row, results);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/junit.xml", dir);
    FILE *f = atomic_open(&a, path);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"CUDA workbook\">\n", f);
    write_junit_suites(f, row, results);
    fputs("</testsuites>\n", f);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/report.md", dir);
    write_markdown(atomic_open(&a, path), row, results);
    atomic_commit(&a);
    snprintf(path, sizeof path, "%s/report.html", dir);
    write_html(atomic_open(&a, path), row, results);
    atomic_commit(&a);
}

/* The gradebook of every student from the records on disk: CSV, JSON Lines, JUnit XML.
 * Returns how many students have no current record. */
int merge(const batch_state *b, student *list, int n)
{
    char path[PATH_MAX + 32];
    atomic_file csv, jsonl, junit;
    snprintf(path, sizeof path, "%s/gradebook.csv", b->out);
    FILE *fc = atomic_open(&csv, path);
    snprintf(path, sizeof path, "%s/gradebook.jsonl", b->out);
    FILE *fj = atomic_open(&jsonl, path);
    snprintf(path, sizeof path, "%s/junit.xml", b->out);
    FILE *fx = atomic_open(&junit, path);
    csv_header(fc);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"CUDA workbook\">\n", fx);
    int missing = 0, graded = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        student *s = &list[i];
        grade_row row;
        jv *results = NULL;
        if (read_record(b, s, &row)) {
            missing++;
            init_row(b, &row, s);
            snprintf(row.state, sizeof row.state, "missing");
            snprintf(row.reason, sizeof row.reason,
                     "not graded yet: no result for this submission as it is now (run the same "
                     "command again to resume)");
            row.exit_status = 2;
        } else if (!strcmp(row.state, "graded")) {
            char dir[PATH_MAX], file[PATH_MAX + 32], err[600];
            student_dir(b, s, dir, sizeof dir);
            snprintf(file, sizeof file, "%s/results.json", dir);
            results = access(file, F_OK) == 0 ? jv_parse_file(file, RESULTS_CAP, err, sizeof err) : NULL;
            graded++;
        } else {
            refused++;
        }
        csv_row(fc, &row);
        jsonl_row(fj, &row);
        write_junit_suites(fx, &row, results);
        jv_free(results);
    }
    fputs("</testsuites>\n", fx);
    atomic_commit(&csv);
    atomic_commit(&jsonl);
    atomic_commit(&junit);
    printf("Gradebook: %s/gradebook.csv (and gradebook.jsonl, junit.xml): %d student%s, %d graded, "
           "%d refused%s", b->out, n, n == 1 ? "" : "s", graded, refused, missing ? ", " : ".\n");
    if (missing)
        printf("%d without a result yet (run the same command again to grade them).\n", missing);
    printf("Each student's report, Gradescope results and HTML page: %s/students/<id>/ "
           "(gradebook.jsonl maps names to ids).\n", b->out);
    return missing;
}

/* export: one results.json to Gradescope, JUnit, Markdown and HTML (the Gradescope kit). */
int export_one(const batch_settings *o)
{
    if (!o->results || !o->dest)
        die("export needs RESULTS=path/to/results.json and DEST=folder (NAME=student optional)");
    char err[600];
    jv *results = jv_parse_file(o->results, RESULTS_CAP, err, sizeof err);
    grade_row row;
    memset(&row, 0, sizeof row);
    row.name = (char *)(o->name ? o->name : "submission");
    snprintf(row.id, sizeof row.id, "export");
    if (results) {
        const jv *labs = jv_get(results, "labs");
        for (int i = 0; i < jv_len(labs); i++)
            for (int k = 0; k < n_all_labs; k++)
                if (!strcmp(all_labs[k]->name, jv_str(jv_get(jv_at(labs, i), "lab"), "")))
                    row.selected[k] = 1;
    }
    row_from_results(&row, results, results ? 0 : 2);
    if (!results)
        snprintf(row.reason, sizeof row.reason, "the grader's report could not be read: %s", err);
    mkdirs(o->dest);
    write_exports(o->dest, &row, results);
    jv_free(results);
    show_name(stdout, row.name);
    char summary[64];
    row_total_text(&row, summary, sizeof summary);
    printf(": %s (exit %d); exports in %s\n", summary[0] ? summary : "no score, speed not graded "
           "(no GPU)", row.exit_status, o->dest);
    return results ? 0 : 2;
}
