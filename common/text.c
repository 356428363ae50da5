/* text.c - student text rendered visible, and UTF-8 checked. See text.h. */
#include "text.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- Confusables: letters that pass for Latin ones ---------------------------------------- */

/* Latin letters in another form, always shown escaped: fullwidth ASCII, the mathematical
 * alphanumerics, letterlike symbols (the Kelvin sign, the Angstrom sign ...), modifier and
 * small-capital letters, and the marks that pass for ASCII punctuation (click letters as | and
 * !, the one-dot leader as '.', the fraction and division slashes as '/', the ratio as ':'). */
static int always_confusable(unsigned cp)
{
    return (cp >= 0xFF01 && cp <= 0xFF5E) || (cp >= 0x1D400 && cp <= 0x1D7FF) ||
           (cp >= 0x2100 && cp <= 0x214F) || (cp >= 0x02B0 && cp <= 0x02FF) ||
           (cp >= 0x1D00 && cp <= 0x1D7F) || (cp >= 0x01C0 && cp <= 0x01C3) || cp == 0x2024 ||
           cp == 0x2044 || cp == 0x2215 || cp == 0x2236 || (cp >= 0xFE50 && cp <= 0xFE6B);
}

enum { SCRIPT_CYRILLIC = 1, SCRIPT_GREEK = 2, SCRIPT_ARMENIAN = 4 };

/* The script of cp among those with letters drawn like Latin ones (0: none of them), and in
 * *lookalike whether cp is one of those letters (Cyrillic a e o p c y x, Greek omicron, nu,
 * rho, Armenian oh, vo, seh ...: the shapes Unicode's confusables list maps to Latin). */
static unsigned lookalike_script(unsigned cp, int *lookalike)
{
    static const unsigned short cyrillic[] = {
        0x0405, 0x0406, 0x0408, 0x0410, 0x0412, 0x0415, 0x041A, 0x041C, 0x041D, 0x041E, 0x0420,
        0x0421, 0x0422, 0x0425, 0x0430, 0x0435, 0x043E, 0x0440, 0x0441, 0x0443, 0x0445, 0x0455,
        0x0456, 0x0458, 0x04AE, 0x04AF, 0x04BA, 0x04BB, 0x04CF, 0x04C0, 0x0501, 0x051A, 0x051B,
        0x051C, 0x051D};
    static const unsigned short greek[] = {0x0391, 0x0392, 0x0395, 0x0396, 0x0397, 0x0399,
                                           0x039A, 0x039C, 0x039D, 0x039F, 0x03A1, 0x03A4,
                                           0x03A5, 0x03A7, 0x03B1, 0x03B9, 0x03BA, 0x03BD,
                                           0x03BF, 0x03C1, 0x03C5, 0x03F2, 0x03F3};
    static const unsigned short armenian[] = {0x0561, 0x0563, 0x0570, 0x0578, 0x057D, 0x0585};
    const unsigned short *set = NULL;
    size_t n = 0;
    unsigned script = 0;
    if (cp >= 0x0400 && cp <= 0x052F)
        set = cyrillic, n = sizeof cyrillic / sizeof *cyrillic, script = SCRIPT_CYRILLIC;
    else if (cp >= 0x0370 && cp <= 0x03FF)
        set = greek, n = sizeof greek / sizeof *greek, script = SCRIPT_GREEK;
    else if (cp >= 0x0530 && cp <= 0x058F)
        set = armenian, n = sizeof armenian / sizeof *armenian, script = SCRIPT_ARMENIAN;
    *lookalike = 0;
    for (size_t i = 0; i < n; i++)
        if (set[i] == cp)
            *lookalike = 1;
    return script;
}

/* A character of a word: not a control, a space or punctuation of ASCII or the general
 * punctuation block (a name is split into words at those: "Ann Lee", "ann_lee-2.cu"). */
static int word_char(unsigned cp)
{
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
    return !text_is_control(cp) && !(cp >= 0x2000 && cp <= 0x206F) && !(cp >= 0x3000 && cp <= 0x303F);
}

/* Which scripts' look-alikes the word at [s, s+n) shows escaped, and the word's length in bytes
 * (*len; 0 when s does not start a word). A look-alike is escaped where its word mixes it with
 * Latin letters or with another such script ("Ivаn" with a Cyrillic a), or where every letter
 * of its script in the word is a look-alike ("Асе", all Cyrillic, reads as "Ace"): a word
 * wholly in one script with letters of its own ("Иван") is shown as written. */
static unsigned word_mask(const unsigned char *s, size_t n, size_t *len)
{
    unsigned seen = 0, own = 0, look = 0;
    int latin = 0;
    size_t i = 0;
    while (i < n) {
        unsigned cp = 0;
        const int l = utf8_seq(s + i, n - i, &cp);
        if (l == 0 || !word_char(cp))
            break;
        int is_look;
        const unsigned script = lookalike_script(cp, &is_look);
        if (cp < 0x80 ? ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z')
                      : (cp >= 0x00C0 && cp <= 0x024F && cp != 0xD7 && cp != 0xF7))
            latin = 1;
        seen |= script;
        if (script && is_look)
            look |= script;
        else if (script)
            own |= script;
        i += (size_t)l;
    }
    *len = i;
    const int mixed = latin || (seen & (seen - 1)) != 0; /* Latin, or two such scripts */
    return mixed ? look : look & ~own;
}

int text_scan_escapes(text_scan *st, const unsigned char *s, size_t n, unsigned cp, int len)
{
    if (st->word_left == 0 && word_char(cp))
        st->mask = word_mask(s, n, &st->word_left);
    int is_look;
    const unsigned script = lookalike_script(cp, &is_look);
    const int escape = text_is_control(cp) || always_confusable(cp) ||
                       (is_look && (st->mask & script) != 0);
    st->word_left = st->word_left > (size_t)len ? st->word_left - (size_t)len : 0;
    return escape;
}

/* The next character of [s, s+n) as it is shown: its bytes or its escape into unit (at most
 * 7 bytes, NUL-terminated). Returns how many input bytes it took (at least 1). */
static size_t next_unit(text_scan *st, const unsigned char *s, size_t n, int flags, char *unit)
{
    static const char hex[] = "0123456789abcdef";
    unsigned cp = 0;
    const int len = utf8_seq(s, n, &cp);
    if (len == 0) { /* not UTF-8: this one byte, in hex */
        snprintf(unit, 8, "\\x%c%c", hex[s[0] >> 4], hex[s[0] & 15]);
        st->word_left = 0;
        return 1;
    }
    if (!text_scan_escapes(st, s, n, cp, len) || (cp == '\n' && (flags & TEXT_KEEP_NEWLINES))) {
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
    text_scan st = {0, 0};
    while (left > 0) {
        char unit[8];
        const size_t took = next_unit(&st, p, left, flags, unit);
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
    text_scan st = {0, 0};
    while (n > 0) {
        char unit[8];
        const size_t took = next_unit(&st, p, n, flags, unit);
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

char *text_read_fd(int fd, size_t cap, size_t *len)
{
    char *buf = malloc(cap + 1);
    size_t got = 0;
    ssize_t r;
    while (buf && got <= cap && ((r = read(fd, buf + got, cap + 1 - got)) > 0 ||
                                 (r < 0 && errno == EINTR)))
        got += r > 0 ? (size_t)r : 0;
    if (buf && got > cap) /* more than cap (or it grew while read) */
        free(buf), buf = NULL;
    if (buf)
        buf[got] = 0;
    *len = got;
    return buf;
}

/* (text.h) Byte by byte: fgets's count cannot tell a line cut at cap from one that held a NUL. */
int text_log_line(FILE *f, char *buf, size_t cap)
{
    if (cap < 2)
        return 0;
    size_t n = 0;
    int c = EOF, cut = 0;
    while ((c = getc(f)) != EOF) {
        if (n + 1 < cap)
            buf[n++] = (char)c;
        else if (c != '\n')
            cut = 1;
        if (c == '\n')
            break;
    }
    buf[n] = 0;
    if (!n && c == EOF)
        return 0;
    return cut ? 2 : 1;
}
