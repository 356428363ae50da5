/* folder.h - the report folder's file names, in one place: what a grading run (make grade's
 * build/grade/, a batch student's folder) writes there for a lab. A lab's file is
 * <folder>/<lab>.<what>, a check's <folder>/<lab>.<N>.<what> (N counts the lab's table from 0).
 * The shell scripts and tests that read the folder spell the same names. */
#ifndef GRADER_WIRE_FOLDER_H
#define GRADER_WIRE_FOLDER_H

#include <stddef.h>
#include <stdio.h>

/* a lab's */
#define REPORT_HARNESS_LOG "harness.log"   /* what the lab's harness printed */
#define REPORT_BUILD_LOG "build.log"       /* the lab's build (moved in from the build's folder) */
#define REPORT_WHERE_DIR "where"           /* the WHERE count's own files (where.c) */
#define REPORT_WHERE_LINE "where.txt"      /* the WHERE line */
#define REPORT_WHERE_LOG "where.log"       /* the emulator's build for it, then the count's log */
#define REPORT_BENCH_RECORDS "bench.records" /* make bench's: the harness's records */
#define REPORT_BENCH_LOG "bench.log"       /* ... and what it printed */
#define REPORT_BENCH_TABLE "tsv"           /* ... and the lab's table */
/* a check's */
#define REPORT_CHECK_LOG "log"             /* what the code printed during the check */
#define REPORT_CHECK_RECORDS "records"     /* the harness's records of it */
#define REPORT_CHECK_FAULTS "report"       /* the CPU emulator's fault reports during it, from
                                              its own channel (the harness writes it beside
                                              the log: grader/harness/worker_lifecycle_trusted.cu) */
#define REPORT_RERUN_PREFIX "emu."         /* a fault's rerun under the emulator: emu.log, ... */

/* <folder>/<lab>.<what>; snprintf's return */
static inline int report_lab_file(char *buf, size_t len, const char *folder, const char *lab,
                                  const char *what)
{
    return snprintf(buf, len, "%s/%s.%s", folder, lab, what);
}

/* <folder>/<lab>.<check>.<what>; snprintf's return */
static inline int report_check_file(char *buf, size_t len, const char *folder, const char *lab,
                                    int check, const char *what)
{
    return snprintf(buf, len, "%s/%s.%d.%s", folder, lab, check, what);
}

#endif
