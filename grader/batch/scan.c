/* scan.c - the submissions, as grade-batch finds them (grader/batch/batch.h): each entry of
 * SUBMISSIONS= walked without following a link, refused with the reason (a symbolic link, a
 * special file, a lab file over FILE_CAP, two copies of a lab's work that differ, in the lab
 * file or its helpers: both named), or each lab's work found (at its place in the lab layout,
 * at the top or in a labs/ folder at any depth, with the helper files it includes), and each
 * lab not handed in named and graded as the workbook's own skeleton
 * (grader/batch/pristine_skeletons.sh, never this checkout's edits). Trusted: a student's names
 * and bytes are data here, read with O_NOFOLLOW and never passed to a shell.
 *
 * The fingerprint. Everything a student's grade depends on, hashed: seed, labs, mode, course
 * config, every lab's manifest as a whole (the tables compiled in: grader/make/manifest.h,
 * manifest_text), the name and the bytes of every lab file graded. A record whose fingerprint
 * matches is final (gradebook.c); anything else is graded again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/text.h"
#include "../make/manifest.h"
#include "../lab.h"
#include "../plan/lab_select.h"
#include "../sandbox/helper_files.h"
#include "../wire/stop.h"
#include "batch.h"

typedef struct hash128 {
    uint64_t a, b; /* two FNV-1a 64 streams with different offset bases */
} hash128;

static void hash_init(hash128 *h)
{
    h->a = 0xcbf29ce484222325ull;
    h->b = 0x84222325cbf29ce4ull;
}

static void hash_bytes(hash128 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ull;
        h->b = (h->b ^ (unsigned char)(p[i] + 0x5b)) * 0x100000001b3ull;
    }
}

/* A length, then the bytes: so ("ab","c") and ("a","bc") differ. */
static void hash_field(hash128 *h, const void *data, size_t n)
{
    uint64_t len = n;
    hash_bytes(h, &len, sizeof len);
    hash_bytes(h, data, n);
}

static void hash_hex(const hash128 *h, char *out, size_t len)
{
    snprintf(out, len, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}

/* Folders never walked: git's own store, and a workbook checkout's build output (a folder named
 * build beside a labs folder), which holds what make grade and make test leave there: copies of
 * lab files, the workbook's own tests' links and pipes, thousands of files, never a student's
 * work. A checkout handed in after make test is graded from its labs/ as one handed in clean. */
static int never_work(int dirfd, const char *name)
{
    struct stat st;
    if (!strcmp(name, ".git"))
        return 1;
    return !strcmp(name, "build") && fstatat(dirfd, "labs", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISDIR(st.st_mode);
}

/* Walk a submission (never_work's folders left out): no symbolic link, no special file, bounded
 * size. Returns 0, or -1 with the reason in s->refusal. rel is the path shown in messages. */
static int walk(student *s, int dirfd, const char *rel, int depth, int *entries)
{
    if (depth > MAX_DEPTH)
        return snprintf(s->refusal, sizeof s->refusal, "folders nested deeper than %d (%s)",
                        MAX_DEPTH, rel), -1;
    DIR *d = fdopendir(dirfd);
    if (!d)
        return snprintf(s->refusal, sizeof s->refusal, "cannot read %s: %s", rel, strerror(errno)), -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || never_work(dirfd, e->d_name))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        if (++*entries > MAX_ENTRIES) {
            snprintf(s->refusal, sizeof s->refusal, "more than %d files and folders", MAX_ENTRIES);
            rc = -1;
            break;
        }
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            snprintf(s->refusal, sizeof s->refusal, "cannot inspect %s: %s", path, strerror(errno));
            rc = -1;
        } else if (S_ISLNK(st.st_mode)) {
            char target[512];
            ssize_t n = readlinkat(dirfd, e->d_name, target, sizeof target - 1);
            target[n > 0 ? n : 0] = 0;
            snprintf(s->refusal, sizeof s->refusal,
                     "%s is a symbolic link (to %s): symbolic links are refused and never "
                     "followed; submit the file itself", path, target);
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (fd < 0) {
                snprintf(s->refusal, sizeof s->refusal, "cannot open %s: %s", path, strerror(errno));
                rc = -1;
            } else {
                rc = walk(s, fd, path, depth + 1, entries);
            }
        } else if (!S_ISREG(st.st_mode)) {
            snprintf(s->refusal, sizeof s->refusal,
                     "%s is a special file (a pipe, socket or device), not a plain file", path);
            rc = -1;
        } else {
            char **held = realloc(s->held, (size_t)(s->n_held + 1) * sizeof *held);
            if (!held)
                die("out of memory");
            s->held = held;
            s->held[s->n_held++] = xstrdup(path);
        }
    }
    closedir(d);
    return rc;
}

/* The folder REL (a path inside the submission, "" for its top) opened a part at a time, never
 * through a link; -1 when it cannot be. */
static int open_folder(int subfd, const char *rel)
{
    char part[2048];
    snprintf(part, sizeof part, "%s", rel);
    int fd = dup(subfd);
    for (char *name = strtok(part, "/"); name && fd >= 0; name = strtok(NULL, "/")) {
        const int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    return fd;
}

/* The file REL of the submission, whole, into *buf and *n: 0, or -1 with the reason in
 * s->refusal. */
static int read_submitted(student *s, int subfd, const char *rel, char **buf, size_t *n)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    const char *file = slash ? slash + 1 : rel;
    if (slash)
        *slash = 0;
    const int dfd = open_folder(subfd, slash ? dir : "");
    const int fd = dfd < 0 ? -1 : openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (dfd >= 0)
        close(dfd);
    if (fd < 0)
        return snprintf(s->refusal, sizeof s->refusal, "%s cannot be opened: %s", rel,
                        strerror(errno)), -1;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return snprintf(s->refusal, sizeof s->refusal, "%s is not a plain file", rel), -1;
    }
    if (st.st_nlink != 1) { /* a hard link: another file's name, maybe not the student's */
        close(fd);
        return snprintf(s->refusal, sizeof s->refusal,
                        "%s is a hard link (the file has %lu names): submit a file of your own",
                        rel, (unsigned long)st.st_nlink), -1;
    }
    if (st.st_size > FILE_CAP) {
        close(fd);
        return snprintf(s->refusal, sizeof s->refusal, "%s is %lld bytes; the limit is %d", rel,
                        (long long)st.st_size, FILE_CAP), -1;
    }
    char *b = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    ssize_t r;
    while (b && got <= (size_t)st.st_size && (r = read(fd, b + got, (size_t)st.st_size + 1 - got)) > 0)
        got += (size_t)r;
    close(fd);
    if (!b)
        die("out of memory");
    if (got > (size_t)st.st_size) { /* grew while being read */
        free(b);
        return snprintf(s->refusal, sizeof s->refusal, "%s changed while it was read", rel), -1;
    }
    *buf = b;
    *n = got;
    return 0;
}

/* Where lab k's work is looked for: REL ("01-coalescing/coalescing.cu") at the top of the
 * submission, or inside a folder named labs at any depth (a whole checkout handed in). */
static int is_lab_place(const char *path, const char *rel)
{
    const size_t lp = strlen(path), lr = strlen(rel);
    if (!strcmp(path, rel))
        return 1;
    if (lp < lr + 5 || strcmp(path + lp - lr, rel) || memcmp(path + lp - lr - 5, "labs/", 5))
        return 0;
    return lp == lr + 5 || path[lp - lr - 6] == '/';
}

/* A file that looks like lab k's put elsewhere: its name (coalescing.cu), or a .cu file whose
 * name holds the lab's name (coalescing_lab1.cu), in any case (Coalescing.cu, from a system
 * whose file names ignore case) or with a suffix after its .cu (coalescing.cu.txt, as some
 * uploads rename it). Never graded: named with where it belongs. */
static int looks_like_lab(const char *path, int k)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const size_t lb = strlen(base);
    const char *dot_cu = strcasestr(base, ".cu.");
    return lb > 3 && (!strcasecmp(base + lb - 3, ".cu") || (dot_cu && dot_cu > base)) &&
           strcasestr(base, all_labs[k]->name);
}

static int add_helper(void *ctx, const char *rel, const char *bytes, size_t len)
{
    helper **tail = ctx, *h = calloc(1, sizeof *h);
    if (!h || !(h->bytes = malloc(len ? len : 1)))
        die("out of memory");
    h->rel = xstrdup(rel);
    memcpy(h->bytes, bytes, len);
    h->size = len;
    while (*tail)
        tail = &(*tail)->next;
    *tail = h;
    return 0;
}

static void free_helpers(helper *h)
{
    for (helper *next; h; h = next) {
        next = h->next;
        free(h->rel);
        free(h->bytes);
        free(h);
    }
}

/* Whether two lists of helpers hold the same names with the same bytes, in the same order. */
static int same_helpers(const helper *a, const helper *b)
{
    for (; a && b; a = a->next, b = b->next)
        if (strcmp(a->rel, b->rel) || a->size != b->size || memcmp(a->bytes, b->bytes, a->size))
            return 0;
    return !a && !b;
}

/* The helpers that the lab file BUF (N bytes, at PATH in submission s) includes, from its own
 * folder, into *OUT: 0, or -1 with s->refusal. */
static int lab_helpers(student *s, int subfd, const char *path, const char *rel, const char *buf,
                       size_t n, helper **out)
{
    char dir[2048], err[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    const int dfd = open_folder(subfd, slash ? dir : "");
    if (dfd < 0)
        return snprintf(s->refusal, sizeof s->refusal, "%s cannot be opened", dir), -1;
    const char *base = strrchr(rel, '/') + 1;
    const char *reserved[] = {base, NULL};
    char shown[600];
    text_visible(shown, sizeof shown, slash ? dir : ".", 0);
    const helper_calls calls = {add_helper, NULL, out, base};
    const int rc = helper_files(dfd, shown, buf, n, reserved, &calls, err, sizeof err);
    close(dfd);
    if (rc)
        return snprintf(s->refusal, sizeof s->refusal, "%s", err), -1;
    return 0;
}

/* Lab k's work in submission s (open as SUBFD): its file and the helpers it includes into
 * s->file[k] and s->helpers[k], or the reason it has none in s->absent[k] and
 * s->absent_detail[k]. -1 with s->refusal when the submission is refused (two copies of the
 * lab's work that differ, in the lab file or in the helpers it includes: both named, never one
 * picked; a file or helper past the limits). Copies the same in every byte are one work. */
static int find_lab_work(student *s, int subfd, int k)
{
    char rel[200];
    lab_student_rel(all_labs[k], rel, sizeof rel);
    int found = -1;
    for (int i = 0; i < s->n_held; i++) {
        if (!is_lab_place(s->held[i], rel))
            continue;
        char *buf = NULL;
        size_t n = 0;
        helper *helpers = NULL;
        if (read_submitted(s, subfd, s->held[i], &buf, &n))
            return -1;
        if (lab_helpers(s, subfd, s->held[i], rel, buf, n, &helpers)) {
            free(buf);
            free_helpers(helpers);
            return -1;
        }
        if (found < 0) {
            found = i;
            s->file[k] = buf;
            s->size[k] = n;
            s->theirs[k] = 1;
            s->helpers[k] = helpers;
            continue;
        }
        const int files_differ = n != s->size[k] || memcmp(buf, s->file[k], n);
        const int helpers_differ = !same_helpers(helpers, s->helpers[k]);
        free(buf);
        free_helpers(helpers);
        if (files_differ || helpers_differ) {
            char a[600], b[600];
            text_visible(a, sizeof a, s->held[found], 0);
            text_visible(b, sizeof b, s->held[i], 0);
            return snprintf(s->refusal, sizeof s->refusal,
                            "two different copies of lab %s's work, %s and %s (%s): hand in one "
                            "(at %s, or in a labs/ folder)", all_labs[k]->number, a, b,
                            files_differ ? "the lab files differ"
                                         : "the same lab file, with different helper files",
                            rel), -1;
        }
    }
    if (found >= 0)
        return 0;
    /* None: a file that looks like the lab's elsewhere is named with the fix; otherwise what
     * the submission held, a few names. */
    for (int i = 0; i < s->n_held; i++)
        if (looks_like_lab(s->held[i], k)) {
            s->absent[k] = ABSENT_MISPLACED;
            text_visible(s->absent_detail[k], sizeof s->absent_detail[k], s->held[i], 0);
            return 0;
        }
    s->absent[k] = ABSENT_NO_FILE;
    char *d = s->absent_detail[k];
    const size_t cap = sizeof s->absent_detail[k];
    size_t w = 0;
    int shown = 0;
    for (int i = 0; i < s->n_held && shown < 4; i++, shown++) {
        char name[120];
        text_visible(name, sizeof name, s->held[i], 0);
        if (w + strlen(name) + 2 + 24 >= cap)
            break;
        w += (size_t)snprintf(d + w, cap - w, "%s%s", shown ? ", " : "", name);
    }
    if (s->n_held > shown)
        snprintf(d + w, cap - w, " (+%d more)", s->n_held - shown);
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Look at one entry of SUBMISSIONS: refuse it with a reason, or load the files it will be
 * graded with; then fingerprint it. */
static void scan_student(const batch_settings *o, const batch_state *b, student *s)
{
    hash128 h;
    hash_init(&h);
    hash_field(&h, s->name, strlen(s->name));
    hash_hex(&h, s->id, sizeof s->id);
    s->id[0] = 's'; /* "s" + 31 hex digits of the name's hash */
    s->id[32] = 0;

    struct stat st;
    if (fstatat(b->subs_fd, s->name, &st, AT_SYMLINK_NOFOLLOW)) {
        snprintf(s->refusal, sizeof s->refusal, "cannot inspect it: %s", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        char target[512];
        ssize_t n = readlinkat(b->subs_fd, s->name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        snprintf(s->refusal, sizeof s->refusal,
                 "the submission is a symbolic link (to %s), not a folder; symbolic links are "
                 "refused and never followed", target);
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(s->refusal, sizeof s->refusal,
                 "not a folder: each submission is a folder laid out like labs/");
    } else {
        int fd = openat(b->subs_fd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        int entries = 0;
        if (fd < 0) {
            snprintf(s->refusal, sizeof s->refusal, "cannot open it: %s", strerror(errno));
        } else if (walk(s, dup(fd), "", 0, &entries) == 0 &&
                   (qsort(s->held, (size_t)s->n_held, sizeof *s->held, by_path), 1)) {
            for (int k = 0; k < n_all_labs && !s->refusal[0]; k++)
                if (find_lab_work(s, fd, k) < 0)
                    break;
        }
        if (fd >= 0)
            close(fd);
    }
    /* Labs left out are graded as the workbook's skeleton (b->skeleton: never the checkout's
     * edits), and named as work not submitted (the reports say "no submission for lab NN" and
     * why, not a failure of the student's code): so is a file byte for byte the skeleton. */
    for (int k = 0; k < n_all_labs && !s->refusal[0]; k++) {
        if (s->file[k]) {
            if (s->size[k] == b->skeleton_size[k] && !memcmp(s->file[k], b->skeleton[k], s->size[k]))
                s->absent[k] = ABSENT_SKELETON;
            continue;
        }
        s->file[k] = malloc(b->skeleton_size[k] + 1);
        if (!s->file[k])
            die("out of memory");
        memcpy(s->file[k], b->skeleton[k], b->skeleton_size[k]);
        s->size[k] = b->skeleton_size[k];
    }

    hash_init(&h);
    hash_field(&h, "grade-batch fingerprint 3", 25);
    hash_field(&h, b->seed, strlen(b->seed));
    hash_field(&h, b->labs_arg, strlen(b->labs_arg));
    hash_field(&h, o->emu ? "emu" : "auto", o->emu ? 3 : 4);
    hash_field(&h, b->config_text, b->config_len);
    /* The lab manifests compiled into this grader, each as a whole (grader/make/manifest.h):
     * a changed check, point, pass mark, limit, hint or entry point regrades. */
    for (int k = 0; k < n_all_labs; k++) {
        const size_t n = manifest_text(all_labs[k], NULL, 0) + 1;
        char *text = malloc(n);
        if (!text)
            die("out of memory");
        manifest_text(all_labs[k], text, n);
        hash_field(&h, text, n - 1);
        free(text);
    }
    hash_field(&h, s->name, strlen(s->name));
    hash_field(&h, s->refusal, strlen(s->refusal));
    for (int k = 0; k < n_all_labs && !s->refusal[0]; k++) {
        hash_field(&h, s->file[k], s->size[k]);
        for (const helper *x = s->helpers[k]; x; x = x->next) {
            hash_field(&h, x->rel, strlen(x->rel));
            hash_field(&h, x->bytes, x->size);
        }
    }
    hash_hex(&h, s->fingerprint, sizeof s->fingerprint);
}

void free_student(student *s)
{
    for (int k = 0; k < ROW_MAX_LABS; k++) {
        free(s->file[k]);
        for (helper *x = s->helpers[k], *next; x; x = next) {
            next = x->next;
            free(x->rel);
            free(x->bytes);
            free(x);
        }
    }
    for (int i = 0; i < s->n_held; i++)
        free(s->held[i]);
    free(s->held);
    free(s->name);
    memset(s, 0, sizeof *s);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of SUBMISSIONS but . and .., sorted by bytes. */
static char **list_students(const batch_settings *o, const batch_state *b, int *count)
{
    int fd = dup(b->subs_fd);
    DIR *d = fdopendir(fd);
    if (!d)
        die("cannot read SUBMISSIONS=%s: %s", o->submissions, strerror(errno));
    int n = 0, cap = 64;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        if (!names)
            die("out of memory");
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    *count = n;
    return names;
}

/* b->skeleton (batch_state.skeleton): each lab's skeleton as the workbook recorded it (labs/skeletons.sha256), from
 * grader/batch/pristine_skeletons.sh (which says once, for each lab, where this checkout's
 * labs/ is edited): run without a shell into a folder of this process's, read, removed. */
void load_skeletons(batch_state *b)
{
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/work/skeletons.%d", b->out, (int)getpid());
    rm_tree(dir);
    fflush(stdout);
    pid_t pid = stop_fork(SIGTERM);
    if (pid < 0)
        die("cannot start grader/batch/pristine_skeletons.sh: %s", strerror(errno));
    if (pid == 0) {
        char *argv[] = {"grader/batch/pristine_skeletons.sh", dir, NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    stop_forget(pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        die("the workbook's own skeletons could not be found (the reason is above); nothing was "
            "graded");
    for (int k = 0; k < n_all_labs; k++) {
        char path[PATH_MAX * 2];
        lab_student_file(dir, all_labs[k], path, sizeof path);
        b->skeleton[k] = read_whole(path, &b->skeleton_size[k]);
        if (!b->skeleton[k])
            die("the skeleton of lab %s was not written to %s", all_labs[k]->number, path);
    }
    rm_tree(dir);
}

/* Every student of SUBMISSIONS=, scanned (scan_student), in list_students' order: *n of them. */
student *scan_students(const batch_settings *o, const batch_state *b, int *n)
{
    char **names = list_students(o, b, n);
    student *list = calloc(*n ? *n : 1, sizeof *list);
    for (int i = 0; i < *n; i++) {
        list[i].name = names[i];
        scan_student(o, b, &list[i]);
    }
    free(names);
    /* Two names with one id would share a folder: refuse the later one (never seen so far). */
    for (int i = 0; i < *n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(list[i].id, list[j].id) && !list[i].refusal[0])
                snprintf(list[i].refusal, sizeof list[i].refusal,
                         "its folder id collides with another student's; rename it");
    return list;
}
