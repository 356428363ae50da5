/* export.c - TRUSTED: make serve-export. Each student's best submission per lab (the highest
 * score, then the most correctness checks passed, then the earliest), from COURSE/serve.db, into
 * OUT/gradebook.csv (RFC 4180, CRLF, the batch's columns per lab; a cell that a spreadsheet
 * would run gets a ' in front) and OUT/gradebook.jsonl (one object per student). Without speed
 * graded (the emulator) a lab's cell is empty, as in the batch's gradebook: no total reads like
 * a grade.
 *
 *   serve-export COURSE OUT */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../lab.h"
#include "../plan/lab_select.h"
#include "serve.h"

static void csv_cell(FILE *f, const char *s)
{
    const int guard = strchr("=+-@\t\r", *s) && *s;
    fputs(guard ? "\"'" : "\"", f);
    for (; *s; s++)
        fputs(*s == '"' ? "\"\"" : (char[]){*s, 0}, f);
    fputc('"', f);
}

/* One student's line and object. ST: their best rows, lab by lab. */
static void student(FILE *csv, FILE *jl, const char *name, sqlite3_stmt *st)
{
    json_t *labs = json_object();
    double total = 0, max = 0;
    int passed = 0, checks = 0, any_speed = 0;
    char late[64] = "";
    const char *cells[32] = {0};
    char cellbuf[32][32];
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *lab = (const char *)sqlite3_column_text(st, 0);
        const int speed = sqlite3_column_int(st, 6);
        json_object_set_new(labs, lab, json_pack("{s:I,s:o,s:o,s:i,s:i,s:b,s:b,s:i}", "id", sqlite3_column_int64(st, 1),
            "score", speed ? json_real(sqlite3_column_double(st, 2)) : json_null(),
            "max", speed ? json_real(sqlite3_column_double(st, 3)) : json_null(),
            "correct_passed", sqlite3_column_int(st, 4), "correct_checks", sqlite3_column_int(st, 5),
            "speed_graded", speed, "late", sqlite3_column_int(st, 7), "exit_code", sqlite3_column_int(st, 8)));
        const lab_info *l = find_lab(lab);
        for (int k = 0; l && k < n_all_labs && k < 32; k++)
            if (all_labs[k] == l && speed) {
                snprintf(cellbuf[k], sizeof cellbuf[k], "%g", sqlite3_column_double(st, 2));
                cells[k] = cellbuf[k];
            }
        any_speed |= speed;
        total += sqlite3_column_double(st, 2), max += sqlite3_column_double(st, 3);
        passed += sqlite3_column_int(st, 4), checks += sqlite3_column_int(st, 5);
        if (sqlite3_column_int(st, 7))
            snprintf(late + strlen(late), sizeof late - strlen(late), "%s%s", *late ? " " : "", lab);
    }
    csv_cell(csv, name);
    for (int k = 0; k < n_all_labs; k++)
        fputc(',', csv), csv_cell(csv, cells[k] ? cells[k] : "");
    char t[64], m[64], c[64];
    snprintf(t, sizeof t, "%g", total), snprintf(m, sizeof m, "%g", max), snprintf(c, sizeof c, "%d/%d checks", passed, checks);
    fputc(',', csv), csv_cell(csv, any_speed ? t : ""), fputc(',', csv), csv_cell(csv, any_speed ? m : "");
    fputc(',', csv), csv_cell(csv, c), fputc(',', csv), csv_cell(csv, any_speed ? "graded" : "not graded (no GPU)");
    fputc(',', csv), csv_cell(csv, late);
    fputs("\r\n", csv);
    json_t *o = json_pack("{s:s,s:o,s:o,s:o,s:i,s:i,s:b}", "name", name, "labs", labs,
                          "total", any_speed ? json_real(total) : json_null(), "max", any_speed ? json_real(max) : json_null(),
                          "correct_passed", passed, "correct_checks", checks, "speed_graded", any_speed);
    json_dumpf(o, jl, JSON_COMPACT | JSON_ENSURE_ASCII);
    fputc('\n', jl);
    json_decref(o);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: serve-export COURSE OUT\n");
        return 2;
    }
    char err[512], p1[4200], p2[4200];
    if (store_open(argv[1], err, sizeof err) || (mkdir(argv[2], 0700) && errno != EEXIST)) {
        fprintf(stderr, "make serve-export: %s\n", err);
        return 2;
    }
    snprintf(p1, sizeof p1, "%s/gradebook.csv", argv[2]);
    snprintf(p2, sizeof p2, "%s/gradebook.jsonl", argv[2]);
    FILE *csv = fopen(p1, "w"), *jl = fopen(p2, "w");
    if (!csv || !jl) {
        fprintf(stderr, "make serve-export: cannot write into %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    fputs("\"name\"", csv);
    for (int k = 0; k < n_all_labs; k++) {
        char folder[64];
        lab_folder(all_labs[k], folder, sizeof folder);
        fprintf(csv, ",\"%s\"", folder);
    }
    fputs(",\"total\",\"max\",\"correctness\",\"speed\",\"late\"\r\n", csv);
    sqlite3_stmt *names, *best;
    sqlite3_prepare_v2(store_db, "SELECT id, name FROM students ORDER BY name", -1, &names, NULL);
    sqlite3_prepare_v2(store_db,
        "SELECT lab, id, coalesce(score,0), coalesce(max,0), coalesce(correct_passed,0), coalesce(correct_checks,0),"
        " coalesce(speed_graded,0), late, exit_code FROM (SELECT *, row_number() OVER (PARTITION BY lab ORDER BY"
        " coalesce(score,0) DESC, coalesce(correct_passed,0) DESC, id) AS rk FROM submissions WHERE student=? AND state='done')"
        " WHERE rk=1 ORDER BY lab", -1, &best, NULL);
    int n = 0;
    while (sqlite3_step(names) == SQLITE_ROW) {
        sqlite3_reset(best);
        sqlite3_bind_int64(best, 1, sqlite3_column_int64(names, 0));
        student(csv, jl, (const char *)sqlite3_column_text(names, 1), best);
        n++;
    }
    sqlite3_finalize(best);
    sqlite3_finalize(names);
    if (fclose(csv) || fclose(jl)) {
        fprintf(stderr, "make serve-export: writing into %s failed\n", argv[2]);
        return 2;
    }
    printf("%d student%s: %s and %s\n", n, n == 1 ? "" : "s", p1, p2);
    return 0;
}
