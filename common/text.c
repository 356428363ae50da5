/* text.c - student text rendered visible, and UTF-8 checked. See text.h. */
#include "text.h"
#include "util.h"

#include <string.h>

int utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
    if (n == 0)
        return 0;
    const unsigned b = s[0];
    int len;
    unsigned c, min;
    if (b < 0x80)
        len = 1, c = b, min = 0;
    else if (b >= 0xC2 && b <= 0xDF)
        len = 2, c = b & 0x1F, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF)
        len = 3, c = b & 0x0F, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4)
        len = 4, c = b & 0x07, min = 0x10000;
    else
        return 0; /* a continuation byte, C0/C1 (overlong by construction), F5-FF */
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0; /* overlong, beyond Unicode, or a surrogate */
    if (cp)
        *cp = c;
    return len;
}

int text_is_control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E ||
           cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0xFFFE || cp == 0xFFFF ||
           /* shown as nothing: two names that differ by one of these look the same */
           cp == 0x00AD || cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 ||
           cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F) || (cp >= 0x200B && cp <= 0x200D) ||
           (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x206A && cp <= 0x206F) || cp == 0x3164 ||
           (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
           (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
           (cp >= 0xE0000 && cp <= 0xE0FFF) ||
           /* shown as a space, yet not the space: "Ann Lee" twice, two students */
           cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F ||
           cp == 0x2800 || cp == 0x3000;
}

/* The next character of [s, s+n) as it is shown: its bytes or its escape into unit (at most
 * 7 bytes, NUL-terminated). Returns how many input bytes it took (at least 1). */
static size_t next_unit(const unsigned char *s, size_t n, int flags, char *unit)
{
    static const char hex[] = "0123456789abcdef";
    unsigned cp = 0;
    const int len = utf8_seq(s, n, &cp);
    if (len == 0) { /* not UTF-8: this one byte, in hex */
        snprintf(unit, 8, "\\x%c%c", hex[s[0] >> 4], hex[s[0] & 15]);
        return 1;
    }
    if (!text_is_control(cp) || (cp == '\n' && (flags & TEXT_KEEP_NEWLINES))) {
        memcpy(unit, s, (size_t)len);
        unit[len] = 0;
    } else if (cp == '\n' || cp == '\r' || cp == '\t') {
        snprintf(unit, 8, "\\%c", cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't');
    } else if (cp < 0x80) {
        snprintf(unit, 8, "\\x%c%c", hex[cp >> 4], hex[cp & 15]);
    } else {
        if (cp < 0x10000)
            snprintf(unit, 8, "\\u%04x", cp);
        else /* (tags, musical format controls: five hex digits) */
            snprintf(unit, 8, "\\U%05x", cp & 0xFFFFFu);
    }
    return (size_t)len;
}

int text_visible(char *dst, size_t cap, const char *s, int flags)
{
    if (cap == 0)
        return 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s), o = 0;
    size_t mark = 0; /* the last unit boundary that leaves room for "..." */
    while (left > 0) {
        char unit[8];
        const size_t took = next_unit(p, left, flags, unit);
        const size_t ulen = strlen(unit);
        if (o + ulen + 1 > cap) {
            if (mark + 4 <= cap) {
                memcpy(dst + mark, "...", 3);
                o = mark + 3;
            }
            dst[o < cap ? o : cap - 1] = 0;
            return 0;
        }
        memcpy(dst + o, unit, ulen);
        o += ulen;
        if (o + 4 <= cap)
            mark = o;
        p += took;
        left -= took;
    }
    dst[o] = 0;
    return 1;
}

char *text_visible_dup(const char *s, int flags)
{
    const size_t cap = 4 * strlen(s) + 1; /* at most 4 bytes shown per byte ("\x1b") */
    char *out = xmalloc(cap);
    text_visible(out, cap, s, flags);
    return out;
}

void text_put_n(FILE *f, const char *s, size_t n, int flags)
{
    const unsigned char *p = (const unsigned char *)s;
    while (n > 0) {
        char unit[8];
        const size_t took = next_unit(p, n, flags, unit);
        fputs(unit, f);
        p += took;
        n -= took;
    }
}

void text_put(FILE *f, const char *s, int flags) { text_put_n(f, s, strlen(s), flags); }

char *utf8_clean(const char *s, int *changed)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    char *out = xmalloc(left * 3 + 1), *o = out;
    if (changed)
        *changed = 0;
    while (left > 0) {
        const int n = utf8_seq(p, left, NULL);
        if (n == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD REPLACEMENT CHARACTER */
            o += 3;
            p++, left--;
            if (changed)
                *changed = 1;
            continue;
        }
        memcpy(o, p, (size_t)n);
        o += n;
        p += n, left -= (size_t)n;
    }
    *o = 0;
    return out;
}
