/* text.h - text that came from a student, shown as data wherever the grader writes it.
 *
 * A student's process and files can put text into what the grader prints: the message its
 * worker sends with a reply, what it printed (the log tail), the compiler's diagnostics of its
 * file, its folder's name in a batch. Such text may hold escape sequences that recolour,
 * clear or rewrite a terminal, a carriage return or newline that starts a line looking like
 * the grader's own ("Score: 17/17"), or bytes that are not UTF-8. text_visible() and
 * text_put() write it as printable text that stays on the line it was put on:
 *
 *   \n \r \t     newline, carriage return, tab
 *   \xNN         every other C0 control byte, DEL, and each byte that is not part of valid
 *                UTF-8 (lowercase hex, as in \x1b)
 *   \uNNNN       the characters that act instead of showing: C1 controls (U+0080-U+009F, NEL
 *                and CSI among them), the line and paragraph separators (U+2028, U+2029), and
 *                the bidirectional controls that reorder a line as displayed (U+061C, U+200E,
 *                U+200F, U+202A-U+202E, U+2066-U+2069), and the noncharacters U+FFFE and
 *                U+FFFF, which no XML document may hold (a JUnit report, an HTML or SVG page);
 *                and those that show as nothing or as a space that is not U+0020, which would
 *                make two names look alike (zero-width spaces and joiners, U+FEFF, variation
 *                selectors, no-break and other spaces: text_is_control() lists them); and the
 *                confusables, letters drawn like Latin ones in a word where they pass for
 *                Latin ("Ivаn" with a Cyrillic a), and Latin in another form (text_scan)
 *   \UNNNNN      the same above U+FFFF (tag characters, musical format controls)
 *
 * Everything else (printable ASCII, valid UTF-8) passes unchanged, and a backslash stays one
 * backslash: the escapes are for reading, not for decoding back (the exact bytes stay in the
 * records and logs). So the output contains only characters that pass unchanged, and
 * rendering text twice gives what rendering it once gave.
 *
 * The format-specific writers build on these: the JSON writer (common/json.c) escapes the same
 * characters as \uNNNN and each invalid byte as U+FFFD; the gradebook's CSV cells and the
 * batch's HTML, XML and Markdown (grader/report/exports.c) start from text_visible(). */
#ifndef COMMON_TEXT_H
#define COMMON_TEXT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of text_visible() and text_put(). */
#define TEXT_KEEP_NEWLINES 1 /* \n passes through: text of several lines (a whole report),
                                whose every line the caller knows to be data */

/* Length (1-4) of the valid UTF-8 sequence at s, which has n bytes left, and its code point
 * in *cp (may be NULL); 0 if the bytes there are not valid UTF-8 (a stray continuation byte,
 * a cut sequence, an overlong form, a surrogate, above U+10FFFF). */
int utf8_seq(const unsigned char *s, size_t n, unsigned *cp);

/* 1 if code point cp is a control that acts instead of showing (C0, DEL, C1, a line or
 * paragraph separator, a bidirectional control, U+FFFE or U+FFFF), a character shown as nothing
 * (zero-width spaces and joiners, the word joiner, soft hyphen, variation selectors, tags,
 * U+FEFF) or a space that is not U+0020 (no-break, en, em, thin, ideographic ...): what would
 * make two different names look alike. */
int text_is_control(unsigned cp);

/* Where a look-alike letter is escaped: one walk along a text, word by word. Each character
 * in turn (cp, its UTF-8 length len, at s with n bytes left of the text): 1 if it is shown
 * escaped, a control of text_is_control() or a confusable. Confusables are the letters drawn
 * like Latin ones, of Cyrillic, Greek and Armenian, escaped where their word also holds
 * Latin letters or another such script, or holds no other letter of their script (a word
 * that reads as Latin); and Latin in another form, always (fullwidth forms, mathematical
 * letters, letterlike symbols, modifier letters, marks that pass for ASCII punctuation).
 * Start with {0, 0}. text_visible(), text_put() and the JSON writer walk with it. */
typedef struct text_scan {
    unsigned mask;    /* the scripts whose look-alikes the current word shows escaped */
    size_t word_left; /* bytes of the current word not yet walked */
} text_scan;
int text_scan_escapes(text_scan *st, const unsigned char *s, size_t n, unsigned cp, int len);

/* s (NUL-terminated) rendered visible into dst, which has cap bytes: always NUL-terminated,
 * never cut inside an escape or a character. Returns 1 if it all fit; 0 if it was cut, and
 * then it ends with "..." (when cap allows). */
int text_visible(char *dst, size_t cap, const char *s, int flags);

/* The same as a new string (malloc'd; never NULL). */
char *text_visible_dup(const char *s, int flags);

/* Write the n bytes at s (NUL bytes included), or the string s, rendered visible to f. */
void text_put_n(FILE *f, const char *s, size_t n, int flags);
void text_put(FILE *f, const char *s, int flags);

/* s as valid UTF-8: each byte of an invalid sequence becomes U+FFFD (malloc'd; never NULL);
 * *changed (if not NULL) says whether anything was replaced. For formats that must be UTF-8
 * but show every character (JSON Lines' names, beside their exact bytes in hex). */
char *utf8_clean(const char *s, int *changed);

/* What open file fd holds from its position, whole, into a buffer of its own (cap + 1 bytes,
 * NUL-terminated) with its length in *len; NULL when it holds more than cap bytes or memory
 * is short. Reads only: fd stays open. */
char *text_read_fd(int fd, size_t cap, size_t *len);

/* One line of a log that a student's code wrote into (what it printed, a sanitizer's report
 * after it), read whole whatever its length: its first cap-1 bytes into buf, NUL-terminated
 * (with its newline where that fits), the rest of the line read past. 0 at the log's end, 1 for
 * a line read whole, 2 for a longer line cut to fit. Every reader of such a log counts its lines
 * this way, so that the line where one reader finds a report is the line another shows up to:
 * a line longer than a buffer is one line, never several. */
int text_log_line(FILE *f, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
