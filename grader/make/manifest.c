/* manifest.c - TRUSTED, NO GPU: a lab's entry points read from its manifest (manifest.h). */
#include "manifest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The code of a parameter type: what harness_call passes for it. */
static char code_of(const char *type)
{
    if (strchr(type, '*'))
        return 'p';
    static const struct { const char *type; char code; } scalars[] = {
        {"int", 'i'}, {"unsigned", 'i'}, {"long long", 'l'}, {"size_t", 'z'},
        {"float", 'f'}, {"double", 'f'}, {"cudaStream_t", 's'},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (!strcmp(type, scalars[i].type))
            return scalars[i].code;
    return 0; /* another type (lab 05's kernel function): the shim makes that argument */
}

int manifest_params(const lab_entry *e, manifest_param *p, char *err, size_t errlen)
{
    int n = 0;
    const char *s = e->signature ? e->signature : "";
    while (*s) {
        const size_t len = strcspn(s, ",");
        if (n == MANIFEST_MAX_PARAMS || len >= sizeof p[n].type)
            return snprintf(err, errlen, "its signature is too long"), -1;
        char text[160];
        snprintf(text, sizeof text, "%.*s", (int)len, s);
        char *b = text, *end = text + strlen(text);
        while (isspace((unsigned char)*b))
            b++;
        while (end > b && isspace((unsigned char)end[-1]))
            *--end = 0;
        char *name = end;
        while (name > b && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        char *type_end = name;
        while (type_end > b && isspace((unsigned char)type_end[-1]))
            type_end--;
        if (name == end || type_end == b || isdigit((unsigned char)*name))
            return snprintf(err, errlen, "parameter %d (`%s`) needs a type and a name, as in the "
                            "contract header", n + 1, b), -1;
        snprintf(p[n].name, sizeof p[n].name, "%s", name);
        *type_end = 0;
        snprintf(p[n].type, sizeof p[n].type, "%s", b);
        p[n].code = code_of(p[n].type);
        n++;
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}

int manifest_check_entry(const lab_entry *e, char *err, size_t errlen)
{
    if (!e->symbol || !e->symbol[0] || !e->wire)
        return snprintf(err, errlen, "an entry point needs a symbol, a signature and a wire "
                        "format"), -1;
    manifest_param p[MANIFEST_MAX_PARAMS];
    const int n = manifest_params(e, p, err, errlen);
    if (n < 0)
        return -1;
    char want[MANIFEST_MAX_PARAMS + 1] = "";
    int made = 0;
    for (int i = 0; i < n; i++) {
        if (p[i].code == 's' && i != n - 1)
            return snprintf(err, errlen, "the stream must be the last parameter"), -1;
        if (p[i].code && p[i].code != 's')
            strncat(want, &p[i].code, 1);
        made |= !p[i].code;
    }
    const size_t wl = strlen(want);
    if (strspn(e->wire, "pilzf") != strlen(e->wire) || strncmp(e->wire, want, wl) ||
        (!made && strlen(e->wire) != wl))
        return snprintf(err, errlen, "its wire format \"%s\" does not match its signature "
                        "(%s), which passes \"%s\"%s", e->wire, e->signature, want,
                        made ? " and then what the shim needs for the parameters it makes" : ""),
               -1;
    return 0;
}

/* One `key=LENGTH:bytes` line of manifest_text (NULL: an absent field, `key=-`). */
static size_t text_field(char *buf, size_t len, size_t at, const char *key, const char *value)
{
    char head[96];
    const int n = value ? snprintf(head, sizeof head, "%s=%zu:", key, strlen(value))
                        : snprintf(head, sizeof head, "%s=-", key);
    const char *parts[] = {head, value ? value : "", "\n"};
    for (int i = 0; i < 3; i++) {
        const size_t pl = i == 0 ? (size_t)n : strlen(parts[i]);
        for (size_t k = 0; k < pl; k++, at++)
            if (at + 1 < len)
                buf[at] = parts[i][k];
    }
    if (len > 0)
        buf[at + 1 < len ? at : len - 1] = 0;
    return at;
}

size_t manifest_text(const lab_info *lab, char *buf, size_t len)
{
    char v[128];
    size_t at = 0;
    if (len > 0)
        buf[0] = 0;
    at = text_field(buf, len, at, "number", lab->number);
    at = text_field(buf, len, at, "name", lab->name);
    at = text_field(buf, len, at, "title", lab->title);
    for (int i = 0; i < lab->n_entries; i++) {
        at = text_field(buf, len, at, "entry.symbol", lab->entries[i].symbol);
        at = text_field(buf, len, at, "entry.signature", lab->entries[i].signature);
        at = text_field(buf, len, at, "entry.wire", lab->entries[i].wire);
    }
    at = text_field(buf, len, at, "forbid_libraries", lab->forbid_libraries);
    at = text_field(buf, len, at, "forbid_about", lab->forbid_about);
    at = text_field(buf, len, at, "forbid_ptx", lab->forbid_ptx);
    at = text_field(buf, len, at, "forbid_sass", lab->forbid_sass);
    snprintf(v, sizeof v, "%.17g", lab->threshold);
    at = text_field(buf, len, at, "threshold", v);
    at = text_field(buf, len, at, "hint_correct", lab->hint_correct);
    at = text_field(buf, len, at, "hint_speed", lab->hint_speed);
    snprintf(v, sizeof v, "%d", lab->timeout_s);
    at = text_field(buf, len, at, "timeout_s", v);
    snprintf(v, sizeof v, "%.17g", lab->slowdown_noise);
    at = text_field(buf, len, at, "slowdown_noise", v);
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *c = &lab->checks[i];
        at = text_field(buf, len, at, "check.name", c->name);
        snprintf(v, sizeof v, "%d %d %d %lld %lld %lld %lld %lld %lld", (int)c->kind, c->task,
                 c->points, c->size[0], c->size[1], c->size[2], c->emu_size[0], c->emu_size[1],
                 c->emu_size[2]);
        at = text_field(buf, len, at, "check.kind.task.points.size.emu_size", v);
    }
    return at;
}
