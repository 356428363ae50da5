/* lab_select.c - TRUSTED, NO GPU: LAB= and the student's paths (see lab_select.h). */
#include "lab_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const lab_info *find_lab(const char *key)
{
    /* A number is digits only ("6", "06", "006"), never "6x" or "-6". */
    const int number = key[0] && strspn(key, "0123456789") == strlen(key) ? atoi(key) : 0;
    for (int i = 0; i < n_all_labs; i++) {
        const lab_info *lab = all_labs[i];
        char folder[96];
        lab_folder(lab, folder, sizeof folder);
        if (!strcmp(key, lab->name) || !strcmp(key, folder) ||
            (number > 0 && number == atoi(lab->number)))
            return lab;
    }
    return NULL;
}

/* err = "LAB=<text>: <what>. Labs: 01 coalescing, 02 banks, ..." */
static int list_error(char *err, size_t errlen, const char *text, const char *what)
{
    int k = snprintf(err, errlen, "LAB=%s: %s. Labs:", text, what);
    for (int i = 0; i < n_all_labs && k > 0 && (size_t)k < errlen; i++)
        k += snprintf(err + k, errlen - k, "%s %s %s", i ? "," : "", all_labs[i]->number,
                      all_labs[i]->name);
    return -1;
}

int lab_list_parse(const char *text, const lab_info **out, char *err, size_t errlen)
{
    int chosen[256] = {0}; /* by index into all_labs */
    const int all = strspn(text, " ") == strlen(text);
    if (!all) {
        char *copy = strdup(text);
        if (!copy)
            return snprintf(err, errlen, "out of memory"), -1;
        for (char *item = copy, *comma; item; item = comma ? comma + 1 : NULL) {
            comma = strchr(item, ',');
            if (comma)
                *comma = 0;
            if (strspn(item, " ") == strlen(item)) {
                free(copy);
                return list_error(err, errlen, text, "an empty item (give lab names or "
                                  "numbers, e.g. LAB=01,transpose)");
            }
            for (char *save = NULL, *t = strtok_r(item, " ", &save); t;
                 t = strtok_r(NULL, " ", &save)) {
                const lab_info *lab = find_lab(t);
                if (!lab) {
                    char what[160];
                    snprintf(what, sizeof what, "no lab called `%.100s`", t);
                    free(copy);
                    return list_error(err, errlen, text, what);
                }
                for (int i = 0; i < n_all_labs && i < 256; i++)
                    chosen[i] |= all_labs[i] == lab;
            }
        }
        free(copy);
    }
    int n = 0;
    for (int i = 0; i < n_all_labs && i < 256; i++)
        if (all || chosen[i])
            out[n++] = all_labs[i];
    return n;
}

void lab_folder(const lab_info *lab, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s", lab->number, lab->name);
}

/* The rule itself, written here alone: the build reads it from lab-manifest (STUDENT_REL_<name>
 * in labs.mk, and student-paths: lab_manifest.c), and every other reader calls this. */
void lab_student_rel(const lab_info *lab, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s/%s.cu", lab->number, lab->name, lab->name);
}

/* Whether STUDENT= names one .cu file rather than a tree: the one place that decides it (the
 * build asks lab-manifest student-paths, which calls this). */
int lab_student_is_file(const char *student)
{
    const size_t sl = strlen(student);
    return sl > 3 && !strcmp(student + sl - 3, ".cu");
}

void lab_student_file(const char *student, const lab_info *lab, char *buf, size_t len)
{
    char rel[200];
    lab_student_rel(lab, rel, sizeof rel);
    if (lab_student_is_file(student))
        snprintf(buf, len, "%s", student);
    else
        snprintf(buf, len, "%s/%s", student, rel);
}

void lab_student_compiled(const char *student, const lab_info *lab, char *buf, size_t len)
{
    /* one file: in the lab's folder there, as in a tree (paths.mk's student_box) */
    if (lab_student_is_file(student))
        snprintf(buf, len, "%s-%s/%s", lab->number, lab->name,
                 strrchr(student, '/') ? strrchr(student, '/') + 1 : student);
    else
        lab_student_rel(lab, buf, len);
}

void lab_student_place(const char *student, const lab_info *lab, char *tree, size_t tree_len,
                       char *rel, size_t rel_len)
{
    if (!lab_student_is_file(student)) {
        snprintf(tree, tree_len, "%s", student);
        lab_student_rel(lab, rel, rel_len);
        return;
    }
    const char *slash = strrchr(student, '/');
    if (!slash) /* a file given in the current folder */
        snprintf(tree, tree_len, ".");
    else /* its folder, without the slash ("/" itself for a file at the root) */
        snprintf(tree, tree_len, "%.*s", slash > student ? (int)(slash - student) : 1, student);
    snprintf(rel, rel_len, "%s", slash ? slash + 1 : student);
}
