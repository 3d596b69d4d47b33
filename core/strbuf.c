/* strbuf.c: see strbuf.h. */
#include "strbuf.h"

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
