#include "status.h"

#include "grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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
        /* Messages echo what was read (a move, a TFEN, a tag): escaped here,
         * at the one seam every error passes, so that no control byte of an
         * input reaches a terminal. */
        char raw[TV_ERROR_MSG_LEN];
        va_list ap;
        err->status = s;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        tv_escape(raw, err->msg, sizeof err->msg);
    }
    return s;
}

TvStatus tv_fail_at(TvError *err, TvStatus s, const char *file, int line, const char *fmt, ...)
{
    char what[TV_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tv_error_clear(err);
    if (err) {
        snprintf(err->file, sizeof err->file, "%s", file);
        err->line = line;
    }
    return tv_fail(err, s, "%s:%d: %s", file, line, what);
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
    if (*s == '+') /* a sign only for negative numbers: "+1" is a slip, not a style */
        return false;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool tv_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
            *out = !strcasecmp(s, yes[i]);
            return true;
        }
    }
    return false;
}

TvStatus tv_check_regular_file(const char *path, const char *what, TvError *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return tv_fail(err, TV_ERR_IO, "%s: cannot open the %s: %s", path, what, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return tv_fail(err, TV_ERR_IO, "%s: the %s is a directory", path, what);
    if (!S_ISREG(sb.st_mode))
        return tv_fail(err, TV_ERR_IO, "%s: the %s is not a regular file (a FIFO, device or socket)", path, what);
    return TV_OK;
}

TvStatus tv_read_file(const char *path, const char *what, char **out, size_t *out_len, TvError *err)
{
    *out = NULL;
    if (out_len)
        *out_len = 0;
    TvStatus reg = tv_check_regular_file(path, what, err);
    if (reg != TV_OK)
        return reg;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tv_fail(err, TV_ERR_IO, "%s: cannot open the %s: %s", path, what, strerror(errno));
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    TvStatus st = TV_OK;
    while (text) {
        size_t n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (len < cap - 1)
            break;
        if (cap >= ((size_t)1 << 24)) {
            st = tv_fail(err, TV_ERR_IO, "%s: the %s is larger than 16 MiB", path, what);
            break;
        }
        char *bigger = realloc(text, cap * 2);
        if (!bigger) {
            free(text);
            text = NULL;
            break;
        }
        text = bigger;
        cap *= 2;
    }
    if (st == TV_OK && !text)
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
    if (st == TV_OK && ferror(f))
        st = tv_fail(err, TV_ERR_IO, "%s: cannot read the %s: %s", path, what, strerror(errno));
    fclose(f);
    if (st != TV_OK) {
        free(text);
        return st;
    }
    text[len] = 0;
    *out = text;
    if (out_len)
        *out_len = len;
    return TV_OK;
}

int tv_ini_check_text(const char *text, size_t len, char *why, size_t n)
{
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = i < len ? (unsigned char)text[i] : '\n';
        if (c != '\n') {
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                snprintf(why, n, "%s (byte \\x%02X, column %zu): INI files are text", c ? "a control character" : "a NUL byte",
                         c, i - start + 1);
                return line;
            }
            continue;
        }
        const char *s = text + start, *end = text + i;
        while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end - s > TV_INI_LINE_MAX) {
            snprintf(why, n,
                     "line is longer than %d characters (the INI reader's limit; shorten it, for example with a "
                     "path relative to this file)",
                     TV_INI_LINE_MAX);
            return line;
        }
        const char *p = s;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            const char *q = close ? close + 1 : end;
            while (q < end && (*q == ' ' || *q == '\t'))
                q++;
            if (close && q < end && *q != ';' && *q != '#') {
                snprintf(why, n, "text after the section header: '%.*s' (put each key on a line of its own)",
                         (int)(end - q > 60 ? 60 : end - q), q);
                return line;
            }
        }
        line++;
        start = i + 1;
    }
    return 0;
}

TvStatus tv_ini_check(const char *text, size_t len, const char *name, TvError *err)
{
    char why[200];
    int bad = tv_ini_check_text(text, len, why, sizeof why);
    return bad ? tv_fail_at(err, TV_ERR_PARSE, name, bad, "%s", why) : TV_OK;
}

TvStatus tv_ini_load(const char *path, const char *what, char **text, size_t *len, TvError *err)
{
    tv_error_clear(err);
    size_t n;
    TvStatus st = tv_read_file(path, what, text, &n, err);
    if (st != TV_OK) {
        if (err)
            snprintf(err->file, sizeof err->file, "%s", path);
        return st;
    }
    if ((st = tv_ini_check(*text, n, path, err)) != TV_OK) {
        free(*text);
        *text = NULL;
        return st;
    }
    if (len)
        *len = n;
    return TV_OK;
}

void tv_ini_lines_init(TvIniLines *l, const char *text)
{
    l->pos = text;
    l->next_line = 1;
    l->line = 0;
    l->line_start = NULL;
}

char *tv_ini_line_reader(char *str, int num, void *stream)
{
    TvIniLines *l = stream;
    if (!*l->pos || num < 3)
        return NULL;
    const char *eol = strchr(l->pos, '\n');
    size_t len = eol ? (size_t)(eol - l->pos) : strlen(l->pos);
    size_t keep = len < (size_t)num - 2 ? len : (size_t)num - 2;
    memcpy(str, l->pos, keep);
    str[keep] = '\n';
    str[keep + 1] = 0;
    l->line = l->next_line++;
    l->line_start = l->pos;
    l->pos += len + (eol ? 1 : 0);
    return str;
}

long tv_ini_header(const char *line, size_t len, const char **name)
{
    const char *p = line;
    while (p < line + len && (*p == ' ' || *p == '\t'))
        p++;
    if (p == line + len || *p != '[')
        return -1;
    *name = p + 1;
    const char *close = memchr(p, ']', (size_t)(line + len - p));
    return close ? (long)(close - p - 1) : 0;
}

int tv_ini_check_sections(const char *text, const char *const *known, char *why, size_t n)
{
    int line = 1;
    for (const char *s = text; *s; line++) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *name;
        const long nl = tv_ini_header(s, len, &name);
        if (nl >= 0) {
            const char *p = name - 1;
            bool ok = false;
            for (int k = 0; nl > 0 && known[k] && !ok; k++)
                ok = strlen(known[k]) == (size_t)nl && !strncmp(name, known[k], (size_t)nl);
            if (!ok) {
                size_t shown = len - (size_t)(p - s);
                size_t at = (size_t)snprintf(why, n, "unknown section %.*s (known:", (int)(shown < 60 ? shown : 60), p);
                for (int k = 0; known[k] && at < n; k++)
                    at += (size_t)snprintf(why + at, n - at, "%s[%s]", k ? ", " : " ", known[k]);
                if (at < n)
                    snprintf(why + at, n - at, ")");
                return line;
            }
        }
        s += len + (eol ? 1 : 0);
    }
    return 0;
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

/* ---- keys given twice ------------------------------------------------------------- */

struct TvIniKey {
    char *section, *name;
    int line;
};

int tv_ini_key_line(const TvIniKeys *k, const char *section, const char *name)
{
    for (int64_t i = 0; i < k->n; i++)
        if (!strcmp(k->keys[i].name, name) && !strcmp(k->keys[i].section, section))
            return k->keys[i].line;
    return 0;
}

int tv_ini_key_once(TvIniKeys *k, const char *section, const char *name, int line, char *why, size_t n)
{
    const int first = tv_ini_key_line(k, section, name);
    if (first > 0) {
        snprintf(why, n, "[%s] %s is given twice (first at line %d): give it once", section, name, first);
        return 0;
    }
    char *s = strdup(section), *nm = strdup(name);
    if (!s || !nm || !tv_grow((void **)&k->keys, &k->cap, k->n + 1, sizeof *k->keys)) {
        free(s);
        free(nm);
        snprintf(why, n, "out of memory");
        return -1;
    }
    k->keys[k->n++] = (struct TvIniKey){s, nm, line};
    return 1;
}

void tv_ini_keys_free(TvIniKeys *k)
{
    for (int64_t i = 0; i < k->n; i++) {
        free(k->keys[i].section);
        free(k->keys[i].name);
    }
    free(k->keys);
    *k = (TvIniKeys){0};
}
