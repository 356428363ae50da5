/* lab_select.h - which labs a run grades, and where each lab's files are: the one parser of
 * LAB= and the one builder of a student's path, for the driver, the batch tool and (through
 * lab-manifest) the build.
 *
 * LAB= names labs by name ("transpose"), number ("06" or "6") or folder ("06-transpose"),
 * separated by commas or spaces; blank means every lab. Each lab is graded once, in workbook
 * order, however often and in whatever order it is named (LAB=06,01,1 grades 01 then 06). An
 * empty item (LAB=01,,06) or an unknown name is an error that lists the labs. */
#ifndef GRADER_LAB_SELECT_H
#define GRADER_LAB_SELECT_H

#include <stddef.h>

#include "../lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lab `key` names (name, number or folder, as above), or NULL. */
const lab_info *find_lab(const char *key);

/* Parse LAB= `text` into out[] (room for n_all_labs). Returns how many, or -1 with one line
 * in err saying what was wrong and which labs there are. */
int lab_list_parse(const char *text, const lab_info **out, char *err, size_t errlen);

/* The lab's folder under labs/, solutions/ and grader/labs/: "06-transpose". */
void lab_folder(const lab_info *lab, char *buf, size_t len);

/* The file a student edits, relative to their tree: "06-transpose/transpose.cu". The one
 * place that says so: the build reads it through lab-manifest (STUDENT_REL_<name>, and
 * lab-manifest student-paths). */
void lab_student_rel(const lab_info *lab, char *buf, size_t len);

/* The student file-or-folder rule, stated here alone: STUDENT= names one .cu file (a ladder
 * rung, given with one LAB=) when it ends in ".cu", else a tree laid out like labs/. The build
 * reads every answer below through lab-manifest student-paths (grader/make/paths.mk); the
 * driver, the batch and the reports call them; tests/test_grader.c holds them. */
int lab_student_is_file(const char *student);

/* The student's file of `lab` under STUDENT=`student`: the file itself when `student` names
 * one .cu file, else student/NN-name/name.cu. */
void lab_student_file(const char *student, const lab_info *lab, char *buf, size_t len);

/* The same file as a tree and a path inside it, as the compile sandbox is given it: `student`
 * and lab_student_rel's for a tree; the file's folder ("." in the current one) and its name
 * for one file. */
void lab_student_place(const char *student, const lab_info *lab, char *tree, size_t tree_len,
                       char *rel, size_t rel_len);

/* That file as the compile sandbox holds it (paths.mk's student_box): its own name in the
 * lab's folder ("01-coalescing/mine.cu") when `student` names one .cu file, else
 * lab_student_rel's. */
void lab_student_compiled(const char *student, const lab_info *lab, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
