/* export.c - TRUSTED: make serve-export. Each student's best graded submission per lab (the
 * highest score, then the most correctness checks passed, then the earliest), from
 * COURSE/serve.db, into the batch's gradebook formats, written by the batch's own exports
 * (../report/exports.h) from each grading's results.json: OUT/gradebook.csv (RFC 4180, CRLF,
 * formulas neutralised, no total that reads like a grade without a GPU), OUT/gradebook.jsonl,
 * and OUT/students/<id>/gradescope.json (Gradescope's results format). The labs are those
 * anyone of the course submitted; a student's lab with no graded submission is named as not
 * handed in. OUT/late.csv names each student whose best submission of a lab came after
 * DEADLINE= (a late submission loses no point here: the course decides).
 *
 *   serve-export COURSE OUT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lab.h"
#include "../plan/lab_select.h"
#include "../plan/started.h"
#include "../report/exports.h"
#include "serve.h"

/* The labs anyone submitted (registry order), each lab's points from a grading of it. */
static int course_labs[ROW_MAX_LABS], course_max[ROW_MAX_LABS];

static int registry_k(const char *number)
{
    const lab_info *l = find_lab(number);
    for (int k = 0; l && k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (all_labs[k] == l)
            return k;
    return -1;
}

/* One student's row and the results tree their best gradings make together (the labs' objects
 * side by side; MERGED's arrays point into PARTS, freed by the caller). */
static void student_row(grade_row *row, jv *merged, jv **parts, int *n_parts, sqlite3_stmt *best, char *late, size_t latelen)
{
    static jv labs, keys_v[7];
    static char *keys[] = {"labs", "mode", "speed_graded", "correct_passed", "correct_checks", "tamper_proof", "seed"};
    jv lab_items[ROW_MAX_LABS];
    int n = 0, speed = 1, tamper = 1, passed = 0, checks = 0, worst = 0;
    const char *mode = "gpu", *seed = "";
    *late = 0;
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++) {
        row->selected[k] = course_labs[k];
        row->lab_max[k] = course_max[k];
        row->absent[k] = course_labs[k] ? ABSENT_NO_FILE : 0;
        row->absent_detail[k] = "";
    }
    while (sqlite3_step(best) == SQLITE_ROW) {
        const int k = registry_k((const char *)sqlite3_column_text(best, 0));
        const char *text = (const char *)sqlite3_column_text(best, 1);
        char err[200];
        jv *r = text ? jv_parse(text, strlen(text), err, sizeof err) : NULL;
        if (k < 0 || !r)
            continue;
        parts[(*n_parts)++] = r;
        row->absent[k] = 0;
        const jv *rl = jv_get(r, "labs");
        for (int i = 0; i < jv_len(rl) && n < ROW_MAX_LABS; i++)
            lab_items[n++] = *jv_at(rl, i);
        speed &= jv_bool(jv_get(r, "speed_graded"), 0);
        tamper &= jv_bool(jv_get(r, "tamper_proof"), 0);
        passed += (int)jv_num(jv_get(r, "correct_passed"), 0);
        checks += (int)jv_num(jv_get(r, "correct_checks"), 0);
        const int code = (int)jv_num(jv_get(r, "exit_status"), 2);
        worst = code > worst ? code : worst;
        mode = jv_str(jv_get(r, "mode"), mode);
        seed = jv_str(jv_get(r, "seed"), seed);
        if (sqlite3_column_int(best, 2))
            snprintf(late + strlen(late), latelen - strlen(late), "%s%s", *late ? " " : "", all_labs[k]->number);
    }
    labs = (jv){.type = JV_ARRAY, .n = n, .items = malloc(sizeof(jv) * (size_t)(n ? n : 1))};
    memcpy(labs.items, lab_items, sizeof(jv) * (size_t)n);
    keys_v[0] = labs;
    keys_v[1] = (jv){.type = JV_STRING, .string = (char *)mode};
    keys_v[2] = (jv){.type = JV_BOOL, .boolean = speed && *n_parts};
    keys_v[3] = (jv){.type = JV_NUMBER, .number = passed};
    keys_v[4] = (jv){.type = JV_NUMBER, .number = checks};
    keys_v[5] = (jv){.type = JV_BOOL, .boolean = tamper && *n_parts};
    keys_v[6] = (jv){.type = JV_STRING, .string = (char *)seed};
    *merged = (jv){.type = JV_OBJECT, .n = 7, .items = keys_v, .keys = keys};
    row_from_results(row, *n_parts ? merged : NULL, worst);
    if (!*n_parts) { /* nothing graded yet */
        snprintf(row->state, sizeof row->state, "missing");
        snprintf(row->reason, sizeof row->reason, "no graded submission to the course server");
    }
    row->exit_status = worst;
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (row->selected[k] && !row->absent[k] && row->lab_score[k] < row->lab_max[k])
            row->exit_status = row->exit_status ? row->exit_status : 1;
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (row->absent[k])
            row->exit_status = 1;
}

/* The labs anyone submitted, and each one's points as a grading of it counted them. */
static void find_course_labs(sqlite3 *db)
{
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT lab, max(coalesce(max,0)) FROM submissions WHERE state='done' GROUP BY lab", -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const int k = registry_k((const char *)sqlite3_column_text(st, 0));
        if (k >= 0)
            course_labs[k] = 1, course_max[k] = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "make serve-export: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: serve-export COURSE OUT\n");
        return 2;
    }
    char err[512] = "", dir[4300];
    snprintf(dir, sizeof dir, "%s/students", argv[2]);
    sqlite3 *db = store_open(argv[1], err, sizeof err); /* the store: this program's one connection */
    if (!db || (mkdir(argv[2], 0700) && errno != EEXIST) || (mkdir(dir, 0700) && errno != EEXIST)) {
        fprintf(stderr, "make serve-export: %s\n", *err ? err : strerror(errno));
        return 2;
    }
    find_course_labs(db);
    FILE *csv = open_out(argv[2], "gradebook.csv"), *jl = open_out(argv[2], "gradebook.jsonl");
    FILE *late_csv = open_out(argv[2], "late.csv");
    csv_header(csv);
    fputs("student,late labs\r\n", late_csv);
    sqlite3_stmt *names, *best;
    sqlite3_prepare_v2(db, "SELECT id, name FROM students ORDER BY name", -1, &names, NULL);
    sqlite3_prepare_v2(db,
        "SELECT lab, results, late FROM (SELECT *, row_number() OVER (PARTITION BY lab ORDER BY"
        " coalesce(score,0) DESC, coalesce(correct_passed,0) DESC, id) AS rk FROM submissions WHERE student=? AND state='done'"
        " AND results IS NOT NULL) WHERE rk=1 ORDER BY lab", -1, &best, NULL);
    int n = 0;
    while (sqlite3_step(names) == SQLITE_ROW) {
        grade_row row = {0};
        row.name = (char *)sqlite3_column_text(names, 1);
        char hex[65];
        started_sha256_hex(row.name, strlen(row.name), hex);
        snprintf(row.id, sizeof row.id, "%.16s", hex);
        sqlite3_reset(best);
        sqlite3_bind_int64(best, 1, sqlite3_column_int64(names, 0));
        jv merged, *parts[ROW_MAX_LABS];
        int n_parts = 0;
        char late[64];
        student_row(&row, &merged, parts, &n_parts, best, late, sizeof late);
        csv_row(csv, &row);
        if (*late) {
            csv_field(late_csv, row.name);
            fprintf(late_csv, ",%s\r\n", late);
        }
        jsonl_row(jl, &row);
        char sdir[4400];
        snprintf(sdir, sizeof sdir, "%s/%s", dir, row.id);
        mkdir(sdir, 0700);
        FILE *g = open_out(sdir, "gradescope.json");
        write_gradescope(g, &row, n_parts ? &merged : NULL);
        fclose(g);
        free(merged.items[0].items);
        for (int i = 0; i < n_parts; i++)
            jv_free(parts[i]);
        n++;
    }
    sqlite3_finalize(best);
    sqlite3_finalize(names);
    if (fclose(csv) || fclose(jl) || fclose(late_csv)) {
        fprintf(stderr, "make serve-export: writing into %s failed\n", argv[2]);
        return 2;
    }
    printf("%d student%s: %s/gradebook.csv, gradebook.jsonl, late.csv and students/<id>/gradescope.json\n", n, n == 1 ? "" : "s", argv[2]);
    return 0;
}
