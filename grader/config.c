/* config.c - course config file and GRADER_SET parsing. See config.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_keys[] = {"threshold", "speed_points", "correct_points", "timeout"};

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
    int known = 0;
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        known |= strcmp(key, known_keys[i]) == 0;
    if (!known)
        return snprintf(err, errlen,
                        "%s: unknown key `%s` (known: threshold, speed_points, correct_points, "
                        "timeout)", source, key), -1;
    char *end;
    errno = 0;
    double v = strtod(rhs, &end);
    if (!*rhs || *end || errno || v < 0)
        return snprintf(err, errlen, "%s: `%s` is not a non-negative number", source, rhs), -1;
    if (c->n >= CONFIG_MAX_ENTRIES)
        return snprintf(err, errlen, "%s: more than %d settings", source, CONFIG_MAX_ENTRIES), -1;
    config_entry *e = &c->entry[c->n++];
    snprintf(e->lab, sizeof e->lab, "%s", trim(lhs));
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
    int rc = 0;
    for (char *item = strtok_r(copy, ",;", &save); item && rc == 0;
         item = strtok_r(NULL, ",;", &save)) {
        if (*trim(item))
            rc = parse_assignment(c, item, source, err, errlen);
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
