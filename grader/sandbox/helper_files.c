/* helper_files.c - TRUSTED: which of a student's own files compile with their lab file
 * (helper_files.h says the rule). Every file is opened a folder at a time with O_NOFOLLOW, so
 * no symbolic link is followed and nothing outside the lab's folder is reached; a file with a
 * second name (a hard link) is refused on its open descriptor, as is one the caller's rights
 * do not let it read (sandbox-run reads with the student's). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "helper_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELPER_NAME_MAX 256

typedef struct {
    char rel[HELPER_MAX_FILES + 1][HELPER_NAME_MAX]; /* found so far, in order */
    int n;
    size_t bytes;
} found_set;

static const char rule[] = "a helper file must be a regular file of your lab's folder or a folder "
                           "below it (no link, no second name, '..' only where the path stays "
                           "inside that folder), named in letters, digits and . _ - /, at most 32 "
                           "files and 4 MiB in all";

static int seen(const found_set *f, const char *rel)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->rel[i], rel))
            return 1;
    return 0;
}

/* FROM's folder joined with NAME, "." parts dropped and each ".." taking back the part before
 * it, into OUT. 0; 1 when the name is absolute or holds a character outside the rule; 2 when
 * a ".." leaves the lab's folder. */
static int join(const char *from, const char *name, char *out, size_t len)
{
    if (name[0] == '/' || !name[0])
        return 1;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-' || *c == '/'))
            return 1;
    const char *slash = strrchr(from, '/');
    char path[2 * HELPER_NAME_MAX];
    const int len_path = snprintf(path, sizeof path, "%.*s%s%.*s", slash ? (int)(slash - from) : 0,
                                  from, slash ? "/" : "", HELPER_NAME_MAX, name);
    if (len_path < 0 || (size_t)len_path >= sizeof path)
        return 1;
    size_t w = 0;
    out[0] = 0;
    char *save = NULL;
    for (char *part = strtok_r(path, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (!strcmp(part, "."))
            continue;
        if (!strcmp(part, "..")) {
            if (w == 0)
                return 2; /* above the lab's folder */
            char *up = strrchr(out, '/');
            w = up ? (size_t)(up - out) : 0;
            out[w] = 0;
            continue;
        }
        const int n = snprintf(out + w, len - w, "%s%s", w ? "/" : "", part);
        if (n < 0 || (size_t)n >= len - w)
            return 1;
        w += (size_t)n;
    }
    return w == 0;
}

/* Opens REL below DIRFD, a folder at a time, never through a link. The file's descriptor;
 * -1 when it is not there (ENOENT on the way); -2 with the reason in WHY when it is there but
 * refused. */
static int open_below(int dirfd, const char *rel, const char **why)
{
    char part[2 * HELPER_NAME_MAX];
    snprintf(part, sizeof part, "%s", rel);
    int dir = dup(dirfd);
    char *name = part;
    for (char *slash; dir >= 0 && (slash = strchr(name, '/')); name = slash + 1) {
        *slash = 0;
        const int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int e = errno;
        close(dir);
        if (next < 0) {
            *why = e == ENOENT ? NULL : "a folder on its way is a link or not a folder";
            return e == ENOENT ? -1 : -2;
        }
        dir = next;
    }
    if (dir < 0)
        return *why = "its folder cannot be opened", -2;
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        const int e = errno;
        close(dir);
        *why = e == ENOENT ? NULL : "it cannot be inspected";
        return e == ENOENT ? -1 : -2;
    }
    if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
        close(dir);
        *why = S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a regular file";
        return -2;
    }
    const int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    const int e = errno;
    close(dir);
    if (fd < 0 && (e == EACCES || e == EPERM))
        return *why = "your own rights do not let it be read", -2;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return *why = "it changed while it was read", -2;
    }
    if (st.st_nlink != 1) { /* a hard link: the same file under another name, maybe not yours */
        close(fd);
        return *why = "it is a hard link (the file has another name too)", -2;
    }
    return fd;
}

/* Every #include "NAME" of TEXT, in order, into NAMES (at most MAX); their count. Angle
 * includes (<...>) are the system's and the toolkit's, never a helper. */
static int include_names(const char *text, size_t len, char names[][HELPER_NAME_MAX], int max)
{
    int n = 0;
    for (size_t i = 0; i < len && n < max;) {
        size_t j = i;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j < len && text[j] == '#') {
            j++;
            while (j < len && (text[j] == ' ' || text[j] == '\t'))
                j++;
            if (len - j > 7 && !memcmp(text + j, "include", 7)) {
                j += 7;
                while (j < len && (text[j] == ' ' || text[j] == '\t'))
                    j++;
                if (j < len && text[j] == '"') {
                    const size_t start = ++j;
                    while (j < len && text[j] != '"' && text[j] != '\n')
                        j++;
                    if (j < len && text[j] == '"' && j - start < HELPER_NAME_MAX) {
                        memcpy(names[n], text + start, j - start);
                        names[n++][j - start] = 0;
                    }
                }
            }
        }
        const char *nl = memchr(text + i, '\n', len - i);
        i = nl ? (size_t)(nl - text) + 1 : len;
    }
    return n;
}

static int is_reserved(const char *const *reserved, const char *rel)
{
    for (; reserved && *reserved; reserved++)
        if (!strcmp(*reserved, rel))
            return 1;
    return 0;
}

/* The helpers TEXT (the file at FROM, "" for the lab file) includes, and theirs. */
static int walk(int dirfd, const char *shown_dir, const char *from, const char *text, size_t len,
                const char *const *reserved, found_set *found, const helper_calls *cb, char *err,
                size_t errlen, int depth)
{
    char names[64][HELPER_NAME_MAX];
    const int n = include_names(text, len, names, 64);
    for (int i = 0; i < n; i++) {
        char rel[HELPER_NAME_MAX];
        const int joined = join(from, names[i], rel, sizeof rel);
        if (joined == 2) {
            snprintf(err, errlen, "%s/%s includes \"%s\", which leaves your lab's folder: an "
                     "#include \"...\" of your own may name a file of that folder or of a folder "
                     "below it ('..' only where the path stays inside); put the file there and "
                     "include it from there", shown_dir,
                     from[0] ? from : cb->lab_file ? cb->lab_file : "your lab file", names[i]);
            return -1;
        }
        if (joined) {
            /* An absolute path: never read from the student's tree, the compiler reports it. A
             * name with a character outside the rule is refused when such a file is there (it
             * would compile from their folder), else left alone. */
            const char *why = NULL;
            const int fd = strstr(names[i], "..") || names[i][0] == '/'
                               ? -1
                               : open_below(dirfd, names[i], &why);
            if (fd >= 0)
                close(fd);
            if (fd == -1)
                continue;
            snprintf(err, errlen, "%s/%s: its name has a character outside the rule: %s",
                     shown_dir, names[i], rule);
            return -1;
        }
        if (seen(found, rel) || is_reserved(reserved, rel))
            continue;
        const char *why = NULL;
        const int fd = open_below(dirfd, rel, &why);
        if (fd == -1) { /* not there: the compiler says so, or finds it among the workbook's */
            if (cb->missing && cb->missing(cb->ctx, rel))
                return -1;
            continue;
        }
        if (fd == -2) {
            snprintf(err, errlen, "%s/%s, which %s includes: %s; %s", shown_dir, rel,
                     from[0] ? from : cb->lab_file ? cb->lab_file : "your lab file", why, rule);
            return -1;
        }
        if (found->n == HELPER_MAX_FILES) {
            close(fd);
            snprintf(err, errlen, "%s/%s: your lab file includes more than %d helper files; %s",
                     shown_dir, rel, HELPER_MAX_FILES, rule);
            return -1;
        }
        const size_t room = HELPER_MAX_BYTES - found->bytes;
        char *bytes = malloc(room + 1);
        size_t got = 0;
        ssize_t r;
        while (bytes && got <= room && (r = read(fd, bytes + got, room + 1 - got)) > 0)
            got += (size_t)r;
        close(fd);
        if (!bytes || got > room) {
            free(bytes);
            snprintf(err, errlen, "%s/%s: the helper files your lab file includes hold more than "
                     "%d MiB; %s", shown_dir, rel, HELPER_MAX_BYTES >> 20, rule);
            return -1;
        }
        snprintf(found->rel[found->n++], HELPER_NAME_MAX, "%s", rel);
        found->bytes += got;
        int rc = cb->found(cb->ctx, rel, bytes, got);
        if (rc == 0 && depth < HELPER_MAX_FILES)
            rc = walk(dirfd, shown_dir, rel, bytes, got, reserved, found, cb, err, errlen,
                      depth + 1);
        free(bytes);
        if (rc)
            return rc;
    }
    return 0;
}

int helper_files(int dirfd, const char *shown_dir, const char *text, size_t len,
                 const char *const *reserved, const helper_calls *cb, char *err, size_t errlen)
{
    found_set *found = calloc(1, sizeof *found);
    if (!found)
        return snprintf(err, errlen, "out of memory"), -1;
    err[0] = 0;
    const int rc = walk(dirfd, shown_dir, "", text, len, reserved, found, cb, err, errlen, 0);
    free(found);
    return rc;
}
