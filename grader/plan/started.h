/* started.h - TRUSTED, NO GPU: whether a lab's file is work of the student's, or a lab not
 * started. The one place that decides it, for make grade, the batch (whose grades the driver
 * makes) and every export.
 *
 * A lab is not started when its file is missing, or is the workbook's skeleton with comments
 * and white space aside (a comment added, lines re-indented): such a lab earns 0, even where a
 * course config gives correctness points (score.h's not_started). The skeleton is known by
 * the SHA-256 of its normalised text, which labs/skeletons.normalised.sha256 records per lab
 * (make docs-gen writes it from the committed skeletons; tests/test_score.c holds it to this
 * file's normaliser), never by the checkout's labs/, which is the student's own work.
 *
 * Normalised: every comment (`//` to the end of the line, `/ * ... * /`) and every white-space
 * character outside a string or character literal removed; a literal is kept whole, escapes and
 * all, so a `//` or `/ *` inside one is text, not a comment. Anything else (a renamed variable,
 * one token changed) is work: it is graded, and at the skeleton's speed earns nothing by the
 * speed rule. */
#ifndef GRADER_PLAN_STARTED_H
#define GRADER_PLAN_STARTED_H

#include <stddef.h>

#include "../lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The record of the skeletons' normalised digests, from the workbook's top folder. */
#define STARTED_DIGESTS "labs/skeletons.normalised.sha256"

/* The largest file looked at (a lab file is refused above this at its build anyway). */
#define STARTED_FILE_CAP (1 << 20)

/* src[0..n) normalised (above) into out, which has room for n + 1 bytes; returns its length. */
size_t started_normalise(const char *src, size_t n, char *out);

/* The SHA-256 of data[0..n) as 64 lowercase hex digits and a NUL, into hex[65]. */
void started_sha256_hex(const void *data, size_t n, char hex[65]);

/* The normalised digest of src[0..n), as started_sha256_hex writes it. */
void started_digest(const char *src, size_t n, char hex[65]);

typedef enum started_state {
    STARTED_WORK,      /* the student's work (or not known to be the skeleton) */
    STARTED_MISSING,   /* no file where the lab's file is looked for */
    STARTED_SKELETON   /* the skeleton, comments and white space aside */
} started_state;

/* Lab `lab`'s file at `path` judged against the record `digests` (STARTED_DIGESTS): read
 * without following a link, at most STARTED_FILE_CAP bytes. A record that cannot be read or
 * does not name the lab, or a file that is not a plain file or cannot be read, is
 * STARTED_WORK: only a file known to be the skeleton is taken as not started. */
started_state lab_started(const lab_info *lab, const char *path, const char *digests);

/* The lab whose file the one at `path` is, where that is not `lab`: it includes another lab's
 * contract header (`#include "coalescing.h"`, comments and white space aside) and not its
 * own. NULL when it is lab's, or cannot be told (for a build's failure: a lab 01 file graded
 * with LAB=06 says whose it is, not only that coalescing.h is missing). */
const lab_info *started_other_lab(const lab_info *lab, const char *path);

/* What the report says of a lab not started, or "" for STARTED_WORK. */
const char *started_words(started_state s);

#ifdef __cplusplus
}
#endif
#endif
