/* alone_cache.c - TRUSTED (the harness): the reference alone, kept by a batch per GPU. See
 * alone_cache.h. An entry is a small text file in the batch's folder, named by a hash of its
 * key and holding the key itself, the moment it was measured (wall_seconds: CLOCK_MONOTONIC, one
 * clock for every process of the machine) and the rounds:
 *     grader-alone 1
 *     key <key>
 *     at <seconds>
 *     n <rounds>
 *     <ref_ms> <null_ms>        (n lines)
 * Written to a file of its own and renamed into place, so a reader sees an entry whole. */
#include "alone_cache.h"
#include "../../common/stats.h"
#include "../../common/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int alone_cache_config(const char **dir, double *max_age_s)
{
    const char *d = getenv("GRADER_ALONE_CACHE");
    if (!d || !*d)
        return -1;
    double age = ALONE_CACHE_MAX_AGE_S;
    const char *a = getenv("GRADER_ALONE_CACHE_S");
    if (a && *a) {
        char *end;
        age = strtod(a, &end);
        if (*end || !(age > 0) || !isfinite(age))
            return -1;
    }
    *dir = d;
    *max_age_s = age;
    return 0;
}

int alone_cache_key(char *out, size_t len, const char *lab, int check, const char *size,
                    int calls, const char *gpu, const char *reference)
{
    const int n = snprintf(out, len, "lab=%s check=%d size=%s calls=%d gpu=%s reference=%s", lab,
                           check, size, calls, gpu, reference);
    if (n < 0 || (size_t)n >= len || strchr(out, '\n'))
        return out[0] = 0, -1;
    return 0;
}

/* The entry's file: DIR/<FNV-1a of the key>.alone */
static int entry_path(char *path, size_t len, const char *dir, const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    const int n = snprintf(path, len, "%s/%016llx.alone", dir, (unsigned long long)h);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int alone_cache_get(const char *dir, const char *key, double max_age_s, alone_series *s)
{
    char path[4096], line[ALONE_CACHE_KEY_MAX + 16];
    if (entry_path(path, sizeof path, dir, key) != 0)
        return -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int ok = 0;
    double at = 0;
    memset(s, 0, sizeof *s);
    if (fgets(line, sizeof line, f) && !strcmp(line, "grader-alone 1\n") &&
        fgets(line, sizeof line, f) && !strncmp(line, "key ", 4) &&
        strlen(line) == strlen(key) + 5 && !strncmp(line + 4, key, strlen(key)) &&
        line[4 + strlen(key)] == '\n' && fscanf(f, "at %lf n %d", &at, &s->n) == 2 &&
        s->n >= 1 && s->n <= ALONE_CACHE_MAX_ROUNDS) {
        ok = 1;
        for (int i = 0; i < s->n && ok; i++)
            ok = fscanf(f, "%lf %lf", &s->ref_ms[i], &s->null_ms[i]) == 2 &&
                 isfinite(s->ref_ms[i]) && isfinite(s->null_ms[i]) && s->ref_ms[i] >= 0 &&
                 s->null_ms[i] >= 0;
    }
    fclose(f);
    s->age_s = wall_seconds() - at;
    /* (an entry from the future is no entry: the clock is one clock, so it was not written
     * by this machine's harness) */
    if (!ok || !(s->age_s >= 0) || !(s->age_s < max_age_s)) {
        memset(s, 0, sizeof *s);
        return -1;
    }
    return 0;
}

int alone_cache_put(const char *dir, const char *key, const alone_series *s)
{
    char path[4096], tmp[4200];
    if (s->n < 1 || s->n > ALONE_CACHE_MAX_ROUNDS || strchr(key, '\n') ||
        strlen(key) >= ALONE_CACHE_KEY_MAX || entry_path(path, sizeof path, dir, key) != 0)
        return -1;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    fprintf(f, "grader-alone 1\nkey %s\nat %.6f\nn %d\n", key, wall_seconds(), s->n);
    for (int i = 0; i < s->n; i++)
        fprintf(f, "%.9g %.9g\n", s->ref_ms[i], s->null_ms[i]);
    const int written = !ferror(f);
    if (fclose(f) != 0 || !written || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int alone_cache_serves(const double *ref_ms, const double *null_ms, int n, const alone_series *a,
                       double noise)
{
    if (n < 1 || a->n < 1 || !(noise >= 0))
        return 0;
    const double slowdown = stats_slowdown(ref_ms, null_ms, (size_t)n, a->ref_ms, a->null_ms,
                                           (size_t)a->n);
    return slowdown <= noise; /* (NaN: not served) */
}
