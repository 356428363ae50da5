/* upload.c - TRUSTED, reads untrusted bytes: a submission's tar, read strictly before anything
 * is written (serve.h's bounds, regular files only, names by the rule), then written into a
 * fresh folder without following a link; and the packer's side, the same format written. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upload.h"

#define RULE "an upload holds regular files under %s/ only (no link, device or folder entry), at most %d of them, each at most 1 MiB, named in letters, digits and . _ - / with no \"..\" and no absolute path"

static int refuse(char *err, size_t errlen, const char *folder, const char *what, const char *name)
{
    char shown[64];
    size_t k = 0;
    for (const char *p = name; p && *p && k < sizeof shown - 5; p++) /* visible: no escapes */
        shown[k++] = (*p >= 32 && *p < 127 && *p != '"') ? *p : '?';
    shown[k] = 0;
    char rule[400];
    snprintf(rule, sizeof rule, RULE, folder, UP_MAX_FILES);
    snprintf(err, errlen, "refused: %s%s%s%s; %s", what, name ? " (\"" : "", name ? shown : "",
             name ? "\")" : "", rule);
    return -1;
}

/* A strict octal field: digits, then NULs or spaces. -1 when it is not one. */
static long long octal(const unsigned char *f, int len)
{
    long long v = 0;
    int i = 0, digits = 0;
    while (i < len && f[i] == ' ')
        i++;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v > (1LL << 40))
            return -1;
        v = v * 8 + (f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != 0 && f[i] != ' ')
            return -1;
    return digits ? v : -1;
}

/* NAME's rule below the lab's folder: components of letters, digits and . _ -, none of them
 * empty, "." or "..". */
static int name_ok(const char *name, const char *folder)
{
    const size_t fl = strlen(folder);
    if (strncmp(name, folder, fl) || name[fl] != '/')
        return 0;
    const char *p = name + fl + 1;
    if (!*p)
        return 0;
    for (;;) {
        const char *e = strchr(p, '/');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        for (size_t i = 0; i < len; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", p[i]))
                return 0;
        if (!e)
            return 1;
        p = e + 1;
    }
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* One header's checks (its checksum, kind and name), with its name into NAME. 0 or -1 with ERR. */
static int header(const unsigned char *h, const char *folder, char *name, char *err, size_t errlen)
{
    long long sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    if (octal(h + 148, 8) != sum || memcmp(h + 257, "ustar", 5))
        return refuse(err, errlen, folder, "not a tar archive (a header's checksum or magic is wrong)", NULL);
    char n[101], pre[156];
    memcpy(n, h, 100), n[100] = 0;
    memcpy(pre, h + 345, 155), pre[155] = 0;
    snprintf(name, UP_MAX_NAME + 1, "%s%s%s", pre, *pre ? "/" : "", n);
    if (strlen(pre) + strlen(n) + 1 > UP_MAX_NAME)
        return refuse(err, errlen, folder, "a name is too long", n);
    const char kind = (char)h[156];
    if (kind == '1' || kind == '2')
        return refuse(err, errlen, folder, "a link", name);
    if (kind == '3' || kind == '4' || kind == '6')
        return refuse(err, errlen, folder, "a device or pipe", name);
    if (kind == '5')
        return refuse(err, errlen, folder, "a folder entry", name);
    if (kind != '0' && kind != 0)
        return refuse(err, errlen, folder, "an entry that is not a regular file", name);
    if (name[0] == '/')
        return refuse(err, errlen, folder, "an absolute path", name);
    if (strstr(name, ".."))
        return refuse(err, errlen, folder, "a name with \"..\"", name);
    if (!name_ok(name, folder))
        return refuse(err, errlen, folder, "a name outside the rule", name);
    return 0;
}

int upload_parse(const unsigned char *buf, size_t n, const char *folder, const char *rel,
                 up_file *files, char *err, size_t errlen)
{
    if (n > UP_MAX_BYTES)
        return refuse(err, errlen, folder, "the upload is too large", NULL);
    if (n % 512 || n < 1024)
        return refuse(err, errlen, folder, "not a tar archive (its length is not whole 512-byte blocks)", NULL);
    int count = 0, has_lab = 0;
    size_t at = 0;
    while (at + 512 <= n && !all_zero(buf + at, 512)) {
        if (count == UP_MAX_FILES)
            return refuse(err, errlen, folder, "too many files", NULL);
        up_file *f = &files[count];
        if (header(buf + at, folder, f->name, err, errlen))
            return -1;
        const long long size = octal(buf + at + 124, 12);
        if (size < 0)
            return refuse(err, errlen, folder, "not a tar archive (a size field is not a number)", f->name);
        if (size > UP_MAX_FILE)
            return refuse(err, errlen, folder, "a file over 1 MiB", f->name);
        const size_t padded = ((size_t)size + 511) / 512 * 512;
        if (at + 512 + padded > n)
            return refuse(err, errlen, folder, "the archive ends inside a file", f->name);
        for (int k = 0; k < count; k++)
            if (!strcmp(files[k].name, f->name))
                return refuse(err, errlen, folder, "a name twice", f->name);
        f->bytes = buf + at + 512;
        f->size = (size_t)size;
        has_lab |= !strcmp(f->name, rel);
        at += 512 + padded;
        count++;
    }
    if (!all_zero(buf + at, n - at) || n - at < 1024)
        return refuse(err, errlen, folder, "not a tar archive (it does not end with two empty blocks and nothing after them)", NULL);
    if (!has_lab) {
        snprintf(err, errlen, "refused: the upload holds no %s (the lab's file); make submit LAB=... packs it from your tree", rel);
        return -1;
    }
    return count;
}

/* The folder of PATH's parent under the open folder ROOT, made as needed, never through a
 * link: an fd, or -1. *LEAF points at the last component. */
static int parent_dir(int root, char *path, char **leaf)
{
    int dir = dup(root);
    char *p = path;
    for (char *e; dir >= 0 && (e = strchr(p, '/'));) {
        *e = 0;
        if (mkdirat(dir, p, 0700) && errno != EEXIST) {
            close(dir);
            return -1;
        }
        const int next = openat(dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        *e = '/';
        close(dir);
        dir = next;
        p = e + 1;
    }
    *leaf = p;
    return dir;
}

int upload_write(const char *tree, const up_file *files, int n, char *err, size_t errlen)
{
    if (mkdir(tree, 0700)) {
        snprintf(err, errlen, "cannot make %s: %s", tree, strerror(errno));
        return -1;
    }
    const int root = open(tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root < 0) {
        snprintf(err, errlen, "cannot open %s: %s", tree, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char path[UP_MAX_NAME + 1], *leaf;
        snprintf(path, sizeof path, "%s", files[i].name);
        const int dir = parent_dir(root, path, &leaf);
        const int fd = dir < 0 ? -1 : openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (dir >= 0)
            close(dir);
        ssize_t w = fd < 0 ? -1 : 0;
        for (size_t off = 0; fd >= 0 && off < files[i].size; off += (size_t)w)
            if ((w = write(fd, files[i].bytes + off, files[i].size - off)) <= 0)
                break;
        if (fd < 0 || w < 0 || close(fd)) {
            snprintf(err, errlen, "cannot write %s under %s: %s", files[i].name, tree, strerror(errno));
            close(root);
            return -1;
        }
    }
    close(root);
    return 0;
}

unsigned char *tar_pack(const up_file *files, int n, size_t *len)
{
    size_t total = 1024;
    for (int i = 0; i < n; i++)
        total += 512 + (files[i].size + 511) / 512 * 512;
    unsigned char *t = calloc(1, total);
    if (!t)
        return NULL;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        unsigned char *h = t + at;
        const char *name = files[i].name;
        const size_t nl = strlen(name);
        if (nl > 100) { /* ustar: the folders into prefix, the rest into name */
            const char *cut = name + nl - 100;
            while (*cut && *cut != '/')
                cut++;
            memcpy(h + 345, name, (size_t)(cut - name));
            memcpy(h, cut + 1, strlen(cut + 1));
        } else
            memcpy(h, name, nl);
        snprintf((char *)h + 100, 8, "%07o", 0644);
        snprintf((char *)h + 108, 8, "%07o", 0);
        snprintf((char *)h + 116, 8, "%07o", 0);
        snprintf((char *)h + 124, 12, "%011zo", files[i].size);
        snprintf((char *)h + 136, 12, "%011o", 0);
        h[156] = '0';
        memcpy(h + 257, "ustar", 6);
        memcpy(h + 263, "00", 2);
        memset(h + 148, ' ', 8);
        unsigned sum = 0;
        for (int k = 0; k < 512; k++)
            sum += h[k];
        snprintf((char *)h + 148, 8, "%06o", sum);
        memcpy(h + 512, files[i].bytes, files[i].size);
        at += 512 + (files[i].size + 511) / 512 * 512;
    }
    *len = total;
    return t;
}
