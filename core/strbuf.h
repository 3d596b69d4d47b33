/* strbuf.h: a growable heap string, the one string builder of the project
 * (records, reports, tuning summaries).
 *
 *   StrBuf b = {0};
 *   strbuf_addf(&b, "%d games", n);
 *   char *s = strbuf_take(&b);   // caller frees; NULL when memory ran out
 *
 * On an allocation failure `failed` is set and every later append is
 * ignored, so callers check once at the end. */
#ifndef TAVRELI_STRBUF_H
#define TAVRELI_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *s;     /* NUL-terminated once anything was added; NULL before */
    size_t len;  /* characters, without the NUL */
    size_t cap;
    bool failed; /* an allocation failed: the contents are incomplete */
} StrBuf;

/* Appends n bytes of s. */
void strbuf_add_n(StrBuf *b, const char *s, size_t n);

/* Appends the string s. */
void strbuf_add(StrBuf *b, const char *s);

/* Appends printf-style text. */
void strbuf_addf(StrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void strbuf_addv(StrBuf *b, const char *fmt, va_list ap);

/* JSON (RFC 8259), for the pages of `tavreli serve`: s as a quoted string
 * (NULL as null), every control character, quote and backslash escaped,
 * and "<" as \u003c so that the text can stand inside an HTML <script>;
 * bytes that are not valid UTF-8 become U+FFFD. */
void strbuf_add_json_string(StrBuf *b, const char *s);

/* A JSON number: x as a whole number when it is one, else with `digits`
 * significant digits (printf's %.*g); null when x is not finite (JSON has
 * no NaN or inf). */
void strbuf_add_json_number(StrBuf *b, double x, int digits);

/* The text so far ("" when nothing was added); valid until the next append. */
const char *strbuf_str(const StrBuf *b);

/* Gives the string to the caller (who frees it) and empties b: "" when
 * nothing was added, NULL when an allocation failed. */
char *strbuf_take(StrBuf *b);

/* Frees the contents and empties b. */
void strbuf_free(StrBuf *b);

/* A heap copy of printf-style text (NULL when out of memory). */
char *tv_strdup_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
