/* report_doc.h: the strength report as a document (internal to report/): a
 * list of blocks (headings, paragraphs, tables, images) built once and
 * rendered twice, as Markdown and as HTML; and writing files into the
 * report's output directory.
 *
 *   Doc d = {0};
 *   doc_h1(&d, "Strength report");
 *   doc_table(&d, "lr");  doc_cell(&d, "engine");  doc_cell(&d, "%d", elo);
 *   if (d.oom) ...        // checked once, after building
 *   doc_render_md(&d, &md);  doc_render_html(&d, &html);  doc_free(&d);
 *
 * Building never fails: an allocation failure sets d.oom and every later
 * addition is ignored. */
#ifndef TAVRELI_REPORT_DOC_H
#define TAVRELI_REPORT_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "atomic_file.h"
#include "status.h"
#include "strbuf.h"

/* A report folder is written into a stage and its files replaced as one
 * group (tv_stage_commit): the text after its plots, the HTML a browser
 * opens last of all; a failed run keeps only gnuplot's log, which its
 * message names, beside the old report. */
#define REPORT_LAST_FILES ((const char *const[]){"report.md", "ladder.md", "report.html", NULL})
#define REPORT_KEPT_FILES ((const char *const[]){"gnuplot.log", NULL})

typedef enum { DOC_H1, DOC_H2, DOC_PARA, DOC_TABLE, DOC_IMG, DOC_PRE } DocBlockKind;

typedef struct {
    DocBlockKind kind;
    char *text;   /* heading, paragraph, image alt text */
    char *file;   /* image */
    int ncols;    /* table */
    char *align;  /* table: 'l' or 'r' per column */
    char **cells; /* table: header row first, row-major */
    int ncells, capcells;
} DocBlock;

typedef struct {
    DocBlock *b;
    int n, cap;
    bool oom; /* an allocation failed: the document is incomplete */
} Doc;

/* Appends a block of kind (DOC_H1, DOC_H2, DOC_PARA or DOC_PRE: text shown
 * as it is, lines and spaces kept) with text, which the document takes over
 * (NULL: out of memory). */
void doc_text(Doc *d, DocBlockKind kind, char *text);

/* A heading, a second-level heading, a paragraph: printf-style text. */
#define doc_h1(d, ...) doc_text((d), DOC_H1, tv_strdup_printf(__VA_ARGS__))
#define doc_h2(d, ...) doc_text((d), DOC_H2, tv_strdup_printf(__VA_ARGS__))
#define doc_para(d, ...) doc_text((d), DOC_PARA, tv_strdup_printf(__VA_ARGS__))

/* An image: file (relative to the output directory) and its alt text. */
void doc_img(Doc *d, const char *file, const char *alt);

/* Starts a table; align is one 'l' or 'r' per column.  The header cells and
 * then the rows are added with doc_cell, in order. */
void doc_table(Doc *d, const char *align);

/* Appends a printf-style cell to the table the document ends with (ignored
 * when it ends with another block). */
void doc_cell(Doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Frees the blocks and empties d. */
void doc_free(Doc *d);

/* Appends d as Markdown to o. */
void doc_render_md(const Doc *d, StrBuf *o);

/* Appends d as a whole HTML page to o (its title: the first heading).  The
 * page is one self-contained file: every image is read from outdir and
 * inlined as a base64 data: URI.  Errors: an image cannot be read. */
TvStatus doc_render_html(const Doc *d, const char *outdir, StrBuf *o, TvError *err);

/* ---- files in the output directory ---------------------------------------- */


/* dir/name as a heap string (NULL when out of memory). */
/* A report folder being written: its lock (OUTDIR.lock: one run at a
 * time; two at once both exited 0, one's plots beside the other's text)
 * and its stage (every file written to stage.stage, then the folder's
 * files replaced as one group, REPORT_LAST_FILES last).  doc_folder_open
 * makes the folder's parent, takes the lock and opens the stage;
 * doc_folder_close(f, ok, err) commits the stage when ok (errors into err),
 * else drops it (the old report stays, REPORT_KEPT_FILES kept, and a
 * message in err names OUTDIR), and releases the lock; it returns the
 * status of the whole. */
typedef struct {
    TvLock *lock;
    TvStage stage;
} DocFolder;
TvStatus doc_folder_open(DocFolder *f, const char *outdir, TvError *err);
TvStatus doc_folder_close(DocFolder *f, TvStatus st, TvError *err);

char *doc_path(const char *dir, const char *name);

/* Writes len bytes of text to outdir/name.  Errors: it cannot be written
 * (TV_ERR_IO), out of memory (TV_ERR_LIMIT). */
TvStatus doc_write_file(const char *outdir, const char *name, const char *text, size_t len, TvError *err);

/* Writes the contents of s to outdir/name; s having run out of memory is an
 * error (TV_ERR_LIMIT). */
TvStatus doc_write_buf(const char *outdir, const char *name, const StrBuf *s, TvError *err);

#endif
