/* exports.c - gradebook rows and per-student exports from results.json. See exports.h. */
#include "exports.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json.h"
#include "../plan/lab_select.h"
#include "exports_parts.h"

/* ------------------------------------------------------------------------------------------ */
/* Text helpers                                                                                */

/* Markdown inline text: rendered visible (common/text.h: a cell or heading stays one line),
 * then punctuation that would format is escaped and HTML characters become entities. */
static void put_md(FILE *f, const char *s)
{
    char *c = text_visible_dup(s ? s : "", 0);
    for (const char *p = c; *p; p++) {
        if (strchr("\\`*_[]{}()#+-.!|~", *p))
            fputc('\\', f), fputc(*p, f);
        else if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '>')
            fputs("&gt;", f);
        else if (*p == '&')
            fputs("&amp;", f);
        else
            fputc(*p, f);
    }
    free(c);
}

/* A JSON string member holding one line shown to a reader: rendered visible (common/text.h). */
static void json_visible_string(json_writer *w, const char *key, const char *s)
{
    char *c = text_visible_dup(s ? s : "", 0);
    json_string(w, key, c);
    free(c);
}

__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static const char *const exit_words[] = {"full marks",
                                         "a point was lost (a check failed, or a lab is not "
                                         "started)",
                                         "a check could not run here (and none failed)"};

static const char *exit_word(const grade_row *row)
{
    const int status = row->exit_status;
    if (!strcmp(row->state, "refused")) /* nothing of it ran: no point was lost to a check */
        return "the submission was refused, so nothing was graded (the reason is below)";
    return status >= 0 && status <= 2 ? exit_words[status] : "the grader did not finish";
}

static int registry_index(const char *lab_name)
{
    for (int i = 0; i < n_all_labs && i < ROW_MAX_LABS; i++)
        if (strcmp(all_labs[i]->name, lab_name) == 0)
            return i;
    return -1;
}

void row_absent_text(const grade_row *row, int k, char *buf, size_t len)
{
    buf[0] = 0;
    if (k < 0 || k >= n_all_labs || k >= ROW_MAX_LABS || !row->absent[k])
        return;
    char rel[200];
    lab_student_rel(all_labs[k], rel, sizeof rel);
    const char *file = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    const char *detail = row->absent_detail[k];
    switch (row->absent[k]) {
    case ABSENT_SKELETON:
        snprintf(buf, len, "lab %s not started (%s is the untouched skeleton; it earns nothing)",
                 all_labs[k]->number, rel);
        break;
    case ABSENT_NOT_STARTED:
        snprintf(buf, len, "lab %s not started (%s is the workbook's skeleton, comments and white "
                 "space aside; it earns nothing)", all_labs[k]->number, rel);
        break;
    case ABSENT_MISPLACED:
        snprintf(buf, len, "lab %s misplaced (found %s: it belongs in %s; move it there and hand "
                 "it in again: not graded, it earns nothing as it is)", all_labs[k]->number,
                 detail ? detail : file, rel);
        break;
    default:
        snprintf(buf, len, "lab %s not handed in (no submission: no %s in the submission%s%s; it "
                 "earns nothing)", all_labs[k]->number, rel,
                 !detail ? "" : detail[0] ? ", which holds: " : ", which holds no file",
                 detail ? detail : "");
    }
}

const char *absent_word(int absent)
{
    return absent == ABSENT_SKELETON || absent == ABSENT_NOT_STARTED ? "not-started"
           : absent == ABSENT_MISPLACED                              ? "misplaced"
                                                                     : "no-file";
}

void row_total_text(const grade_row *row, char *buf, size_t len)
{
    buf[0] = 0;
    if (row->speed_graded || row->correct_max > 0 || strcmp(row->state, "graded"))
        snprintf(buf, len, "%d/%d", row->total, row->speed_graded ? row->max : row->correct_max);
}

void row_lab_text(const grade_row *row, int k, char *buf, size_t len)
{
    buf[0] = 0;
    if (row->selected[k] && (row->speed_graded || row->correct_max > 0 || strcmp(row->state, "graded")))
        snprintf(buf, len, "%d", row->lab_score[k]);
}

/* The absence text of the lab a results.json lab object names, or "" (for the exports). */
static const char *lab_absent(const grade_row *row, const jv *lab, char *buf, size_t len)
{
    row_absent_text(row, registry_index(jv_str(jv_get(lab, "lab"), "")), buf, len);
    return buf;
}

static int is_emu(const jv *results)
{
    return strcmp(jv_str(jv_get(results, "mode"), ""), "emu") == 0;
}

/* The summary's first words: "Score: 12/50", or with no GPU "No score: speed not graded (no
 * GPU); correctness 20 of 21 checks passed" (with the correctness points a course gives). */
static void summary_text(const grade_row *row, char *buf, size_t len)
{
    char total[64];
    row_total_text(row, total, sizeof total);
    if (!strcmp(row->state, "refused"))
        snprintf(buf, len, "Not graded: refused, 0/%d", row->max);
    else if (row->speed_graded)
        snprintf(buf, len, "Score: %s", total);
    else
        snprintf(buf, len, "No score: speed not graded (no GPU); correctness %d of %d checks "
                 "passed%s%s%s", row->correct_passed, row->correct_checks,
                 total[0] ? " (" : "", total, total[0] ? " correctness points)" : "");
}

/* A lab's heading after its name: "5/5", "not started", "correctness 10 of 10, speed not
 * graded (no GPU)". */
static void lab_heading_text(const grade_row *row, const jv *lab, char *buf, size_t len)
{
    const int k = registry_index(jv_str(jv_get(lab, "lab"), ""));
    const int absent = k >= 0 && k < ROW_MAX_LABS ? row->absent[k] : 0;
    const char *gone = absent == ABSENT_NO_FILE ? "not handed in, " : absent == ABSENT_MISPLACED
                       ? "misplaced, " : absent ? "not started, " : "";
    if (row->speed_graded)
        snprintf(buf, len, "%s%d/%d", gone, (int)jv_num(jv_get(lab, "score"), 0),
                 (int)jv_num(jv_get(lab, "max"), 0));
    else
        snprintf(buf, len, "%scorrectness %d of %d checks, speed not graded (no GPU)", gone,
                 (int)jv_num(jv_get(lab, "correct_passed"), 0),
                 (int)jv_num(jv_get(lab, "correct_checks"), 0));
}

/* ------------------------------------------------------------------------------------------ */
/* Gradebook row                                                                               */

/* A graded lab's reason: the first check that lost points (or could not run) says why; the
 * rest are counted. */
static void append_first_loss(grade_row *row, const char *tag_num, const char *tag_name,
                              const jv *checks)
{
    int shown = 0, more = 0;
    for (int j = 0; j < jv_len(checks); j++) {
        const jv *c = jv_at(checks, j);
        const char *verdict = jv_str(jv_get(c, "verdict"), "");
        if (!strcmp(verdict, "OK"))
            continue;
        const char *message = jv_str(jv_get(c, "message"), "");
        if (!strcmp(verdict, "SKIP") && strstr(message, "once every correctness check"))
            continue; /* follows from a failure already named */
        if (shown) {
            more++;
            continue;
        }
        shown = 1;
        char cut[161]; /* the message as shown, cut at a whole character or escape */
        text_visible(cut, sizeof cut, message, 0);
        char fault[700];
        export_fault_text(c, 0, fault, sizeof fault);
        append(row->reason, sizeof row->reason, "%s%s %s: %s: %s %s%s%s%s",
               row->reason[0] ? "; " : "", tag_num, tag_name, jv_str(jv_get(c, "name"), "?"),
               verdict, cut, fault[0] ? " [" : "", fault, fault[0] ? "]" : "");
    }
    if (more)
        append(row->reason, sizeof row->reason, " (and %d more)", more);
}

void row_from_results(grade_row *row, const jv *results, int grade_status)
{
    row->reason[0] = 0;
    snprintf(row->state, sizeof row->state, "graded");
    const jv *tp = jv_get(results, "tamper_proof");
    row->tamper_proof = tp ? jv_bool(tp, 0) : -1;
    const jv *labs = jv_get(results, "labs");
    int seen[ROW_MAX_LABS] = {0};
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *lab = jv_at(labs, i);
        const int k = registry_index(jv_str(jv_get(lab, "lab"), ""));
        if (k < 0 || !row->selected[k])
            continue;
        seen[k] = 1;
        row->lab_score[k] = (int)jv_num(jv_get(lab, "score"), 0);
        row->lab_max[k] = (int)jv_num(jv_get(lab, "max"), row->lab_max[k]);
        if (!row->absent[k] && jv_str(jv_get(lab, "not_started"), "")[0])
            row->absent[k] = ABSENT_NOT_STARTED; /* the grader's finding: the skeleton, as it is */
        const char *tag_num = jv_str(jv_get(lab, "number"), "");
        const char *tag_name = jv_str(jv_get(lab, "lab"), "");
        if (row->absent[k]) { /* work not submitted: said so, not as the skeleton's failures */
            char absent[400];
            row_absent_text(row, k, absent, sizeof absent);
            append(row->reason, sizeof row->reason, "%s%s %s: %s", row->reason[0] ? "; " : "",
                   tag_num, tag_name, absent);
            continue;
        }
        const char *refused = jv_str(jv_get(lab, "refused"), "");
        if (refused[0]) { /* valid CUDA the CPU emulator cannot run: not graded here */
            char cut[161];
            text_visible(cut, sizeof cut, refused, 0);
            append(row->reason, sizeof row->reason, "%s%s %s: could not run on the CPU emulator (%s); "
                   "a GPU grades it", row->reason[0] ? "; " : "", tag_num, tag_name, cut);
            continue;
        }
        if (!jv_bool(jv_get(lab, "built"), 1)) {
            append(row->reason, sizeof row->reason, "%s%s %s: build failed or the file was rejected (see report.txt)",
                   row->reason[0] ? "; " : "", tag_num, tag_name);
            continue;
        }
        append_first_loss(row, tag_num, tag_name, jv_get(lab, "checks"));
    }
    row->total = row->max = 0;
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++) {
        if (!row->selected[k])
            continue;
        if (!seen[k]) {
            row->lab_score[k] = 0;
            if (results)
                append(row->reason, sizeof row->reason, "%s%s %s: not in the report",
                       row->reason[0] ? "; " : "", all_labs[k]->number, all_labs[k]->name);
        }
        row->total += row->lab_score[k];
        row->max += row->lab_max[k];
    }
    /* no GPU timed anything (the emulator): the totals are no grade (an older report without
     * the field: its mode says) */
    const jv *graded = jv_get(results, "speed_graded");
    row->speed_graded = graded ? jv_bool(graded, 1) : results && !is_emu(results);
    row->correct_passed = (int)jv_num(jv_get(results, "correct_passed"), 0);
    row->correct_checks = (int)jv_num(jv_get(results, "correct_checks"), 0);
    row->correct_score = (int)jv_num(jv_get(results, "correct_score"), 0);
    row->correct_max = (int)jv_num(jv_get(results, "correct_max"), 0);
    const jv *status = jv_get(results, "exit_status");
    row->exit_status = status ? (int)jv_num(status, 2) : grade_status;
    if (!results) {
        row->exit_status = grade_status == 0 ? 2 : grade_status;
        snprintf(row->reason, sizeof row->reason,
                 "no results: the grader stopped before writing its report (exit %d; see report.txt)",
                 grade_status);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* CSV and JSON Lines                                                                          */

void csv_field(FILE *f, const char *s)
{
    /* OWASP's list: a cell starting with one of these is a formula to some spreadsheet */
    const int formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
    char *shown = text_visible_dup(s, 0); /* no CR or LF left: one line per record */
    const int quote = strpbrk(shown, ",\"") != NULL;
    if (quote)
        fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (const char *p = shown; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    if (quote)
        fputc('"', f);
    free(shown);
}

/* The gradebook's word for how a grade was made: a grade made where student code could not be
 * isolated is labelled so wherever it is read. */
static const char *isolation_word(int tamper_proof)
{
    return tamper_proof == 1 ? "tamper-proof" : tamper_proof == 0 ? "NOT tamper-proof" : "";
}

void csv_header(FILE *f)
{
    fputs("student", f);
    for (int k = 0; k < n_all_labs; k++)
        fprintf(f, ",%s-%s", all_labs[k]->number, all_labs[k]->name);
    fputs(",total,max,correctness,speed,exit_status,state,isolation,missing,reason\r\n", f);
}

void csv_row(FILE *f, const grade_row *row)
{
    csv_field(f, row->name);
    char cell[64];
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++) {
        row_lab_text(row, k, cell, sizeof cell);
        fprintf(f, ",%s", cell);
    }
    /* with no GPU, no total (or the correctness points a course gives): speed is not graded */
    row_total_text(row, cell, sizeof cell);
    if (cell[0])
        *strchr(cell, '/') = ',';
    fprintf(f, ",%s", cell[0] ? cell : ",");
    if (!strcmp(row->state, "graded"))
        fprintf(f, ",%d/%d checks,%s", row->correct_passed, row->correct_checks,
                row->speed_graded ? "graded" : "not graded (no GPU)");
    else
        fputs(",,", f);
    fprintf(f, ",%d,%s,%s,", row->exit_status, row->state, isolation_word(row->tamper_proof));
    /* the labs with no work of the student's, by number ("01 07") */
    for (int k = 0, first = 1; k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (row->selected[k] && row->absent[k])
            fprintf(f, "%s%s:%s", first ? "" : " ", all_labs[k]->number, absent_word(row->absent[k])),
                first = 0;
    fputc(',', f);
    csv_field(f, row->reason);
    fputs("\r\n", f);
}

void jsonl_row(FILE *f, const grade_row *row)
{
    int changed = 0;
    char *clean = utf8_clean(row->name, &changed);
    fputs("{\"student\": ", f);
    json_write_escaped(f, clean);
    free(clean);
    if (changed) { /* not valid UTF-8: the exact bytes, so nothing is lost */
        fputs(", \"student_hex\": \"", f);
        for (const unsigned char *p = (const unsigned char *)row->name; *p; p++)
            fprintf(f, "%02x", *p);
        fputc('"', f);
    }
    fprintf(f, ", \"id\": \"%s\", \"state\": \"%s\", ", row->id, row->state);
    if (row->tamper_proof >= 0)
        fprintf(f, "\"tamper_proof\": %s, ", row->tamper_proof ? "true" : "false");
    fputs("\"labs\": {", f);
    int first = 1;
    for (int k = 0; k < n_all_labs && k < ROW_MAX_LABS; k++) {
        if (!row->selected[k])
            continue;
        char cell[64];
        row_lab_text(row, k, cell, sizeof cell);
        fprintf(f, "%s\"%s\": {\"score\": %s, \"max\": %d}", first ? "" : ", ", all_labs[k]->name,
                cell[0] ? cell : "null", row->lab_max[k]);
        first = 0;
    }
    fputs("}, \"missing\": [", f);
    for (int k = 0, first = 1; k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (row->selected[k] && row->absent[k])
            fprintf(f, "%s\"%s\"", first ? "" : ", ", all_labs[k]->number), first = 0;
    fputs("], \"missing_why\": {", f);
    for (int k = 0, first = 1; k < n_all_labs && k < ROW_MAX_LABS; k++)
        if (row->selected[k] && row->absent[k])
            fprintf(f, "%s\"%s\": \"%s\"", first ? "" : ", ", all_labs[k]->number,
                    absent_word(row->absent[k])),
                first = 0;
    char total[64];
    row_total_text(row, total, sizeof total);
    if (total[0])
        fprintf(f, "}, \"total\": %d, \"max\": %d", row->total,
                row->speed_graded ? row->max : row->correct_max);
    else /* no GPU: no total, and why */
        fputs("}, \"total\": null, \"max\": null", f);
    if (!strcmp(row->state, "graded"))
        fprintf(f, ", \"speed_graded\": %s, \"correct_passed\": %d, \"correct_checks\": %d",
                row->speed_graded ? "true" : "false", row->correct_passed, row->correct_checks);
    fprintf(f, ", \"exit_status\": %d, \"reason\": ", row->exit_status);
    json_write_escaped(f, row->reason); /* exact, as JSON escapes it (see json.h) */
    fputs("}\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/)                 */

/* The results' output: with no GPU, first that speed was not graded and the correctness checks
 * passed (so that no score shown there passes for a grade); the seed; why points were lost.
 * The texts shown are composed of lines the grader starts; what goes into them is rendered
 * visible first, so that none of it starts a line of its own. */
static void gradescope_output(const grade_row *row, const jv *results, int emu, char *output,
                              size_t len)
{
    char *reason = text_visible_dup(row->reason, 0);
    char *seed = text_visible_dup(jv_str(jv_get(results, "seed"), "?"), 0);
    char correctness[96] = "";
    if (emu)
        snprintf(correctness, sizeof correctness, "Correctness: %d of %d checks passed. ",
                 row->correct_passed, row->correct_checks);
    if (!results)
        snprintf(output, len, "Not graded: %s", reason);
    else
        snprintf(output, len, "%s%sHidden cases use seed %s. %s%s%s%s",
                 emu ? "Speed not graded (no GPU). " : "", correctness, seed,
                 row->tamper_proof == 0 ? "This grade was made where student code could not be "
                                          "isolated: it is not tamper-proof. " : "",
                 emu ? "Correctness was checked on the CPU emulator; speed is graded on a GPU "
                       "(run `make grade` on one, or wait for your instructor's GPU run). Speed "
                       "not graded here, so this score is no grade: the points are speed's." : "",
                 reason[0] ? "\nPoints not earned: " : "", reason);
    free(reason);
    free(seed);
}

void write_gradescope(FILE *f, const grade_row *row, const jv *results)
{
    json_writer w;
    json_init(&w, f);
    json_object_begin(&w, NULL);
    const int emu = is_emu(results);
    double score = 0;
    const jv *labs = jv_get(results, "labs");
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *checks = jv_get(jv_at(labs, i), "checks");
        for (int j = 0; j < jv_len(checks); j++)
            score += jv_num(jv_get(jv_at(checks, j), "earned"), 0);
    }
    json_number(&w, "score", score);
    char output[4 * ROW_REASON_MAX + 512];
    gradescope_output(row, results, emu, output, sizeof output);
    json_string(&w, "output", output);
    json_string(&w, "output_format", "text");
    json_string(&w, "visibility", "visible");
    json_array_begin(&w, "tests");
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *lab = jv_at(labs, i);
        const jv *checks = jv_get(lab, "checks");
        /* A lab the CPU emulator could not run (a valid feature it refuses): its points are
         * not counted here, as speed's are not; a GPU grades them. */
        const int refused = emu && jv_str(jv_get(lab, "refused"), "")[0];
        for (int j = 0; j < jv_len(checks); j++) {
            const jv *c = jv_at(checks, j);
            const char *kind = jv_str(jv_get(c, "kind"), "");
            const char *verdict = jv_str(jv_get(c, "verdict"), "");
            const int not_here = refused || (emu && !strcmp(kind, "speed") && !strcmp(verdict, "SKIP"));
            char name[512], number[32], text[4096], fault[1600];
            export_fault_text(c, 1, fault, sizeof fault);
            snprintf(name, sizeof name, "%s %s: %s", jv_str(jv_get(lab, "number"), ""),
                     jv_str(jv_get(lab, "lab"), ""), jv_str(jv_get(c, "name"), ""));
            snprintf(number, sizeof number, "%s.%d", jv_str(jv_get(lab, "number"), "0"), j + 1);
            char *message = text_visible_dup(jv_str(jv_get(c, "message"), ""), 0);
            char *detail = text_visible_dup(jv_str(jv_get(c, "detail"), ""), 0);
            char *shown_verdict = text_visible_dup(verdict, 0);
            char absent[400];
            lab_absent(row, lab, absent, sizeof absent);
            snprintf(text, sizeof text, "%s%s%s: %s%s%s%s%s%s", absent, absent[0] ? ".\n" : "",
                     shown_verdict, message, detail[0] ? "\n" : "", detail, fault[0] ? "\n" : "", fault,
                     !not_here ? "" : refused ? "\nNot graded here: the CPU emulator could not "
                     "run this file; a GPU grades it." : "\nNot graded here: speed is graded on a GPU.");
            free(message);
            free(detail);
            free(shown_verdict);
            json_object_begin(&w, NULL);
            json_visible_string(&w, "name", name);
            json_string(&w, "number", number);
            json_number(&w, "score", jv_num(jv_get(c, "earned"), 0));
            /* Under the emulator the speed points cannot be earned here: they are not counted
             * here either, so the score shown is the correctness score. */
            json_number(&w, "max_score", not_here ? 0 : jv_num(jv_get(c, "points"), 0));
            if (!not_here)
                json_string(&w, "status", !strcmp(verdict, "OK") ? "passed" : "failed");
            json_string(&w, "output", text);
            json_string(&w, "visibility", !strcmp(kind, "hidden") ? "after_due_date" : "visible");
            json_object_end(&w);
        }
    }
    json_array_end(&w);
    json_object_end(&w);
    fputc('\n', f);
}

/* ------------------------------------------------------------------------------------------ */
/* JUnit XML                                                                                   */

void write_junit_suites(FILE *f, const grade_row *row, const jv *results)
{
    const jv *labs = jv_get(results, "labs");
    if (!results || jv_len(labs) == 0) {
        fputs("  <testsuite name=\"", f);
        put_xml(f, row->name);
        fputs("\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
              "    <testcase classname=\"submission\" name=\"graded\">\n      <error message=\"", f);
        put_xml(f, row->reason);
        fputs("\"/>\n    </testcase>\n  </testsuite>\n", f);
        return;
    }
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *lab = jv_at(labs, i);
        const jv *checks = jv_get(lab, "checks");
        int fails = 0, errors = 0, skips = 0;
        for (int j = 0; j < jv_len(checks); j++) {
            const char *v = jv_str(jv_get(jv_at(checks, j), "verdict"), "");
            fails += !strcmp(v, "FAIL");
            errors += !strcmp(v, "ERROR");
            skips += !strcmp(v, "SKIP");
        }
        fputs("  <testsuite name=\"", f);
        put_xml(f, row->name);
        fputs(" / ", f);
        put_lab(f, lab, " ", put_xml);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
                jv_len(checks), fails, errors, skips);
        char absent[400], heading[160];
        lab_heading_text(row, lab, heading, sizeof heading);
        fputs("    <properties><property name=\"points\" value=\"", f);
        put_xml(f, heading);
        fputs("\"/>", f);
        if (lab_absent(row, lab, absent, sizeof absent)[0]) {
            fputs("<property name=\"missing\" value=\"", f);
            put_xml(f, absent);
            fputs("\"/></properties>\n    <system-out>", f);
            put_xml(f, absent);
            fputs("</system-out>\n", f);
        } else {
            fputs("</properties>\n", f);
        }
        for (int j = 0; j < jv_len(checks); j++) {
            const jv *c = jv_at(checks, j);
            const char *v = jv_str(jv_get(c, "verdict"), "");
            fputs("    <testcase classname=\"", f);
            put_lab(f, lab, "-", put_xml);
            fputs("\" name=\"", f);
            put_xml(f, jv_str(jv_get(c, "name"), ""));
            if (!strcmp(v, "OK")) {
                fputs("\"/>\n", f);
                continue;
            }
            const char *tag = !strcmp(v, "FAIL") ? "failure" : !strcmp(v, "ERROR") ? "error" : "skipped";
            fprintf(f, "\">\n      <%s message=\"", tag);
            put_xml(f, jv_str(jv_get(c, "message"), ""));
            fputs("\">", f);
            put_xml(f, jv_str(jv_get(c, "detail"), ""));
            char fault[1600];
            export_fault_text(c, 1, fault, sizeof fault);
            fputs(fault[0] ? "\n" : "", f);
            put_xml(f, fault);
            fprintf(f, "</%s>\n    </testcase>\n", tag);
        }
        fputs("  </testsuite>\n", f);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Markdown                                                                                    */

static void md_summary(FILE *f, const grade_row *row, const jv *results)
{
    char summary[256];
    summary_text(row, summary, sizeof summary);
    fprintf(f, "**%s**, exit status %d (%s).", summary, row->exit_status,
            exit_word(row));
    if (results)
        fprintf(f, " Hidden-case seed `%s`, graded on %s.", jv_str(jv_get(results, "seed"), "?"),
                is_emu(results) ? "the CPU emulator (speed is graded on a GPU)" : "a GPU");
    fputs("\n\n", f);
}

void write_markdown(FILE *f, const grade_row *row, const jv *results)
{
    fputs("# Grade report: ", f);
    put_md(f, row->name);
    fputs("\n\n", f);
    md_summary(f, row, results);
    if (row->reason[0]) {
        fputs(strcmp(row->state, "graded") ? "Not graded: " : "Points not earned: ", f);
        put_md(f, row->reason);
        fputs("\n\n", f);
    }
    const jv *labs = jv_get(results, "labs");
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *lab = jv_at(labs, i);
        fputs("## ", f);
        put_lab(f, lab, " ", put_md);
        char heading[160];
        lab_heading_text(row, lab, heading, sizeof heading);
        fputs(": ", f);
        put_md(f, heading);
        fputs("\n\n", f);
        char absent[400];
        if (lab_absent(row, lab, absent, sizeof absent)[0]) {
            fputs("**", f);
            put_md(f, absent);
            fputs("**\n\n", f);
        }
        if (jv_str(jv_get(lab, "refused"), "")[0]) {
            fputs("Could not run on the CPU emulator: ", f);
            put_md(f, jv_str(jv_get(lab, "refused"), ""));
            fputs(". A GPU grades it.\n\n", f);
        } else if (!jv_bool(jv_get(lab, "built"), 1))
            fputs("The file did not compile or was rejected at build.\n\n", f);
        fputs("| check | verdict | points | message |\n|---|---|---:|---|\n", f);
        const jv *checks = jv_get(lab, "checks");
        for (int j = 0; j < jv_len(checks); j++) {
            const jv *c = jv_at(checks, j);
            fputs("| ", f);
            put_md(f, jv_str(jv_get(c, "name"), ""));
            fputs(" | ", f);
            put_md(f, jv_str(jv_get(c, "verdict"), ""));
            fprintf(f, " | %d/%d | ", (int)jv_num(jv_get(c, "earned"), 0),
                    (int)jv_num(jv_get(c, "points"), 0));
            put_md(f, jv_str(jv_get(c, "message"), ""));
            char fault[1600];
            export_fault_text(c, 1, fault, sizeof fault);
            fputs(fault[0] ? "<br>" : "", f);
            put_md(f, fault);
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* HTML with an inline SVG chart                                                               */

void write_html(FILE *f, const grade_row *row, const jv *results)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Grade report: ", f);
    put_xml(f, row->name);
    fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:60em;color:#222}\n"
          "table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:"
          "3px 8px;text-align:left;vertical-align:top}\n.OK{color:#2e7d32}.FAIL,.ERROR{color:#c62828;"
          "font-weight:bold}.SKIP{color:#777}\n</style></head><body>\n<h1>Grade report: ", f);
    put_xml(f, row->name);
    char summary[256];
    summary_text(row, summary, sizeof summary);
    fputs("</h1>\n<p><b>", f);
    put_xml(f, summary);
    fprintf(f, "</b>, exit status %d (%s).", row->exit_status, exit_word(row));
    if (results) {
        fputs(" Hidden-case seed <code>", f);
        put_xml(f, jv_str(jv_get(results, "seed"), "?"));
        fprintf(f, "</code>, graded on %s.",
                is_emu(results) ? "the CPU emulator (speed is graded on a GPU)" : "a GPU");
    }
    fputs("</p>\n", f);
    if (row->reason[0]) {
        fprintf(f, "<p>%s", strcmp(row->state, "graded") ? "Not graded: " : "Points not earned: ");
        put_xml(f, row->reason);
        fputs("</p>\n", f);
    }
    const jv *labs = jv_get(results, "labs");
    if (jv_len(labs))
        export_svg_chart(f, labs);
    for (int i = 0; i < jv_len(labs); i++) {
        const jv *lab = jv_at(labs, i);
        fputs("<h2>", f);
        put_lab(f, lab, " ", put_xml);
        char heading[160];
        lab_heading_text(row, lab, heading, sizeof heading);
        fputs(": ", f);
        put_xml(f, heading);
        fputs("</h2>\n", f);
        char absent[400];
        if (lab_absent(row, lab, absent, sizeof absent)[0]) {
            fputs("<p><b>", f);
            put_xml(f, absent);
            fputs("</b></p>\n", f);
        }
        if (!jv_bool(jv_get(lab, "built"), 1))
            fputs("<p>The file did not compile or was rejected at build.</p>\n", f);
        fputs("<table><tr><th>check</th><th>verdict</th><th>points</th><th>message</th></tr>\n", f);
        const jv *checks = jv_get(lab, "checks");
        for (int j = 0; j < jv_len(checks); j++) {
            const jv *c = jv_at(checks, j);
            const char *v = jv_str(jv_get(c, "verdict"), "");
            fputs("<tr><td>", f);
            put_xml(f, jv_str(jv_get(c, "name"), ""));
            fputs("</td><td class=\"", f);
            put_xml(f, v);
            fputs("\">", f);
            put_xml(f, v);
            fprintf(f, "</td><td>%d/%d</td><td>", (int)jv_num(jv_get(c, "earned"), 0),
                    (int)jv_num(jv_get(c, "points"), 0));
            put_xml(f, jv_str(jv_get(c, "message"), ""));
            const char *detail = jv_str(jv_get(c, "detail"), "");
            if (detail[0] && strcmp(v, "OK")) {
                fputs("<br><small>", f);
                put_xml(f, detail);
                fputs("</small>", f);
            }
            char fault[1600];
            export_fault_text(c, 1, fault, sizeof fault);
            if (fault[0]) { /* the line the student saw, from results.json's "fault" */
                fputs("<br><small class=\"fault\">", f);
                put_xml(f, fault);
                fputs("</small>", f);
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</body></html>\n", f);
}
