/* config.h - the instructor's overrides of each lab's defaults.
 *
 * Defaults live in the lab tables. A course config file (GRADER_CONFIG=path, or
 * grader/course.conf if present) and then the environment variable GRADER_SET override them:
 *
 *     # course.conf: one `lab.key = value` per line, '#' starts a comment
 *     transpose.threshold = 0.75     # pass mark: reference time / student time
 *     transpose.speed_points = 10    # points of the speed check
 *     transpose.correct_points = 1   # points of each correctness check (default 0: the gate;
 *                                    # a lab not started earns 0 all the same: started.h)
 *     transpose.timeout = 120        # seconds one check may run before it is killed
 *     transpose.partial_threshold = 0.4  # a lower pass mark that earns part of the speed
 *     transpose.partial_points = 2       # points... (defaults: 0.8 x threshold, half the points)
 *     *.threshold = 0.7              # '*' applies to every lab (a named lab wins)
 *
 *     GRADER_SET="transpose.threshold=0.8,reduction.timeout=300"
 *
 * Every override that applied is recorded (key, value, where it came from) in results.json.
 * Every value is checked when it is read: the lab must be `*` or a lab's name, the key one of
 * the four, and the value a finite number in the key's range (threshold above 0 and at most
 * 100; points whole, 0 to 1000; timeout above 0, at most a day). An error is one line naming
 * the file and line, or the GRADER_SET item, and what is allowed. */
#ifndef GRADER_CONFIG_H
#define GRADER_CONFIG_H

#ifdef __cplusplus
extern "C" {
#endif

#define CONFIG_MAX_ENTRIES 128
#define CONFIG_MAX_POINTS 1000     /* points of one check: far from overflowing any total */
#define CONFIG_MAX_THRESHOLD 100.0 /* reference time / student time needed */
#define CONFIG_MAX_TIMEOUT 86400.0 /* seconds one check may run */

typedef struct config_entry {
    char lab[64];     /* lab name, or "*" for every lab */
    char key[32];     /* threshold, speed_points, correct_points or timeout */
    double value;     /* the number given */
    char source[160]; /* "course.conf:12" or "GRADER_SET" */
} config_entry;

typedef struct config {
    config_entry entry[CONFIG_MAX_ENTRIES]; /* later entries win over earlier ones */
    int n;                                  /* entries in use */
} config;

/* Parse one file; appends entries. Returns 0, or -1 with a message in err (file:line: what). */
int config_parse_file(config *c, const char *path, char *err, int errlen);
/* Parse "lab.key=value,lab.key=value" (commas or semicolons); same contract, and the error
 * names the offending item ("GRADER_SET item 2 `sgemm.threshold=nan`: ..."). */
int config_parse_list(config *c, const char *list, const char *source, char *err, int errlen);

/* The course config's file in force: GRADER_CONFIG's, else grader/course.conf where it is
 * there, else NULL (none). The one place that says where it is: config_load and the batch,
 * which keeps its bytes, ask here. */
const char *config_path(void);

/* The course config in force, into c: config_path's file, then GRADER_SET. Returns 0, or -1 with the message in err. The driver, the
 * manifest (lab-manifest pass-mark: make explain's estimate) and make profiles read it here. */
int config_load(config *c, char *err, int errlen);

struct lab_info;
/* The one reader of a lab's pass mark (reference time / student time needed for the speed
 * points): the config's, else the lab's table's default. *source as config_get's. */
double config_pass_mark(const config *c, const struct lab_info *lab, const char **source);

/* The value for lab/key: the last matching entry naming the lab, else the last '*' entry,
 * else `fallback`. *source (if not NULL) gets the entry's source or "default". */
double config_get(const config *c, const char *lab, const char *key, double fallback,
                  const char **source);

#ifdef __cplusplus
}
#endif
#endif
