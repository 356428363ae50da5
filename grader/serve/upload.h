/* upload.h - TRUSTED: a submission's files as they travel, a tar (ustar) of regular files only:
 * written by make submit's packer (pack.c), read strictly by the server (upload.c) before a byte
 * of it is written. No library but libc: the packer builds on every student's machine. */
#ifndef SERVE_UPLOAD_H
#define SERVE_UPLOAD_H

#include <stddef.h>

/* Bounds of one upload (the same as grading's: a lab file of at most 1 MiB, its helper files
 * grader/sandbox/helper_files.h's, a tar's headers and padding around them). */
#define UP_MAX_FILE (1 << 20)
#define UP_MAX_FILES 33
#define UP_MAX_BYTES (6 << 20)
#define UP_MAX_NAME 200
#define REPORT_CAP (256 << 10)

/* One file of an upload, as upload_parse found it. */
typedef struct up_file {
    char name[UP_MAX_NAME + 1]; /* "01-coalescing/coalescing.cu", checked against the rule */
    const unsigned char *bytes;
    size_t size;
} up_file;

/* Read the tar in buf[0..n) for lab folder FOLDER ("01-coalescing") whose lab file is REL
 * ("01-coalescing/coalescing.cu"): only regular files, names under FOLDER in letters, digits
 * and . _ - /, no "..", no absolute path, within the bounds above, the lab file among them.
 * Returns how many, or -1 with the rule broken in ERR (one line). */
int upload_parse(const unsigned char *buf, size_t n, const char *folder, const char *rel,
                 up_file *files, char *err, size_t errlen);
/* Write the files into the folder TREE, which must not exist yet (made 0700; every file
 * created with O_EXCL|O_NOFOLLOW under folders made here). 0, or -1 with ERR. */
int upload_write(const char *tree, const up_file *files, int n, char *err, size_t errlen);
/* A tar of the files (what make submit's packer writes): malloc'd, its length in *len. */
unsigned char *tar_pack(const up_file *files, int n, size_t *len);

#endif
