/* roster.c - TRUSTED: make roster. Each student of a roster (a CSV with a header line, the
 * student's name in the first column) gets a random token: 192 bits from getrandom, kept in
 * COURSE/serve.db only as its SHA-256, and written once, with the name, to COURSE/tokens.csv
 * (mode 0600) for the instructor to hand out. A student already on the roster keeps theirs; one
 * revoked (REVOKE=name) gets a new one the next time. The instructor's own token (the status
 * page's) is made once, in COURSE/instructor.token (0600).
 *
 *   serve-roster COURSE [ROSTER.csv] [--revoke NAME] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve.h"

static void new_token(char out[52])
{
    unsigned char r[24];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        fprintf(stderr, "make roster: getrandom failed: %s\n", strerror(errno));
        exit(2);
    }
    strcpy(out, "cw-");
    for (int i = 0; i < 24; i++)
        sprintf(out + 3 + 2 * i, "%02x", r[i]);
}

/* The first CSV field of LINE (quotes as RFC 4180 writes them), trimmed. 0, or -1 if unusable. */
static int first_field(char *line, char *name, size_t len)
{
    line[strcspn(line, "\r\n")] = 0;
    size_t k = 0;
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '"') {
        for (p++; *p && k + 1 < len; p++) {
            if (*p == '"' && p[1] == '"')
                name[k++] = '"', p++;
            else if (*p == '"')
                break;
            else
                name[k++] = *p;
        }
    } else
        for (; *p && *p != ',' && k + 1 < len; p++)
            name[k++] = *p;
    while (k && (name[k - 1] == ' ' || name[k - 1] == '\t'))
        k--;
    name[k] = 0;
    for (size_t i = 0; i < k; i++)
        if ((unsigned char)name[i] < 32 || name[i] == 127)
            return -1;
    return k ? 0 : -1;
}

static FILE *open_private(const char *path, int *fresh)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    *fresh = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fchmod(fd, 0600)) {
        fprintf(stderr, "make roster: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return fdopen(fd, "a");
}

static int instructor_token(const char *course)
{
    char path[4200], tok[52];
    snprintf(path, sizeof path, "%s/instructor.token", course);
    if (access(path, F_OK) == 0)
        return 0;
    int fresh;
    FILE *f = open_private(path, &fresh);
    new_token(tok);
    fprintf(f, "%s\n", tok);
    if (fflush(f) || fsync(fileno(f)) || fclose(f))
        return -1;
    printf("The instructor's token (the status page's): %s\n", path);
    return 0;
}

static int revoke_student(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "UPDATE students SET revoked=1 WHERE name=?", -1, &st, NULL);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || sqlite3_changes(db) != 1) {
        fprintf(stderr, "make roster: no student named \"%s\" on the roster: nothing revoked\n", name);
        return 2;
    }
    printf("%s's token is revoked: the server answers it 401 from now on. make roster with %s in the roster gives a new one.\n", name, name);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: serve-roster COURSE ROSTER.csv | serve-roster COURSE --revoke NAME\n");
        return 2;
    }
    umask(077); /* the store and everything beside it: the instructor's alone */
    const char *course = argv[1];
    char err[512] = "";
    if (mkdir(course, 0700) && errno != EEXIST) {
        fprintf(stderr, "make roster: cannot make the course folder %s: %s\n", course, strerror(errno));
        return 2;
    }
    sqlite3 *db = store_open(course, err, sizeof err); /* the store: this program's one connection */
    if (!db)
        return fprintf(stderr, "make roster: %s\n", err), 2;
    if (instructor_token(course))
        return fprintf(stderr, "make roster: cannot write %s/instructor.token: %s\n", course, strerror(errno)), 2;
    if (!strcmp(argv[2], "--revoke"))
        return argc > 3 ? revoke_student(db, argv[3]) : 2;
    FILE *in = fopen(argv[2], "r");
    if (!in) {
        fprintf(stderr, "make roster: cannot read ROSTER=%s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    char path[4200], line[4096], name[256], tok[52], hex[65];
    snprintf(path, sizeof path, "%s/tokens.csv", course);
    int fresh, issued = 0, kept = 0, lineno = 0;
    FILE *out = open_private(path, &fresh);
    if (fresh)
        fprintf(out, "name,token\n");
    store_exec(db, "BEGIN IMMEDIATE");
    while (fgets(line, sizeof line, in)) {
        if (lineno++ == 0)
            continue; /* the header line */
        if (first_field(line, name, sizeof name)) {
            if (line[strspn(line, " \t,")])
                fprintf(stderr, "make roster: line %d of %s has no usable name (empty, or a control character): skipped\n", lineno, argv[2]);
            continue;
        }
        sqlite3_stmt *st;
        sqlite3_prepare_v2(db, "SELECT revoked FROM students WHERE name=?", -1, &st, NULL);
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        const int found = sqlite3_step(st) == SQLITE_ROW, revoked = found && sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        if (found && !revoked) {
            kept++;
            continue;
        }
        new_token(tok);
        token_hash(tok, hex);
        sqlite3_prepare_v2(db, found ? "UPDATE students SET token_hash=?1, revoked=0 WHERE name=?2"
                                     : "INSERT INTO students(token_hash, name) VALUES(?1, ?2)", -1, &st, NULL);
        sqlite3_bind_text(st, 1, hex, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE) {
            fprintf(stderr, "make roster: %s\n", sqlite3_errmsg(db));
            return 2;
        }
        sqlite3_finalize(st);
        const int quote = strpbrk(name, ",\"") != NULL;
        if (quote) {
            fputc('"', out);
            for (const char *p = name; *p; p++)
                fputs(*p == '"' ? "\"\"" : (char[]){*p, 0}, out);
            fprintf(out, "\",%s\n", tok);
        } else
            fprintf(out, "%s,%s\n", name, tok);
        issued++;
    }
    fclose(in);
    if (fflush(out) || fsync(fileno(out)) || fclose(out) || store_exec(db, "COMMIT") != SQLITE_OK) {
        fprintf(stderr, "make roster: could not write %s or the store: no token issued\n", path);
        return 2;
    }
    printf("%d token%s issued into %s (mode 0600: hand each student their line, then keep it safe or delete it); %d student%s kept the token they had.\n",
           issued, issued == 1 ? "" : "s", path, kept, kept == 1 ? "" : "s");
    sqlite3_close(db);
    return 0;
}
