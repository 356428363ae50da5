/* terminal.c - TRUSTED, NO GPU: the terminal table of a grading run (terminal.h). */
#include "terminal.h"

#include "shown.h"
#include "../fault/fault.h"
#include "../plan/lab_select.h"
#include "../../common/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int use_colour;

void terminal_init(void)
{
    use_colour = isatty(1) && !getenv("NO_COLOR") && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
}

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

const char *verdict_word(verdict v)
{
    static const char *const words[] = {"OK", "FAIL", "SKIP", "ERROR"};
    return words[v];
}

static void print_line(const char *name, verdict v, double seconds, const char *message)
{
    /* dots to column 55; a longer name (an emulated size with the GPU's) is shown whole */
    char dotted[300];
    text_visible(dotted, sizeof dotted - 8, name, 0); /* a hidden check's size, as reported */
    strcat(dotted, " ");
    const size_t from = strlen(dotted), to = from + 3 > 55 ? from + 3 : 55;
    for (size_t i = from; i < to; i++)
        dotted[i] = '.';
    dotted[to] = 0;
    printf("  %s %s%-5s%s (%5.1fs)", dotted, colour(v), verdict_word(v),
           use_colour ? "\033[0m" : "", seconds);
    if (message[0]) {
        putchar(' ');
        text_put(stdout, message, 0);
    }
    putchar('\n');
}

static void print_indented(const char *label, const char *text)
{
    if (text && *text) {
        printf("      %s", label);
        put_shown(stdout, text);
        putchar('\n');
    }
}

/* One line of a log (the student's output, the compiler's diagnostics of the student's file)
 * under a "| " margin, its control characters shown as escapes (common/text.h): nothing in it
 * can start a line of its own or move the cursor. */
static void print_log_line(const char *line, int cut)
{
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\n')
        n--;
    fputs("      | ", stdout);
    char *copy = strndup(line, n);
    put_shown(stdout, copy ? copy : "");
    free(copy);
    fputs(cut ? " [... the rest of this long line is in the log]\n" : "\n", stdout);
}

/* (terminal.h) What the student's code printed: the log's end, up to a line. */
void print_log_tail_upto(const char *path, int lines, long upto)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *all[64] = {0};
    char buf[512];
    int n = 0, got, cut[64] = {0}; /* (cut: a line longer than buf, its start shown) */
    while ((upto < 0 || n < upto) && (got = text_log_line(f, buf, sizeof buf))) {
        free(all[n % 64]);
        all[n % 64] = strdup(buf);
        cut[n % 64] = got == 2;
        n++;
    }
    fclose(f);
    const int first = n > lines ? n - lines : 0;
    if (n > 0) {
        printf("      output (");
        put_shown(stdout, path);
        printf("):\n");
    }
    for (int i = first; i < n; i++)
        print_log_line(all[i % 64], cut[i % 64]);
    for (int i = 0; i < 64; i++)
        free(all[i]);
}

void print_log_tail(const char *path, int lines) { print_log_tail_upto(path, lines, -1); }

/* One bug, one report: within a lab, a failing check whose fault is the first one's (the same
 * kind of fault at the same places in the student's files: fault_place) is named in one line,
 * not reported again (another kind at the same line, or the same kind at another, is a bug of
 * its own); a hint said once in a lab is not said again. Reset per lab (terminal_lab_begin). */
#define FOLDED_FAULTS 4
static struct {
    struct {
        char first[256]; /* the check whose fault report was shown */
        char key[1024];  /* its hint and places */
        char place[300]; /* its places in the student's file ("transpose.cu:25, ...:30") */
        int repeats;     /* checks folded into it */
    } fault[FOLDED_FAULTS]; /* the lab's first faults, each reported once */
    int n_faults;
    char hints[8][512]; /* hints said in this lab (their first 511 bytes) */
    int n_hints;
    char reason[1024]; /* the last check's long reason for an ERROR or SKIP (below) */
    char estimate[1024]; /* the last ESTIMATE line said in full */
} folded;

/* Each lab's first fault reported (its places and kind, and the check it is under): where the
 * run's `Next:` points when that lab is the first short of its mark. */
static struct {
    const lab_info *lab;
    char place[300], kind[300], check[256];
} lab_fault[64];
static int n_lab_faults;

static void note_lab_fault(const lab_info *lab, const char *place, const char *kind,
                           const char *check)
{
    for (int i = 0; i < n_lab_faults; i++)
        if (lab_fault[i].lab == lab)
            return;
    if (n_lab_faults == 64)
        return;
    lab_fault[n_lab_faults].lab = lab;
    snprintf(lab_fault[n_lab_faults].place, sizeof lab_fault[0].place, "%s", place);
    snprintf(lab_fault[n_lab_faults].kind, sizeof lab_fault[0].kind, "%s", kind);
    snprintf(lab_fault[n_lab_faults++].check, sizeof lab_fault[0].check, "%s", check);
}

/* The fault already reported in this lab under KEY, or NULL. */
static int folded_fault(const char *key)
{
    for (int i = 0; i < folded.n_faults; i++)
        if (!strcmp(folded.fault[i].key, key))
            return i;
    return -1;
}

/* 1 if HINT was said already in this lab (and notes it when not). */
static int hint_said(const char *hint)
{
    for (int i = 0; i < folded.n_hints; i++)
        if (!strncmp(folded.hints[i], hint, sizeof folded.hints[i] - 1))
            return 1;
    if (folded.n_hints < 8)
        snprintf(folded.hints[folded.n_hints++], sizeof folded.hints[0], "%.511s", hint);
    return 0;
}

/* The build's errors, under a heading that says whose text follows: the compiler's
 * diagnostics quote the student's file, so every line of them is under the log's margin. */
void print_build_errors(const char *log_path)
{
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char buf[1024];
    int shown = 0, got;
    while (shown < 20 && (got = text_log_line(f, buf, sizeof buf)))
        /* (make's own "make[1]: *** [Makefile:N: build/...] Error 1" names the grader's build,
         * not the student's line: the compiler's line above it does) */
        if ((strstr(buf, "error") || strstr(buf, "rejected") || strstr(buf, "Error")) &&
            strncmp(buf, "make: ", 6) && strncmp(buf, "make[", 5)) {
            if (!shown) {
                printf("      the build's errors (");
                put_shown(stdout, log_path);
                printf("):\n");
            }
            print_log_line(buf, got == 2);
            shown++;
        }
    fclose(f);
    if (!shown)
        print_log_tail(log_path, 15);
    printf("      full build log: ");
    put_shown(stdout, log_path);
    putchar('\n');
}

/* A fault's report (fault.h: read once, by the driver) said at the student's line: a heading
 * naming the whole report's file and whose voice it is, its lines under the log's margin, and
 * under a sanitizer's report with no frame in the student's files that it is in a call their
 * code made, or the hint for its kind. 1 if it was said (f->found), 0 if not (nothing printed). */
static int print_fault(const fault_record *f, const lab_info *lab)
{
    if (!f->found)
        return 0;
    printf("      your code's fault (the whole report: ");
    put_shown(stdout, f->path);
    if (f->sanitizer)
        printf("):\n");
    else
        printf("), as the CPU emulator in your code's process reported it%s:\n",
               f->channel ? " on its own channel" : " last");
    for (int i = 0; i < f->n_lines; i++)
        print_log_line(f->lines[i], 0);
    if (!f->sanitizer)
        return 1;
    char rel[256];
    lab_student_rel(lab, rel, sizeof rel); /* "01-coalescing/coalescing.cu" */
    if (f->no_frame)
        printf("      (no frame of the report is in your files (%s or a header of yours beside "
               "it): the fault is in a call your code made; the report lists every frame)\n",
               strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
    else if (f->hint[0]) /* the advice for that kind: an index, not a pointer */
        printf("      HINT: %s\n", f->hint);
    return 1;
}

void terminal_run_begin(const char *student, const char *mode, const char *seed)
{
    char student_shown[1024];
    text_visible(student_shown, sizeof student_shown, student, 0);
    printf("Grading %s on %s. Hidden cases use seed %s (SEED=%s reproduces this run).\n",
           student_shown, strcmp(mode, "emu") ? "the GPU" : "the CPU emulator (no GPU: speed is "
           "skipped)", seed, seed);
}

/* Each lab's file as the heading named it: the `Next:` line of a lab not started names it. */
static struct {
    const lab_info *lab;
    char file[1024];
} lab_file[64];
static int n_lab_files;

void terminal_lab_begin(const lab_info *lab, const char *expected)
{
    memset(&folded, 0, sizeof folded);
    if (n_lab_files < 64) {
        lab_file[n_lab_files].lab = lab;
        snprintf(lab_file[n_lab_files++].file, sizeof lab_file[0].file, "%s", expected);
    }
    /* (the student's folder, by any name: shown as data) */
    printf("\n== %s %s: %s (", lab->number, lab->name, lab->title);
    put_shown(stdout, expected);
    printf(")\n");
}

void terminal_build(const build_report *b)
{
    if (b->refusal[0]) {
        printf("  could not run: the CPU emulator cannot run a feature your file uses (");
        text_put(stdout, b->refusal, 0);
        printf("); this is not a fault of your file, and a GPU grades it (make grade there)\n");
    } else if (b->missing) {
        printf("  your file was not found: expected it at ");
        put_shown(stdout, b->expected);
        putchar('\n');
    } else if (b->build == LAB_STUDENT_FAILED) {
        printf("  build failed: your file did not compile or was rejected\n");
        print_build_errors(b->build_log);
        if (b->other) { /* (whose it is: it includes that lab's contract, not this one's) */
            char rel[200];
            lab_student_rel(b->lab, rel, sizeof rel);
            printf("  this file is lab %s's (%s): it includes %s.h, lab %s's contract, not %s.h. "
                   "Grade it with LAB=%s; lab %s's own file is %s\n", b->other->number,
                   b->other->name, b->other->name, b->other->number, b->lab->name,
                   b->other->number, b->lab->number, rel);
        }
    } else if (b->build == LAB_GRADER_FAILED || b->build == LAB_NOT_BUILT ||
               b->build == LAB_STEPS_FAILED) {
        printf("  not graded: %s (this is not your code; run make doctor, then grade again)\n",
               b->build == LAB_NOT_BUILT ? "the build step did not reach this lab"
                                         : "the grader's own pieces of this lab did not build");
        if (b->build_log[0] && access(b->build_log, R_OK) == 0)
            print_build_errors(b->build_log);
    }
}

void terminal_unisolated(const char *detail)
{
    /* the harness refused too: not one call of student code was made */
    printf("  error: this machine cannot isolate student code (");
    text_put(stdout, detail, 0);
    printf("); a grade from it would not be tamper-proof. Grade where it can, or "
           "allow it explicitly (ALLOW_UNISOLATED=1).\n");
}

/* A check's log whose code faulted: the last `lines` lines the code printed before the report,
 * then the report said at the student's line: an address sanitizer's or UBSan's (print_fault)
 * or the emulator's own (an assert, a trap), as fault.h read it; without either, the log's
 * end. 1 if a report was said. */
static int print_fault_at_line(const char *log_path, const fault_record *f,
                               const lab_info *lab, int lines)
{
    print_log_tail_upto(log_path, lines, f->output_upto);
    return print_fault(f, lab);
}

/* The CPU emulator's run of a GPU's fault (check_report's fault): its report at the student's
 * line, or why there is none. */
static void print_fault_rerun(const check_report *r)
{
    const fault_report *f = r->fault;
    if (!f)
        return;
    if (f->note[0])
        printf("      %s\n", f->note);
    if (!f->log[0])
        return;
    const fault_record *found = &r->faults->rerun; /* (the rerun's log, read once) */
    if (f->right_there && found->at < 0) {
        printf("      where: the CPU emulator ran this check once more (%.0f s), alone in a fresh "
               "process, and there your code computed the right values, with no access out of "
               "bounds, race or other fault it watches for: its values are wrong only in the "
               "graded run. Look for what differs between the two: memory read before anything "
               "wrote it (fresh device memory holds whatever was there), an order of threads, "
               "warps or blocks the emulator happens to run (a GPU keeps none), code that "
               "behaves otherwise where it finds the emulator, or state your code keeps from one "
               "call to the next\n", f->seconds);
        return;
    }
    if (f->wrong_values && !f->timed_out && found->at < 0) {
        printf("      where: the CPU emulator ran this check once more (%.0f s) and met no access "
               "out of bounds, race or other fault it watches for: the values themselves are "
               "wrong (the first is above)\n", f->seconds);
        return;
    }
    printf("      where: the CPU emulator ran this check once more, in the same sandbox, to find "
           "the line (%.0f s):\n", f->seconds);
    if (print_fault_at_line(f->log, found, r->lab, 4))
        return;
    printf("      it ran %s, so it cannot name the line (its log: ",
           f->timed_out ? "out of time" : "without the fault");
    put_shown(stdout, f->log);
    printf("). On your own machine, make sanitize LAB=%s runs the checks under "
           "compute-sanitizer, which names it.\n", r->lab->number);
}

/* 1 if text is in name, spaces aside */
static int said_in_name(const char *name, const char *text)
{
    char n[512], t[512];
    size_t a = 0, b = 0;
    for (const char *c = name; *c && a < sizeof n - 1; c++)
        if (*c != ' ')
            n[a++] = *c;
    for (const char *c = text; *c && b < sizeof t - 1; c++)
        if (*c != ' ')
            t[b++] = *c;
    n[a] = t[b] = 0;
    return b > 0 && strstr(n, t) != NULL;
}

/* The message on a check's line of the table, in shown (len bytes) or d->message itself:
 * - a long reason that no check of the lab could run (the emulator's refusal of a feature: the
 *   same sentence for every check) is said once; the checks after it name it by its first
 *   words. results.json keeps each check's whole message.
 * - a passing check whose message only repeats what its name says (its size, perhaps spaced
 *   otherwise: "n = 1" and "n=1") shows nothing after the time. */
static const char *line_message(const check_report *r, char *shown, size_t len)
{
    const char *message = r->d->message;
    if ((r->s->v == VERDICT_ERROR || r->s->v == VERDICT_SKIP) && strlen(message) > 80) {
        const char *colon = strchr(message, ':');
        const int again = !strcmp(folded.reason, message);
        snprintf(folded.reason, sizeof folded.reason, "%s", message);
        if (again && colon && colon - message < 60) {
            snprintf(shown, len, "%.*s (the same reason as above)", (int)(colon - message), message);
            return shown;
        }
        return message;
    }
    folded.reason[0] = 0;
    if (r->s->v == VERDICT_OK && message[0] && said_in_name(r->name, message))
        return "";
    return message;
}

void terminal_check(const check_report *r)
{
    const check_decision *d = r->d;
    const child_outcome *out = r->out;
    char shown[sizeof d->message];
    print_line(r->name, r->s->v, out->seconds, line_message(r, shown, sizeof shown));
    if (r->s->v == VERDICT_FAIL) {
        struct stat printed;
        /* the fault (fault.h): the check's own report (under the emulator), else its rerun's (a
         * GPU's fault); the same fault as a check above: one line, with this check's log */
        const fault_check *fc = r->faults;
        const int faulted = fc->faulted;
        const fault_record *fr = fc->shown && fc->shown->fold[0] ? fc->shown : NULL;
        const char *key = fr ? fr->fold : "", *place = fr ? fr->places : "";
        const char *kind = fr ? fr->kind : "";
        const int same = key[0] ? folded_fault(key) : -1;
        if (same >= 0) {
            folded.fault[same].repeats++;
            printf("      the same fault as in \"%s\" above (this check's log: ",
                   folded.fault[same].first);
            put_shown(stdout, r->log_path);
            printf(")\n");
        } else {
            if (key[0] && folded.n_faults < FOLDED_FAULTS) {
                const int f = folded.n_faults++;
                snprintf(folded.fault[f].key, sizeof folded.fault[f].key, "%s", key);
                snprintf(folded.fault[f].first, sizeof folded.fault[f].first, "%s", r->name);
                snprintf(folded.fault[f].place, sizeof folded.fault[f].place, "%s", place);
            }
            if (key[0])
                note_lab_fault(r->lab, place, kind, r->name);
            if (d->detail[0] && hint_said(d->detail))
                printf("      HINT: as above\n");
            else
                print_indented("HINT: ", d->detail);
        }
        if (same >= 0) {
            /* folded: nothing more */
        } else if (faulted) {
            print_fault_at_line(r->log_path, &fc->own, r->lab, 8);
            print_fault_rerun(r);
        } else {
            /* no crash, yet the emulator was asked to look (a write the guard bytes around the
             * output caught, or wrong values on a GPU): what it found, then what the code printed */
            print_fault_rerun(r);
            if (r->log_path[0] && stat(r->log_path, &printed) == 0 && printed.st_size > 0) {
                printf("      what your code printed in this check: ");
                put_shown(stdout, r->log_path);
                putchar('\n');
            }
        }
    }
    if (r->where[0])
        print_indented("WHERE (the CPU emulator's count of your code): ", r->where);
    if (r->estimate && r->estimate[0]) {
        /* the same estimate for a second speed check of the lab (a lab it cannot estimate says
         * so for each): once in full */
        if (!strcmp(folded.estimate, r->estimate)) {
            printf("      ESTIMATE (not a grade): as above\n");
        } else {
            print_indented("ESTIMATE (not a grade): ", r->estimate);
            snprintf(folded.estimate, sizeof folded.estimate, "%s", r->estimate);
        }
    }
}

void terminal_lab_end(const lab_info *lab, const char *refused_at_run, const char *neighbours,
                      const lab_score *score, const build_report *b, int emu)
{
    if (refused_at_run[0]) { /* as a build's refusal: the lab earns nothing under emulation */
        printf("  could not run: the CPU emulator cannot run a feature your file uses (");
        text_put(stdout, refused_at_run, 0);
        printf("); this is not a fault of your file, nothing is earned here, and a GPU grades it "
               "(make grade there)\n");
    }
    if (neighbours) {
        /* the programs' names are any text their owners chose: shown as data */
        printf("  note: other programs used this GPU while the lab was graded: ");
        text_put(stdout, neighbours, 0);
        printf(". Timings are noisier beside them (close what you can and grade again for a "
               "steadier figure); no verdict blames you for them.\n");
    }
    for (int i = 0; i < folded.n_faults; i++)
        if (folded.fault[i].repeats > 0) {
            printf("  one fault (at ");
            put_shown(stdout, folded.fault[i].place);
            printf(") failed %d checks: its report is under \"%s\", each check's log is on "
                   "disk\n", folded.fault[i].repeats + 1, folded.fault[i].first);
        }
    char not_started[200] = "";
    if (score->not_started) /* nothing earned, whatever the checks did */
        snprintf(not_started, sizeof not_started, "%s, so it earns nothing (a lab's points come "
                 "from work on its file)%s", started_words(b->started), emu ? "; " : "");
    if (!emu)
        printf("  %s: %d/%d%s%s\n", lab->name, score->earned, score->possible,
               not_started[0] ? ", " : "", not_started);
    else if (score->correct_possible > 0) /* a course that gives correctness points */
        printf("  %s: %scorrectness %d of %d checks passed, %d/%d points; speed not graded (no "
               "GPU)\n", lab->name, not_started, score->correct_ok, score->correct_n,
               score->correct_earned, score->correct_possible);
    else
        printf("  %s: %scorrectness %d of %d checks passed; speed not graded (no GPU)\n",
               lab->name, not_started, score->correct_ok, score->correct_n);
}

void terminal_run_end(const totals *t, int unisolated, int status, const char *json)
{
    if (!t->tamper_proof) {
        printf("\nNOTE: not tamper-proof on this machine: ");
        text_put(stdout, t->isolation, 0);
        printf(". Student code ran in the grader's own process; a score from this run is "
               "feedback, not a grade.\n");
    }
    if (unisolated) {
        printf("\nNot graded: student code cannot be isolated on this machine.\n");
        return;
    }
    if (t->speed_graded)
        printf("\nScore: %d/%d\n", t->earned, t->possible);
    else if (t->correct_possible > 0) /* a course that gives correctness points */
        printf("\nScore: speed not graded (no GPU), so no score. Correctness: %d of %d checks "
               "passed, %d/%d correctness points.\n", t->correct_ok, t->correct_n,
               t->correct_earned, t->correct_possible);
    else
        printf("\nScore: speed not graded (no GPU), so no score: the points are speed's. "
               "Correctness: %d of %d checks passed.\n", t->correct_ok, t->correct_n);
    if (!t->speed_graded && t->not_started)
        printf("Not started: %d lab%s (nothing earned there, GPU or not).\n", t->not_started,
               t->not_started == 1 ? "" : "s");
    static const char *const meaning[] = {"full marks",
                                          "a point was lost (a check failed, or a lab is not "
                                          "started)",
                                          "a check could not run here (and none failed)"};
    printf("Exit status %d: %s. Details: ", status, meaning[status]);
    put_shown(stdout, json);
    putchar('\n');
    int fault = -1; /* the first lab short of its mark stopped at a fault of its code */
    for (int i = 0; t->first_short && i < n_lab_faults; i++)
        if (lab_fault[i].lab == t->first_short)
            fault = i;
    if (fault >= 0) { /* the next step: the fault's line, which no lesson or count fixes */
        printf("Next: lab %s (%s) stopped at a fault of your code (", t->first_short->number,
               t->first_short->name);
        put_shown(stdout, lab_fault[fault].kind);
        printf(") at ");
        put_shown(stdout, lab_fault[fault].place);
        printf(": its report is under \"");
        put_shown(stdout, lab_fault[fault].check);
        printf("\" above. Fix it first and grade again; the lab's speed counts only once "
               "every correctness check passes.\n");
    } else if (t->first_short) { /* the next step: one lab, and what to do there first */
        const lab_info *lab = t->first_short;
        char folder[96];
        lab_folder(lab, folder, sizeof folder);
        const char *file = "its file";
        for (int i = 0; i < n_lab_files; i++)
            if (lab_file[i].lab == lab)
                file = lab_file[i].file;
        if (t->first_short_why == SHORT_NOT_STARTED) {
            printf("Next: lab %s (%s) is not started. Read its lesson, labs/%s/README.md, then "
                   "edit ", lab->number, lab->name, folder);
            put_shown(stdout, file);
            printf(" where its TODO(student) marks say, and run make grade LAB=%s.\n",
                   lab->number);
        } else if (t->first_short_why == SHORT_CORRECT)
            printf("Next: lab %s (%s) failed a correctness check: its first FAIL above shows the "
                   "case and what differed. Fix that first and run make grade LAB=%s; the lab's "
                   "speed counts only once every correctness check passes.\n", lab->number,
                   lab->name, lab->number);
        else
            printf("Next: lab %s (%s) is short of its mark. Its lesson is labs/%s/README.md, and "
                   "make explain LAB=%s shows what your code does there, line by line (no GPU "
                   "needed).\n", lab->number, lab->name, folder, lab->number);
    }
}
