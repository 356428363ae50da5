/* helper_files.h - TRUSTED: which of a student's own files compile with their lab file.
 *
 * A student may split a lab file into helpers: headers (or .cu files) of their own, beside it
 * in the lab's folder, included with #include "NAME". Those the lab file includes, and those
 * they include in turn, go into the compile sandbox beside it; nothing else of the student's
 * tree does. The rule, as the messages state it: a helper is a regular file in the lab's
 * folder or a folder below it (no symbolic link, no second name: a hard link, no absolute
 * path; ".." only where the path stays inside the folder, and one that leaves it is refused
 * with the file and the include named), named in letters,
 * digits and . _ - /; at most HELPER_MAX_FILES of them and HELPER_MAX_BYTES in all. A name
 * the lab file includes that is not there is left to the compiler (a header of the workbook's,
 * the system's, or a typo it reports); a name of the workbook's own headers (RESERVED) is
 * always the workbook's. Used by sandbox-run (what the compile sees) and by grade-batch (what
 * a submission's tree holds). */
#ifndef HELPER_FILES_H
#define HELPER_FILES_H

#include <stddef.h>

#define HELPER_MAX_FILES 32
#define HELPER_MAX_BYTES (4 << 20)

/* What the walk reports, in the order found: FOUND once per helper (REL: its path inside the
 * lab's folder, and its bytes); MISSING (may be NULL) once per name inside the folder that the
 * files include and that is not there. A non-zero return stops the walk (helper_files returns
 * it, or -1 for MISSING). */
typedef struct {
    int (*found)(void *ctx, const char *rel, const char *bytes, size_t len);
    int (*missing)(void *ctx, const char *rel);
    void *ctx;
    const char *lab_file; /* the lab file's name, for messages (NULL: "your lab file") */
} helper_calls;

/* The helpers that TEXT (the lab file's bytes, LEN of them) includes, found under the open
 * folder DIRFD (the lab's folder). RESERVED: NULL-ended names that are never taken from the
 * student (the workbook's headers), or NULL. Returns 0 when every helper was taken, -1 with
 * one line in ERR (the file, what is wrong, the rule) when one is refused, or a call's non-zero
 * return. SHOWN_DIR names the folder in messages ("labs/06-transpose"). */
int helper_files(int dirfd, const char *shown_dir, const char *text, size_t len,
                 const char *const *reserved, const helper_calls *cb, char *err, size_t errlen);

#endif
