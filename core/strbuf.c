/* strbuf.c: see strbuf.h. */
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for `extra` more characters and the NUL. */
static bool reserve(StrBuf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void strbuf_add_n(StrBuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void strbuf_add(StrBuf *b, const char *s) { strbuf_add_n(b, s, strlen(s)); }

void strbuf_addv(StrBuf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void strbuf_addf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_addv(b, fmt, ap);
    va_end(ap);
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when it is not
 * one (a stray continuation byte, an overlong form, a surrogate, past
 * U+10FFFF, cut short). */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n <= 1)
        return n;
    unsigned cp = c & (0x7Fu >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void strbuf_add_json_string(StrBuf *b, const char *s)
{
    if (!s) {
        strbuf_add(b, "null");
        return;
    }
    strbuf_add_n(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char c = *p;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r" : c == '<' ? "\\u003c" : NULL;
        if (esc) {
            strbuf_add(b, esc);
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            strbuf_addf(b, "\\u%04x", c);
            p++;
        } else {
            int n = utf8_len(p);
            if (n == 0) {
                strbuf_add(b, "\\ufffd");
                p++;
            } else {
                strbuf_add_n(b, (const char *)p, (size_t)n);
                p += n;
            }
        }
    }
    strbuf_add_n(b, "\"", 1);
}

void strbuf_add_json_number(StrBuf *b, double x, int digits)
{
    if (!isfinite(x))
        strbuf_add(b, "null");
    else if (x == (double)(long long)x && fabs(x) < 1e15)
        strbuf_addf(b, "%lld", (long long)x);
    else
        strbuf_addf(b, "%.*g", digits, x);
}

const char *strbuf_str(const StrBuf *b) { return b->s ? b->s : ""; }

char *strbuf_take(StrBuf *b)
{
    char *s = b->failed ? NULL : b->s ? b->s : calloc(1, 1);
    if (b->failed)
        free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->failed = false;
    return s;
}

void strbuf_free(StrBuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

char *tv_strdup_printf(const char *fmt, ...)
{
    StrBuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    strbuf_addv(&b, fmt, ap);
    va_end(ap);
    return strbuf_take(&b);
}
