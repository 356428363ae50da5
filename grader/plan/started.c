/* started.c - TRUSTED, NO GPU: a lab not started, known by its skeleton's normalised digest
 * (started.h). The student's file is data here: read with O_NOFOLLOW, bounded, never run. */
#include "started.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_select.h"
#include "../../common/text.h"

size_t started_normalise(const char *src, size_t n, char *out)
{
    size_t w = 0, i = 0;
    while (i < n) {
        const char c = src[i];
        if (c == '/' && i + 1 < n && src[i + 1] == '/') { /* to the end of the line */
            while (i < n && src[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && src[i + 1] == '*') { /* to its close, or the end */
            i += 2;
            while (i < n && !(src[i] == '*' && i + 1 < n && src[i + 1] == '/'))
                i++;
            i = i + 2 < n ? i + 2 : n;
        } else if (c == '"' || c == '\'') { /* a literal, whole: its escapes and all */
            out[w++] = src[i++];
            while (i < n && src[i] != c && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < n)
                    out[w++] = src[i++];
                out[w++] = src[i++];
            }
            if (i < n && src[i] == c)
                out[w++] = src[i++];
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            i++;
        } else {
            out[w++] = src[i++];
        }
    }
    out[w] = 0;
    return w;
}

/* ------------------------------------------------------------------------------------------ */
/* SHA-256 (FIPS 180-4), so that the record is what sha256sum and Python's hashlib write       */

static const uint32_t k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, r) (((x) >> (r)) | ((x) << (32 - (r))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        const uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        const uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
                            k256[i] + w[i];
        const uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void started_sha256_hex(const void *data, size_t n, char hex[65])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        sha256_block(h, p + i);
    unsigned char last[128] = {0};
    const size_t rest = n - i, blocks = rest + 9 > 64 ? 2 : 1;
    memcpy(last, p + i, rest);
    last[rest] = 0x80;
    const uint64_t bits = (uint64_t)n * 8;
    for (int b = 0; b < 8; b++)
        last[blocks * 64 - 1 - b] = (unsigned char)(bits >> (8 * b));
    for (size_t b = 0; b < blocks; b++)
        sha256_block(h, last + 64 * b);
    for (int j = 0; j < 8; j++)
        snprintf(hex + 8 * j, 9, "%08x", h[j]);
}

void started_digest(const char *src, size_t n, char hex[65])
{
    char *norm = malloc(n + 1);
    if (!norm) {
        hex[0] = 0;
        return;
    }
    started_sha256_hex(norm, started_normalise(src, n, norm), hex);
    free(norm);
}

/* ------------------------------------------------------------------------------------------ */
/* The lab's file against the record                                                          */

/* The digest the record gives lab's file ("<64 hex>  NN-name/name.cu" lines), into want; 0, or
 * -1 when it cannot be read or names no such file. */
static int recorded_digest(const lab_info *lab, const char *digests, char want[65])
{
    FILE *f = fopen(digests, "r");
    if (!f)
        return -1;
    char rel[200], line[512];
    lab_student_rel(lab, rel, sizeof rel);
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strlen(line) == 64 + 2 + strlen(rel) && !strncmp(line + 64, "  ", 2) &&
            !strcmp(line + 66, rel) && strspn(line, "0123456789abcdef") == 64) {
            memcpy(want, line, 64);
            want[64] = 0;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* The plain file at path, whole (at most STARTED_FILE_CAP bytes, never through a link), into a
 * buffer of its own with its length in *n; NULL when it cannot be read so. */
static char *read_plain(const char *path, size_t *n)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > STARTED_FILE_CAP)
        return NULL;
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = text_read_fd(fd, STARTED_FILE_CAP, n);
    close(fd);
    return buf;
}

started_state lab_started(const lab_info *lab, const char *path, const char *digests)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? STARTED_MISSING : STARTED_WORK;
    char want[65], have[65] = "";
    if (recorded_digest(lab, digests, want) != 0)
        return STARTED_WORK;
    size_t n;
    char *buf = read_plain(path, &n);
    if (buf)
        started_digest(buf, n, have);
    free(buf);
    return have[0] && !strcmp(have, want) ? STARTED_SKELETON : STARTED_WORK;
}

/* 1 if the normalised text includes NAME.h ("#include\"coalescing.h\"" once normalised) */
static int includes_contract(const char *norm, const char *name)
{
    char want[160];
    snprintf(want, sizeof want, "#include\"%s.h\"", name);
    return strstr(norm, want) != NULL;
}

const lab_info *started_other_lab(const lab_info *lab, const char *path)
{
    size_t n;
    char *buf = read_plain(path, &n), *norm = buf ? malloc(n + 1) : NULL;
    const lab_info *other = NULL;
    if (norm) {
        started_normalise(buf, n, norm);
        for (int k = 0; k < n_all_labs && !includes_contract(norm, lab->name); k++)
            if (all_labs[k] != lab && includes_contract(norm, all_labs[k]->name))
                other = all_labs[k];
    }
    free(buf);
    free(norm);
    return other;
}

const char *started_words(started_state s)
{
    switch (s) {
    case STARTED_MISSING:
        return "not started: the file is missing";
    case STARTED_SKELETON:
        return "not started: the file is the workbook's skeleton, comments and white space aside";
    default:
        return "";
    }
}
