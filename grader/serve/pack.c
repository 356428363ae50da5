/* pack.c - TRUSTED, on the student's machine: make submit's packer. The lab's file of STUDENT's
 * tree and the helper files it includes, by the rule grading holds them to
 * (grader/sandbox/helper_files.h: regular files in the lab's folder or below it, bounded),
 * written to stdout as the tar the server reads (upload.c). Nothing else of the tree is sent.
 *
 *   serve-pack STUDENT LAB > upload.tar       (exit 2 with one line when there is nothing to send) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lab.h"
#include "../plan/lab_select.h"
#include "../sandbox/helper_files.h"
#include "upload.h"

typedef struct pack { up_file files[UP_MAX_FILES]; int n; const char *folder; } pack;

static int add(void *ctx, const char *rel, const char *bytes, size_t len)
{
    pack *p = ctx;
    if (p->n == UP_MAX_FILES)
        return -1;
    up_file *f = &p->files[p->n++];
    snprintf(f->name, sizeof f->name, "%s/%s", p->folder, rel);
    f->bytes = malloc(len + 1);
    memcpy((void *)f->bytes, bytes, len);
    f->size = len;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: serve-pack STUDENT LAB\n");
        return 2;
    }
    const lab_info *lab = find_lab(argv[2]);
    if (!lab) {
        fprintf(stderr, "make submit: LAB=%s is no lab of the workbook: give one lab's number or name (01 to 09, coalescing ...)\n", argv[2]);
        return 2;
    }
    char folder[64], rel[128], file[4200], dir[4200];
    lab_folder(lab, folder, sizeof folder);
    lab_student_rel(lab, rel, sizeof rel);
    snprintf(dir, sizeof dir, "%s/%s", argv[1], folder);
    snprintf(file, sizeof file, "%s/%s", argv[1], rel);
    const int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > UP_MAX_FILE) {
        fprintf(stderr, "make submit: %s %s: the lab's file must be a regular file (no link) of at most 1 MiB; check STUDENT= and LAB=\n",
                file, fd < 0 ? strerror(errno) : "is not one");
        return 2;
    }
    char *text = malloc((size_t)sb.st_size + 1);
    const ssize_t n = read(fd, text, (size_t)sb.st_size);
    close(fd);
    if (n != sb.st_size) {
        fprintf(stderr, "make submit: %s could not be read whole\n", file);
        return 2;
    }
    pack p = {.n = 0, .folder = folder};
    add(&p, strrchr(rel, '/') + 1, text, (size_t)n);
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const char *reserved[] = {strrchr(rel, '/') + 1, NULL};
    const helper_calls calls = {add, NULL, &p, strrchr(rel, '/') + 1};
    char err[1024];
    if (dfd < 0 || helper_files(dfd, dir, text, (size_t)n, reserved, &calls, err, sizeof err)) {
        fprintf(stderr, "make submit: %s\n", dfd < 0 ? "the lab's folder cannot be opened" : err);
        return 2;
    }
    close(dfd);
    size_t len;
    unsigned char *tar = tar_pack(p.files, p.n, &len);
    return tar && fwrite(tar, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 2;
}
