/* report_doc.c: the report's document model, its Markdown and HTML
 * renderers, and the files of the output directory (see report_doc.h). */
#include "report_doc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "atomic_file.h"

/* ---- building -------------------------------------------------------------------- */

static DocBlock *doc_add(Doc *d, DocBlockKind kind)
{
    if (d->oom)
        return NULL;
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 32;
        DocBlock *b = realloc(d->b, (size_t)cap * sizeof *b);
        if (!b) {
            d->oom = true;
            return NULL;
        }
        d->b = b;
        d->cap = cap;
    }
    DocBlock *b = &d->b[d->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when it is not
 * one (a stray continuation byte, an overlong form, a surrogate, a
 * sequence cut short, above U+10FFFF). */
static int utf8_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? (s[0] <= 0xEF ? 3 : 0) : s[0] >= 0xC2 ? 2 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (n == 3 && s[0] == 0xED && s[1] >= 0xA0) ||
        (n == 4 && s[0] == 0xF0 && s[1] < 0x90) || (n == 4 && s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* text (heap, taken) with every byte that is not part of valid UTF-8
 * written as \xNN, so that report.md and report.html stay UTF-8 whatever a
 * file name or a store's text holds (NULL when memory ran out). */
static char *valid_utf8(char *text)
{
    if (!text)
        return NULL;
    const unsigned char *s = (const unsigned char *)text;
    bool clean = true;
    for (size_t i = 0; s[i] && clean;) {
        int n = utf8_length(s + i);
        clean = n > 0;
        i += n > 0 ? (size_t)n : 1;
    }
    if (clean)
        return text;
    StrBuf b = {0};
    for (size_t i = 0; s[i];) {
        int n = utf8_length(s + i);
        if (n > 0)
            strbuf_add_n(&b, (const char *)s + i, (size_t)n);
        else
            strbuf_addf(&b, "\\x%02X", s[i]);
        i += n > 0 ? (size_t)n : 1;
    }
    free(text);
    return strbuf_take(&b);
}

void doc_text(Doc *d, DocBlockKind kind, char *text)
{
    text = valid_utf8(text);
    DocBlock *b = doc_add(d, kind);
    if (!b || !text) {
        d->oom = true;
        free(text);
        return;
    }
    b->text = text;
}

void doc_img(Doc *d, const char *file, const char *alt)
{
    DocBlock *b = doc_add(d, DOC_IMG);
    if (!b)
        return;
    b->file = valid_utf8(strdup(file));
    b->text = valid_utf8(strdup(alt));
    if (!b->file || !b->text)
        d->oom = true;
}

void doc_table(Doc *d, const char *align)
{
    DocBlock *b = doc_add(d, DOC_TABLE);
    if (!b)
        return;
    b->ncols = (int)strlen(align);
    b->align = strdup(align);
    if (!b->align)
        d->oom = true;
}

void doc_cell(Doc *d, const char *fmt, ...)
{
    if (d->oom || d->n == 0 || d->b[d->n - 1].kind != DOC_TABLE)
        return;
    DocBlock *b = &d->b[d->n - 1];
    StrBuf s = {0};
    va_list ap;
    va_start(ap, fmt);
    strbuf_addv(&s, fmt, ap);
    va_end(ap);
    char *cell = valid_utf8(strbuf_take(&s));
    if (!cell) {
        d->oom = true;
        return;
    }
    if (b->ncells == b->capcells) {
        int cap = b->capcells ? 2 * b->capcells : 64;
        char **c = realloc(b->cells, (size_t)cap * sizeof *c);
        if (!c) {
            free(cell);
            d->oom = true;
            return;
        }
        b->cells = c;
        b->capcells = cap;
    }
    b->cells[b->ncells++] = cell;
}

void doc_free(Doc *d)
{
    for (int i = 0; i < d->n; i++) {
        DocBlock *b = &d->b[i];
        free(b->text);
        free(b->file);
        free(b->align);
        for (int k = 0; k < b->ncells; k++)
            free(b->cells[k]);
        free(b->cells);
    }
    free(d->b);
    memset(d, 0, sizeof *d);
}

/* ---- Markdown ------------------------------------------------------------------- */

/* Text in Markdown, which passes HTML through: what a viewer would take for
 * markup is written so that it reads as typed, and nothing else is touched
 * (a bound "> +34", "H0 nElo <= 0" and "a & b" stay as they are; report.md
 * showed "&gt; +34").  An engine name is the store's text, "<script>"
 * included, so a '<' that could begin a tag, a comment or a declaration
 * ('<' before a letter, '/', '!' or '?') is "&lt;"; a '&' that begins
 * something entity-shaped ("&lt;", "&#62;") is "&amp;"; a '>' that begins a
 * line, which would make a block quote, is "\>"; in a table cell also |
 * and line breaks. */
static void md_text(StrBuf *o, const char *s, bool cell)
{
    for (const char *p = s; *p; p++) {
        const bool line_start = p == s || p[-1] == '\n';
        switch (*p) {
        case '<':
            if (isalpha((unsigned char)p[1]) || p[1] == '/' || p[1] == '!' || p[1] == '?')
                strbuf_addf(o, "&lt;");
            else
                strbuf_add_n(o, p, 1);
            break;
        case '&': {
            size_t n = strspn(p + 1, "#abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
            strbuf_addf(o, n > 0 && p[1 + n] == ';' ? "&amp;" : "&");
            break;
        }
        case '>': strbuf_addf(o, line_start && !cell ? "\\>" : ">"); break;
        case '|': strbuf_addf(o, cell ? "\\|" : "|"); break;
        case '\n': strbuf_addf(o, cell ? " " : "\n"); break;
        default: strbuf_add_n(o, p, 1);
        }
    }
}

void doc_render_md(const Doc *d, StrBuf *o)
{
    for (int i = 0; i < d->n; i++) {
        const DocBlock *b = &d->b[i];
        switch (b->kind) {
        case DOC_H1:
        case DOC_H2:
        case DOC_PARA:
            strbuf_addf(o, "%s", b->kind == DOC_H1 ? "# " : b->kind == DOC_H2 ? "## " : "");
            md_text(o, b->text, false);
            strbuf_addf(o, "\n\n");
            break;
        case DOC_IMG:
            strbuf_addf(o, "![");
            md_text(o, b->text, false);
            strbuf_addf(o, "](%s)\n\n", b->file);
            break;
        case DOC_PRE: {
            /* a fence longer than any run of backticks in the text */
            int run = 0, longest = 0;
            for (const char *c = b->text; *c; c++)
                longest = (run = *c == '`' ? run + 1 : 0) > longest ? run : longest;
            int fence = longest < 3 ? 3 : longest + 1;
            size_t n = strlen(b->text);
            for (int k = 0; k < fence; k++)
                strbuf_add_n(o, "`", 1);
            strbuf_addf(o, "\n%s%s", b->text, n && b->text[n - 1] != '\n' ? "\n" : "");
            for (int k = 0; k < fence; k++)
                strbuf_add_n(o, "`", 1);
            strbuf_addf(o, "\n\n");
            break;
        }
        case DOC_TABLE:
            for (int k = 0; k < b->ncells; k++) {
                int col = k % b->ncols;
                strbuf_addf(o, col ? " | " : "| ");
                md_text(o, b->cells[k], true);
                if (col == b->ncols - 1) {
                    strbuf_addf(o, " |\n");
                    if (k == b->ncols - 1) {
                        for (int c = 0; c < b->ncols; c++)
                            strbuf_addf(o, "|%s", b->align[c] == 'r' ? "---:" : "---");
                        strbuf_addf(o, "|\n");
                    }
                }
            }
            strbuf_addf(o, "\n");
            break;
        }
    }
}

/* ---- HTML ----------------------------------------------------------------------- */

static void html_text(StrBuf *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': strbuf_addf(o, "&lt;"); break;
        case '>': strbuf_addf(o, "&gt;"); break;
        case '&': strbuf_addf(o, "&amp;"); break;
        case '"': strbuf_addf(o, "&quot;"); break;
        default: strbuf_addf(o, "%c", *s);
        }
    }
}

/* Text of a heading, paragraph or cell in HTML, with the two inline forms
 * of Markdown a report uses rendered as Markdown viewers do: a code span
 * (`tavreli train --confirm DIR`, shown as raw backticks before) as
 * <code>, and a link [text](target) to another file of the report (a
 * relative path or an http(s) address, no blank in it) as <a>.  Anything
 * else is text. */
static void html_inline(StrBuf *o, const char *s)
{
    while (*s) {
        const char *close;
        if (*s == '`' && (close = strchr(s + 1, '`')) && close > s + 1) {
            char *code = strndup(s + 1, (size_t)(close - s - 1));
            strbuf_addf(o, "<code>");
            html_text(o, code ? code : "");
            strbuf_addf(o, "</code>");
            free(code);
            s = close + 1;
            continue;
        }
        const char *mid, *end;
        if (*s == '[' && (mid = strstr(s + 1, "](")) && !memchr(s + 1, ']', (size_t)(mid - s - 1)) &&
            (end = strchr(mid + 2, ')')) && end > mid + 2 && strcspn(mid + 2, " \t\n\"<>") >= (size_t)(end - mid - 2) &&
            (strncmp(mid + 2, "http", 4) == 0 || !strchr(mid + 2, ':') || strchr(mid + 2, ':') > end)) {
            char *text = strndup(s + 1, (size_t)(mid - s - 1)), *target = strndup(mid + 2, (size_t)(end - mid - 2));
            strbuf_addf(o, "<a href=\"");
            html_text(o, target ? target : "");
            strbuf_addf(o, "\">");
            html_text(o, text ? text : "");
            strbuf_addf(o, "</a>");
            free(text);
            free(target);
            s = end + 1;
            continue;
        }
        char one[2] = {*s, 0};
        html_text(o, one);
        s++;
    }
}

static const char HTML_HEAD[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
    "<style>\n"
    "body { font-family: sans-serif; color: #222; max-width: 1000px; margin: 2em auto; padding: 0 1em; "
    "line-height: 1.4; }\n"
    "h1 { border-bottom: 2px solid #3182bd; padding-bottom: 0.2em; }\n"
    "h2 { margin-top: 1.8em; border-bottom: 1px solid #ccc; }\n"
    "table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }\n"
    "th, td { border: 1px solid #bbb; padding: 3px 9px; }\n"
    "th { background: #eef3f8; }\n"
    "td.r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
    "tr:nth-child(even) td { background: #f8f8f8; }\n"
    "img { max-width: 100%%; border: 1px solid #ddd; margin: 0.5em 0; }\n"
    "</style>\n</head>\n<body>\n";

/* Appends the base64 encoding (RFC 4648) of n bytes. */
static void base64(StrBuf *o, const unsigned char *p, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u) | (i + 2 < n ? p[i + 2] : 0u);
        char q[4] = {A[v >> 18], A[(v >> 12) & 63], i + 1 < n ? A[(v >> 6) & 63] : '=', i + 2 < n ? A[v & 63] : '='};
        strbuf_add_n(o, q, 4);
    }
}

TvStatus doc_render_html(const Doc *d, const char *outdir, StrBuf *o, TvError *err)
{
    const char *title = d->n > 0 && d->b[0].kind == DOC_H1 ? d->b[0].text : "report";
    StrBuf t = {0};
    html_text(&t, title);
    strbuf_addf(o, HTML_HEAD, t.s ? t.s : "report");
    free(t.s);
    for (int i = 0; i < d->n; i++) {
        const DocBlock *b = &d->b[i];
        switch (b->kind) {
        case DOC_H1:
        case DOC_H2:
        case DOC_PARA: {
            const char *tag = b->kind == DOC_H1 ? "h1" : b->kind == DOC_H2 ? "h2" : "p";
            strbuf_addf(o, "<%s>", tag);
            html_inline(o, b->text);
            strbuf_addf(o, "</%s>\n", tag);
            break;
        }
        case DOC_PRE:
            strbuf_addf(o, "<pre>");
            html_text(o, b->text);
            strbuf_addf(o, "</pre>\n");
            break;
        case DOC_IMG: {
            char *path = doc_path(outdir, b->file);
            char *png = NULL;
            size_t len = 0;
            TvStatus st = path ? tv_read_file(path, "report image", &png, &len, err)
                               : tv_fail(err, TV_ERR_LIMIT, "out of memory");
            free(path);
            if (st != TV_OK)
                return st;
            strbuf_addf(o, "<p><img src=\"data:image/png;base64,");
            base64(o, (const unsigned char *)png, len);
            free(png);
            strbuf_addf(o, "\" alt=\"");
            html_text(o, b->text);
            strbuf_addf(o, "\" title=\"");
            html_text(o, b->file);
            strbuf_addf(o, "\"></p>\n");
            break;
        }
        case DOC_TABLE:
            strbuf_addf(o, "<table>\n");
            for (int k = 0; k < b->ncells; k++) {
                int col = k % b->ncols;
                bool head = k < b->ncols;
                if (col == 0)
                    strbuf_addf(o, "<tr>");
                strbuf_addf(o, head ? "<th>" : b->align[col] == 'r' ? "<td class=\"r\">" : "<td>");
                html_inline(o, b->cells[k]);
                strbuf_addf(o, head ? "</th>" : "</td>");
                if (col == b->ncols - 1)
                    strbuf_addf(o, "</tr>\n");
            }
            strbuf_addf(o, "</table>\n");
            break;
        }
    }
    strbuf_addf(o, "</body>\n</html>\n");
    return TV_OK;
}

/* ---- files --------------------------------------------------------------------- */


TvStatus doc_folder_open(DocFolder *f, const char *outdir, TvError *err)
{
    memset(f, 0, sizeof *f);
    char folder[TV_PATH_MAX];
    if (snprintf(folder, sizeof folder, "%s", outdir) >= (int)sizeof folder)
        return tv_fail(err, TV_ERR_ARG, "%s: path too long", outdir);
    for (size_t n = strlen(folder); n > 1 && folder[n - 1] == '/'; n--)
        folder[n - 1] = '\0';
    char parent[TV_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", folder);
    char *slash = strrchr(parent, '/');
    TvStatus st = TV_OK;
    if (slash && slash != parent) { /* the lock sits beside the folder: its parent is made first */
        *slash = '\0';
        st = tv_make_dirs(parent, "output directory", err);
    }
    if (st == TV_OK)
        st = tv_lock_output(folder, "wait until it ends, or give this one another -o", NULL, NULL, &f->lock, err);
    if (st == TV_OK && (st = tv_stage_open(&f->stage, folder, "output directory", err)) != TV_OK) {
        tv_unlock_output(f->lock);
        f->lock = NULL;
    }
    return st;
}

TvStatus doc_folder_close(DocFolder *f, TvStatus st, TvError *err)
{
    if (st == TV_OK)
        st = tv_stage_commit(&f->stage, REPORT_LAST_FILES, err);
    else
        tv_stage_abort(&f->stage, REPORT_KEPT_FILES, err);
    tv_unlock_output(f->lock);
    f->lock = NULL;
    return st;
}

char *doc_path(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return tv_strdup_printf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

TvStatus doc_write_file(const char *outdir, const char *name, const char *text, size_t len, TvError *err)
{
    char *path = doc_path(outdir, name);
    if (!path)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    TvStatus st = tv_atomic_write(path, "report file", text, len, err);
    free(path);
    return st;
}

TvStatus doc_write_buf(const char *outdir, const char *name, const StrBuf *s, TvError *err)
{
    if (s->failed)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory writing %s", name);
    return doc_write_file(outdir, name, s->s ? s->s : "", s->len, err);
}
