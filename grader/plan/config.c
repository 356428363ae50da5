/* config.c - course config file and GRADER_SET parsing. See config.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lab.h"
#include "lab_select.h"

/* Every key, what it may be set to, and how to say so. Points are whole numbers with a cap
 * that keeps any total far from overflow; a threshold is a ratio of times; a timeout is
 * seconds, and 0 would kill every check at once (and blame the student for it). */
static const struct key_rule {
    const char *key;     /* as written in lab.key */
    double lo, hi;       /* allowed range */
    int lo_open;         /* 1: lo itself is not allowed */
    int whole;           /* 1: must be a whole number */
    const char *allowed; /* the range in words, for the error */
} key_rules[] = {
    {"threshold", 0, CONFIG_MAX_THRESHOLD, 1, 0, "a ratio above 0 and at most 100"},
    {"speed_points", 0, CONFIG_MAX_POINTS, 0, 1, "a whole number of points from 0 to 1000"},
    {"correct_points", 0, CONFIG_MAX_POINTS, 0, 1, "a whole number of points from 0 to 1000"},
    {"timeout", 0, CONFIG_MAX_TIMEOUT, 1, 0, "seconds, above 0 and at most 86400"},
    {"partial_threshold", 0, CONFIG_MAX_THRESHOLD, 0, 0, "a ratio from 0 (no partial credit) to 100"},
    {"partial_points", 0, CONFIG_MAX_POINTS, 0, 1, "a whole number of points from 0 to 1000"},
};

/* 1 if lab is "*" or the name of a lab compiled into this program. A lab's number or folder
 * (lab_select.h) is recognised, and answered with the name to write instead: config keys are
 * names, so that one lab is never set under two spellings. */
static int known_lab(const char *lab, char *hint, int hintlen)
{
    hint[0] = 0;
    if (!strcmp(lab, "*"))
        return 1;
    const lab_info *named = find_lab(lab);
    if (named && !strcmp(lab, named->name))
        return 1;
    if (named)
        snprintf(hint, hintlen, " (lab %s is `%s`: write %s.key)", named->number, named->name,
                 named->name);
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

/* Parse "lab.key = value" (already without comment) into c; 0 or -1 with err. */
static int parse_assignment(config *c, char *text, const char *source, char *err, int errlen)
{
    char *eq = strchr(text, '=');
    if (!eq)
        return snprintf(err, errlen, "%s: expected `lab.key = value`, got `%s`", source, text), -1;
    *eq = 0;
    char *lhs = trim(text), *rhs = trim(eq + 1);
    char *dot = strrchr(lhs, '.');
    if (!dot || dot == lhs || !dot[1])
        return snprintf(err, errlen, "%s: `%s` is not `lab.key` (for example transpose.threshold)",
                        source, lhs), -1;
    *dot = 0;
    const char *key = dot + 1;
    const struct key_rule *rule = NULL;
    for (size_t i = 0; i < sizeof key_rules / sizeof key_rules[0]; i++)
        if (strcmp(key, key_rules[i].key) == 0)
            rule = &key_rules[i];
    if (!rule)
        return snprintf(err, errlen,
                        "%s: unknown key `%s` (known: threshold, speed_points, correct_points, "
                        "timeout, partial_threshold, partial_points)", source, key), -1;
    char *lab = trim(lhs), hint[128];
    if (!known_lab(lab, hint, sizeof hint)) {
        int k = snprintf(err, errlen, "%s: unknown lab `%s`%s; labs: *", source, lab, hint);
        for (int i = 0; i < n_all_labs && k > 0 && k < errlen; i++)
            k += snprintf(err + k, errlen - k, ", %s", all_labs[i]->name);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(rhs, &end);
    if (!*rhs || *end || errno == ERANGE || isnan(v) || isinf(v) ||
        strspn(rhs, "0123456789.eE+-") != strlen(rhs)) /* decimal only: no hex, no words */
        return snprintf(err, errlen, "%s: %s.%s = `%s` is not a non-negative number (%s: %s)",
                        source, lab, key, rhs, key, rule->allowed), -1;
    if (v < rule->lo || (rule->lo_open && v == rule->lo) || v > rule->hi ||
        (rule->whole && v != floor(v)))
        return snprintf(err, errlen, "%s: %s.%s = %s is out of range (%s: %s)", source, lab, key,
                        rhs, key, rule->allowed), -1;
    if (c->n >= CONFIG_MAX_ENTRIES)
        return snprintf(err, errlen, "%s: more than %d settings", source, CONFIG_MAX_ENTRIES), -1;
    config_entry *e = &c->entry[c->n++];
    snprintf(e->lab, sizeof e->lab, "%s", lab);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->value = v;
    snprintf(e->source, sizeof e->source, "%s", source);
    return 0;
}

int config_parse_file(config *c, const char *path, char *err, int errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(err, errlen, "cannot open config file %s: %s", path, strerror(errno)), -1;
    char line[512];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *t = trim(line);
        if (!*t)
            continue;
        char source[160];
        snprintf(source, sizeof source, "%s:%d", path, lineno);
        rc = parse_assignment(c, t, source, err, errlen);
    }
    fclose(f);
    return rc;
}

int config_parse_list(config *c, const char *list, const char *source, char *err, int errlen)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0, n = 0;
    for (char *item = strtok_r(copy, ",;", &save); item && rc == 0;
         item = strtok_r(NULL, ",;", &save)) {
        n++;
        char *t = trim(item);
        if (!*t)
            continue;
        /* Name the item itself: in a long GRADER_SET the position alone is hard to find. */
        char where[224];
        snprintf(where, sizeof where, "%s item %d `%.120s`", source, n, t);
        rc = parse_assignment(c, t, where, err, errlen);
        if (rc == 0) /* results.json records where a setting came from, not its position */
            snprintf(c->entry[c->n - 1].source, sizeof c->entry[c->n - 1].source, "%s", source);
    }
    free(copy);
    return rc;
}

double config_get(const config *c, const char *lab, const char *key, double fallback,
                  const char **source)
{
    const config_entry *named = NULL, *any = NULL;
    for (int i = 0; i < c->n; i++) {
        const config_entry *e = &c->entry[i];
        if (strcmp(e->key, key) != 0)
            continue;
        if (strcmp(e->lab, lab) == 0)
            named = e;
        else if (strcmp(e->lab, "*") == 0)
            any = e;
    }
    const config_entry *e = named ? named : any;
    if (source)
        *source = e ? e->source : "default";
    return e ? e->value : fallback;
}

const char *config_path(void)
{
    const char *path = getenv("GRADER_CONFIG");
    if (!path && access("grader/course.conf", R_OK) == 0)
        path = "grader/course.conf";
    return path;
}

int config_load(config *c, char *err, int errlen)
{
    const char *path = config_path();
    if (path && config_parse_file(c, path, err, errlen))
        return -1;
    const char *set = getenv("GRADER_SET");
    if (set && config_parse_list(c, set, "GRADER_SET", err, errlen))
        return -1;
    return 0;
}

double config_pass_mark(const config *c, const lab_info *lab, const char **source)
{
    static const config none = {.n = 0};
    return config_get(c ? c : &none, lab->name, "threshold", lab->threshold, source);
}
