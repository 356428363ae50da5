/* built.c - TRUSTED, NO GPU: what make left for each lab before the driver started (a status
 * and a build log per lab in --built DIR: grader/make/lab_step.sh, lab_status.sh), read once
 * and removed; and what an earlier run left in the report folder for a lab graded again,
 * removed first (see driver.h). */
#include "driver.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the build left for a lab (lab_build, ../report/report.h); its build log moved into the
 * report folder as <lab>.build.log, and under a GPU, the emulator's build log for the WHERE
 * line as <lab>.where.log. */
lab_build built_lab(const options *o, const lab_info *lab, char *log_path, size_t len)
{
    log_path[0] = 0;
    if (!o->built)
        return LAB_BUILT;
    char status_path[1024], from[1024], word[32] = "";
    snprintf(status_path, sizeof status_path, "%s/%s.status", o->built, lab->name);
    snprintf(from, sizeof from, "%s/%s.build.log", o->built, lab->name);
    report_lab_file(log_path, len, o->logs, lab->name, REPORT_BUILD_LOG);
    if (rename(from, log_path) != 0)
        unlink(log_path); /* no log from this build: none from an earlier one either */
    /* under a GPU, the emulator's build of the lab for the WHERE line: the start of its log */
    char where_from[1024], where_to[1024];
    snprintf(where_from, sizeof where_from, "%s/%s.where.build.log", o->built, lab->name);
    report_lab_file(where_to, sizeof where_to, o->logs, lab->name, REPORT_WHERE_LOG);
    if (rename(where_from, where_to) != 0)
        unlink(where_to);
    FILE *f = fopen(status_path, "r");
    if (!f)
        return LAB_NOT_BUILT;
    const int got = fscanf(f, "%31s", word);
    fclose(f);
    unlink(status_path);
    if (got != 1)
        return LAB_NOT_BUILT;
    return !strcmp(word, "ok") ? LAB_BUILT : !strcmp(word, "student") ? LAB_STUDENT_FAILED
         : !strcmp(word, "refused") ? LAB_REFUSED
         : !strcmp(word, "grader") ? LAB_GRADER_FAILED : !strcmp(word, "steps") ? LAB_STEPS_FAILED
         : LAB_NOT_BUILT;
}

/* Whether `rest`, what follows "<lab>." in a file's name, is one a grading run writes for the
 * lab and nothing else does: a check's files (<N>.log, <N>.records, the fault rerun's
 * <N>.emu.*), the harness's log, the WHERE line. Not the build's logs (<lab>.build.log,
 * <lab>.where.log: built_lab's, this run's already) nor make bench's (<lab>.bench.*). */
static int run_file(const char *rest)
{
    if (!strcmp(rest, REPORT_HARNESS_LOG) || !strcmp(rest, REPORT_WHERE_LINE))
        return 1;
    if (!isdigit((unsigned char)rest[0]))
        return 0;
    while (isdigit((unsigned char)*rest))
        rest++;
    return *rest == '.';
}

/* The plain files of the folder `fd` is open on removed (links too, never followed; folders
 * inside kept); fd is closed. */
static void clear_folder(int fd)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct stat st;
    for (struct dirent *e; (e = readdir(d));)
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
            unlinkat(fd, e->d_name, 0);
    closedir(d); /* (closes fd) */
}

void lab_files_clear(const options *o, const lab_info *lab)
{
    DIR *d = opendir(o->logs);
    if (!d)
        return;
    const int dfd = dirfd(d);
    const size_t k = strlen(lab->name);
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, lab->name, k) && e->d_name[k] == '.' && run_file(e->d_name + k + 1))
            unlinkat(dfd, e->d_name, 0); /* (a link named so goes, not what it points to) */
    /* the WHERE count's folder: what it counted and rendered (where.c makes it again); one that
     * is a link is left alone, what it points to being no report folder's */
    char where[300];
    snprintf(where, sizeof where, "%s.where", lab->name);
    const int wfd = openat(dfd, where, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (wfd >= 0)
        clear_folder(wfd);
    closedir(d);
}

/* The build's folder, once every lab's status and log is taken: what is left (the marks of
 * grader/make/lab_step.sh and lab_status.sh) goes, and the folder with it. */
void remove_built_dir(const options *o)
{
    if (!o->built)
        return;
    char from[1024];
    DIR *d = opendir(o->built);
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(from, sizeof from, "%s/%s", o->built, e->d_name);
                unlink(from);
            }
        closedir(d);
    }
    rmdir(o->built);
}

/* The emulator's refusal in a build log: the feature and its place from emu-nvcc's line
 * "cuda-emu: refused: FEATURE at line N of FILE; a GPU grades it" (the first), into `out`
 * ("" if there is none). The text came through the student's compile: it is shown as data,
 * and a refusal earns nothing, so a forged one gains nothing over the failure it replaces. */
void read_refusal(const char *log_path, char *out, size_t len)
{
    static const char mark[] = "cuda-emu: refused: ", tail[] = "; a GPU grades it";
    out[0] = 0;
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char buf[1024];
    while (!out[0] && fgets(buf, sizeof buf, f))
        if (!strncmp(buf, mark, sizeof mark - 1)) {
            buf[strcspn(buf, "\n")] = 0;
            char *end = strstr(buf, tail);
            if (end)
                *end = 0;
            /* (a longer refusal is cut to LEN: the emulator's own are one short line) */
            snprintf(out, len, "%.*s", (int)(len - 1), buf + sizeof mark - 1);
        }
    fclose(f);
}
