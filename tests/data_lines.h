/* data_lines.h: reading the tab-separated data files of tests/data. */
#ifndef TAVRELI_TEST_DATA_LINES_H
#define TAVRELI_TEST_DATA_LINES_H

#define DATA(name) TAVRELI_TEST_DATA "/" name

/* Calls fn for every non-comment, non-empty line of a data file (the line
 * without its newline, split at tabs into at most 4 columns); returns how
 * many lines it called fn for.  A file that cannot be opened fails the
 * test. */
typedef void (*LineFn)(char **cols, int ncols, int lineno, void *ctx);
int for_each_line(const char *path, LineFn fn, void *ctx);

#endif
