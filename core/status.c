#include "status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *tv_status_name(TvStatus s)
{
    switch (s) {
    case TV_OK: return "ok";
    case TV_ERR_PARSE: return "parse error";
    case TV_ERR_ILLEGAL: return "illegal";
    case TV_ERR_IO: return "i/o error";
    case TV_ERR_ARG: return "bad argument";
    case TV_ERR_LIMIT: return "limit exceeded";
    }
    return "unknown status";
}

TvStatus tv_fail(TvError *err, TvStatus s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = s;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

void tv_error_clear(TvError *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

bool tv_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

char *tv_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        size_t n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (len < cap - 1)
            break;
        char *bigger = cap < (1u << 24) ? realloc(text, cap * 2) : NULL;
        if (!bigger) {
            free(text);
            text = NULL;
            errno = EFBIG;
            break;
        }
        text = bigger;
        cap *= 2;
    }
    if (text && ferror(f)) {
        free(text);
        text = NULL;
        errno = EIO;
    }
    fclose(f);
    if (text)
        text[len] = 0;
    return text;
}

double tv_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t tv_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Length of the valid UTF-8 sequence at p (2 to 4), or 0.  Overlong forms,
 * surrogates and code points above U+10FFFF are not valid. */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5 || n == 0)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] >= 0x90))
        return 0;
    if (c == 0xC2 && p[1] < 0xA0) /* U+0080..U+009F: the C1 controls */
        return 0;
    return n;
}

char *tv_escape(const char *s, char *buf, size_t n)
{
    size_t len = 0;
    const unsigned char *p = (const unsigned char *)s;
    buf[0] = 0;
    while (*p) {
        char piece[8];
        size_t plen;
        int u = *p >= 0x80 ? utf8_len(p) : 0;
        if (*p >= 0x20 && *p < 0x7f) {
            piece[0] = (char)*p;
            plen = 1;
        } else if (u > 0) {
            memcpy(piece, p, (size_t)u);
            plen = (size_t)u;
        } else {
            snprintf(piece, sizeof piece, "\\x%02X", *p);
            plen = 4;
        }
        if (len + plen + 1 > n)
            break;
        memcpy(buf + len, piece, plen);
        len += plen;
        buf[len] = 0;
        p += u > 0 ? (size_t)u : 1;
    }
    return buf;
}
