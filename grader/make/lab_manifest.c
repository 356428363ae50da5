/* lab_manifest.c - TRUSTED, NO GPU: what the build derives from each lab's manifest (its table).
 *
 *   lab-manifest mk        the make variables of every lab: ENTRY_<name> (the symbols a
 *                          student's file must define), FORBID_<name> (the libraries it
 *                          may not use and what the lab is about, "cub thrust: writing the
 *                          sum yourself"), FORBID_PTX_<name> and FORBID_SASS_<name>
 *                          (regexes over its instructions), all read by grader/make/vet.sh, and
 *                          STUDENT_REL_<name> (the file a student edits in their tree,
 *                          "06-transpose/transpose.cu", as grader/plan/lab_select.c says it:
 *                          grader/make/paths.mk's ref_src reads it); the Makefile includes it
 *                          as $(BUILD)/gen/labs.mk. Run from the
 *                          workbook's top folder: a lab whose folder is not grader/labs/NN-name,
 *                          as its table's number and name say, stops here
 *                          STUDENT_AT_<name> (where that lab's words are in student-paths's
 *                          answer: grader/make/paths.mk's student_word)
 *   lab-manifest student-rel   the same files, one lab a line: "NAME NN-name/name.cu" (the
 *                          Gradescope kit's run_autograder reads it)
 *   lab-manifest student-paths STUDENT   the file-or-folder rule's answer for STUDENT= (as
 *                          grader/plan/lab_select.c states it, the one place that does), on
 *                          one line of words: "file" or "tree", then per lab, in the tables'
 *                          order, its file, the tree and the path inside it that the compile
 *                          sandbox is given, and its place in the sandbox. grader/make/paths.mk
 *                          reads it once per make (STUDENT_PATHS); make has refused a STUDENT
 *                          with spaces or shell characters before; status 2 for one here too
 *   lab-manifest header    $(BUILD)/gen/lab_manifest.h, for every problem.cu and shim: per
 *                          entry point its index (LAB_ENTRY_<sym>), harness_call's format
 *                          (LAB_WIRE_<sym>), the shim's call (LAB_SHIM_CALL_<sym>(a, s)), and
 *                          a static check that the contract header declares it exactly with
 *                          the manifest's signature
 *   lab-manifest select LAB   the labs LAB= selects (grader/plan/lab_select.h), their names on one
 *                          line: what make grade and make bench build; nothing and status 2
 *                          when LAB= is wrong (the driver then says why, with the list of labs)
 *   lab-manifest pass-mark LAB   the pass mark in force of one lab (its table's, or the course
 *                          config's: grader/course.conf or GRADER_CONFIG, then GRADER_SET, read
 *                          by grader/plan/config.c as the driver reads it), for make explain's
 *                          speed estimate; status 2 and the reason when LAB= or the config is
 *                          wrong
 *
 * A lab's table (grader/labs/NN-name/table.c) is the one place for its name, number, entry
 * points with their C signature, forbidden symbols and instructions; the build writes the
 * rest from it, or stops with the reason: a signature whose wire format disagrees (its
 * arguments, one code each, as harness_call packs them) stops here, a contract header that
 * declares another prototype stops the compile of every file that includes the header. */
#include "../lab.h"
#include "../plan/config.h"
#include "../plan/lab_select.h"
#include "manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const lab_info *lab, const lab_entry *e, const char *why)
{
    fprintf(stderr, "error: lab %s %s, entry point %s (grader/labs/%s-%s/table.c): %s\n",
            lab->number, lab->name, e ? e->symbol : "-", lab->number, lab->name, why);
    exit(1);
}

/* Every lab's manifest, checked before anything is written. */
static void check_all(void)
{
    char err[512];
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *lab = all_labs[k];
        if (lab->n_entries < 1)
            die(lab, NULL, "the table names no entry point (.entries)");
        /* vet.sh's rejection reads "lab NAME is about <forbid_about>, so LIBRARY may not be
         * used"; the colon separates the two in FORBID_<name> */
        if (lab->forbid_libraries && *lab->forbid_libraries &&
            (!lab->forbid_about || !*lab->forbid_about))
            die(lab, NULL, "forbidden libraries (.forbid_libraries) need .forbid_about, what the lab is about instead");
        if (lab->forbid_libraries && strchr(lab->forbid_libraries, ':'))
            die(lab, NULL, ".forbid_libraries names libraries only (no ':')");
        /* the Makefile passes FORBID_<name> to vet.sh inside double quotes */
        if (lab->forbid_libraries && *lab->forbid_libraries && strpbrk(lab->forbid_about, "\"`\\$\n"))
            die(lab, NULL, ".forbid_about must be one line without \", `, \\ or $");
        for (int i = 0; i < lab->n_entries; i++)
            if (manifest_check_entry(&lab->entries[i], err, sizeof err))
                die(lab, &lab->entries[i], err);
    }
}

/* Text in a make value: '$' and '#' would be read by make. */
static void put_make_text(const char *v)
{
    for (; v && *v; v++) {
        if (*v == '$')
            fputs("$$", stdout);
        else if (*v == '#')
            fputs("\\#", stdout);
        else
            putchar(*v);
    }
}

/* A make value, ended by its newline. */
static void put_make_value(const char *v)
{
    put_make_text(v);
    putchar('\n');
}

static void emit_mk(void)
{
    printf("# generated by lab-manifest (grader/make/lab_manifest.c) from the lab tables: do not edit\n");
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *lab = all_labs[k];
        char folder[96], path[128], rel[200], why[256];
        lab_folder(lab, folder, sizeof folder);
        snprintf(path, sizeof path, "grader/labs/%s", folder);
        snprintf(why, sizeof why, "there is no folder %s, which the table's number and name make "
                 "the lab's (rename the folder, or the table's .number or .name)", path);
        if (access(path, F_OK))
            die(lab, NULL, why);
        lab_student_rel(lab, rel, sizeof rel);
        printf("STUDENT_REL_%s := ", lab->name);
        put_make_value(rel);
        printf("ENTRY_%s :=", lab->name);
        for (int i = 0; i < lab->n_entries; i++)
            printf(" %s", lab->entries[i].symbol);
        printf("\nFORBID_%s := ", lab->name);
        if (lab->forbid_libraries && *lab->forbid_libraries) {
            put_make_text(lab->forbid_libraries);
            fputs(": ", stdout);
            put_make_text(lab->forbid_about);
        }
        putchar('\n');
        printf("FORBID_PTX_%s := ", lab->name);
        put_make_value(lab->forbid_ptx);
        printf("FORBID_SASS_%s := ", lab->name);
        put_make_value(lab->forbid_sass);
        printf("STUDENT_AT_%s := %d %d %d %d\n", lab->name, 2 + 4 * k, 3 + 4 * k, 4 + 4 * k,
               5 + 4 * k);
    }
}

/* lab-manifest student-paths STUDENT (see the top): words, so no path is read by make again. */
static int emit_student_paths(const char *student)
{
    if (!*student || strpbrk(student, " \t\n\v\f\r")) {
        fprintf(stderr, "lab-manifest student-paths: STUDENT='%s' must be one path without "
                        "spaces\n", student);
        return 2;
    }
    printf("%s", lab_student_is_file(student) ? "file" : "tree");
    for (int k = 0; k < n_all_labs; k++) {
        char file[4096], tree[4096], rel[4096], box[4096];
        lab_student_file(student, all_labs[k], file, sizeof file);
        lab_student_place(student, all_labs[k], tree, sizeof tree, rel, sizeof rel);
        lab_student_compiled(student, all_labs[k], box, sizeof box);
        printf(" %s %s %s %s", file, tree, rel, box);
    }
    printf("\n");
    return 0;
}

static void emit_header(void)
{
    printf("/* lab_manifest.h - generated by lab-manifest (grader/make/lab_manifest.c) from the lab tables:\n"
           " * do not edit. Per entry point: its index, harness_call's format, the shim's call,\n"
           " * and a check that its contract header declares it as the table does. */\n"
           "#ifndef GRADER_LAB_MANIFEST_H\n#define GRADER_LAB_MANIFEST_H\n\n");
    for (int k = 0; k < n_all_labs; k++) {
        char folder[96];
        lab_folder(all_labs[k], folder, sizeof folder);
        printf("#include \"%s.h\" /* grader/labs/%s */\n", all_labs[k]->name, folder);
    }
    printf("\n#ifdef __cplusplus\n#include <type_traits>\n"
           "#define LAB_SAME_TYPE(f, t) std::is_same<decltype(&f), t>::value\n"
           "#define LAB_STATIC_ASSERT static_assert\n#else\n"
           "#define LAB_SAME_TYPE(f, t) __builtin_types_compatible_p(__typeof__(&f), t)\n"
           "#define LAB_STATIC_ASSERT _Static_assert\n#endif\n");
    for (int k = 0; k < n_all_labs; k++) {
        const lab_info *lab = all_labs[k];
        printf("\n/* lab %s %s */\n", lab->number, lab->name);
        for (int i = 0; i < lab->n_entries; i++) {
            const lab_entry *e = &lab->entries[i];
            manifest_param p[MANIFEST_MAX_PARAMS];
            char err[256];
            const int n = manifest_params(e, p, err, sizeof err);
            printf("#define LAB_ENTRY_%s %d\n#define LAB_WIRE_%s \"%s\"\n", e->symbol, i,
                   e->symbol, e->wire);
            printf("LAB_STATIC_ASSERT(LAB_SAME_TYPE(%s, void (*)(%s)),\n"
                   "    \"grader/labs/%s-%s/%s.h must declare void %s(%s), as the lab's table.c "
                   "does\");\n", e->symbol, e->signature, lab->number, lab->name, lab->name,
                   e->symbol, e->signature);
            int made = 0;
            for (int j = 0; j < n; j++)
                made |= !p[j].code;
            if (made) /* the shim makes some arguments itself: it writes the call */
                continue;
            printf("#define LAB_SHIM_CALL_%s(a, s) %s(", e->symbol, e->symbol);
            for (int j = 0, w = 0; j < n; j++) {
                if (j)
                    printf(", ");
                if (p[j].code == 's')
                    printf("(s)");
                else
                    printf("(%s)(a)[%d].%c", p[j].type, w++,
                           p[j].code == 'p' ? 'p' : p[j].code == 'f' ? 'f' : 'i');
            }
            printf(")\n");
        }
    }
    printf("\n#endif\n");
}

int main(int argc, char **argv)
{
    check_all();
    if (argc == 2 && !strcmp(argv[1], "mk"))
        emit_mk();
    else if (argc == 2 && !strcmp(argv[1], "header"))
        emit_header();
    else if (argc == 3 && !strcmp(argv[1], "select")) {
        const lab_info *labs[256];
        char err[1024];
        const int n = n_all_labs <= 256 ? lab_list_parse(argv[2], labs, err, sizeof err) : -1;
        for (int i = 0; i < n; i++)
            printf("%s%s", i ? " " : "", labs[i]->name);
        printf("\n");
        if (n < 0)
            return 2;
    } else if (argc == 2 && !strcmp(argv[1], "student-rel")) {
        for (int k = 0; k < n_all_labs; k++) {
            char rel[200];
            lab_student_rel(all_labs[k], rel, sizeof rel);
            printf("%s %s\n", all_labs[k]->name, rel);
        }
    } else if (argc == 3 && !strcmp(argv[1], "student-paths")) {
        if (emit_student_paths(argv[2]))
            return 2;
    } else if (argc == 3 && !strcmp(argv[1], "pass-mark")) {
        const lab_info *labs[256];
        char err[1024];
        static config cfg;
        const int n = n_all_labs <= 256 ? lab_list_parse(argv[2], labs, err, sizeof err) : -1;
        if (n != 1 || config_load(&cfg, err, sizeof err)) {
            fprintf(stderr, "lab-manifest pass-mark %s: %s\n", argv[2],
                    n == 1 ? err : n < 0 ? err : "name one lab");
            return 2;
        }
        printf("%g\n", config_pass_mark(&cfg, labs[0], NULL));
    } else {
        fprintf(stderr, "usage: lab-manifest mk|header|select LAB|pass-mark LAB|student-rel|"
                        "student-paths STUDENT (the Makefile runs it)\n");
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
