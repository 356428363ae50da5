/* manifest.h - reading a lab's entry points from its manifest (lab.h's lab_entry): the
 * parameters of a signature and the check of its wire format. grader/make/lab_manifest.c writes
 * what the build derives from them; tests/test_grader.c tests them. */
#ifndef GRADER_MANIFEST_H
#define GRADER_MANIFEST_H

#include <stddef.h>

#include "../lab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MANIFEST_MAX_PARAMS 16

/* One parameter of a signature: "const float *in" -> type "const float *", name "in". */
typedef struct manifest_param {
    char type[96]; /* the type as written, without the name */
    char name[48]; /* the parameter's name */
    char code;     /* what harness_call passes for it: p i l z f; 's' the stream (not passed);
                      0 a type the shim makes the argument of (lab 05's kernel function) */
} manifest_param;

/* Split e->signature into p[] (room for MANIFEST_MAX_PARAMS). Returns how many, or -1 with
 * the reason in err. */
int manifest_params(const lab_entry *e, manifest_param *p, char *err, size_t errlen);

/* 0 if e is well formed: a symbol, a signature of named parameters with the stream (if any)
 * last, and a wire format that is the signature's codes in order (the stream left out),
 * followed by more only where the shim makes a parameter itself. Else -1 and the reason. */
int manifest_check_entry(const lab_entry *e, char *err, size_t errlen);

/* The lab's manifest as a whole, as text: every field of its lab_info that is data (name,
 * number, title, entry points, what it forbids, pass mark, hints, time limit, noise bound) and
 * every field of every check, each as `key=LENGTH:bytes` on a line of its own, so that no two
 * manifests give the same text and a change to any field changes it (make grade-batch's
 * regrade fingerprint hashes it). The sizing functions are code, and not in it. Writes at most
 * len bytes (with the terminating 0) and returns the whole text's length, as snprintf does. */
size_t manifest_text(const lab_info *lab, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
