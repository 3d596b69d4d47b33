/* status.h: error reporting shared by every module.  Functions that can fail
 * return a TvStatus and, when given one, fill a TvError with a message that
 * says what went wrong and where.  Only main() turns a status into an exit
 * code. */
#ifndef TAVRELI_STATUS_H
#define TAVRELI_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    TV_OK = 0,
    TV_ERR_PARSE,   /* malformed text (TFEN, move, record, configuration) */
    TV_ERR_ILLEGAL, /* well-formed but not allowed (illegal move, impossible position) */
    TV_ERR_IO,      /* a file could not be read or written */
    TV_ERR_ARG,     /* a bad argument or option value */
    TV_ERR_LIMIT    /* a fixed capacity was exceeded */
} TvStatus;

#define TV_ERROR_MSG_LEN 512

/* An error record: file and line are set for errors in files (0 when not
 * applicable); msg is a complete sentence-like description. */
typedef struct {
    TvStatus status;
    char file[256];
    int line;
    char msg[TV_ERROR_MSG_LEN];
} TvError;

/* Returns a short constant name for a status ("ok", "parse error", ...). */
const char *tv_status_name(TvStatus s);

/* Fills err (when not NULL) with status s and a printf-style message, and
 * returns s, so that callers can write `return tv_fail(err, TV_ERR_PARSE, ...)`.
 * The message is escaped (tv_escape): control bytes and bytes that are not
 * UTF-8, echoed from an input, become \xNN. */
TvStatus tv_fail(TvError *err, TvStatus s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* tv_fail for an error at line `line` of `file`: the message is
 * "FILE:LINE: " and the printf-style rest; err (when not NULL) is cleared
 * first and its file and line are set.  The one way a reader of a file
 * (INI, records, openings) reports where. */
TvStatus tv_fail_at(TvError *err, TvStatus s, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Parses a whole number in [lo, hi] (blanks around it allowed) into *out;
 * false on anything else.  Shared by the INI readers. */
bool tv_parse_long(const char *s, long lo, long hi, long *out);

/* Parses a boolean: yes/no, true/false, on/off or 1/0, in any case, into
 * *out (1 or 0); false on anything else.  Every reader of a boolean (INI
 * files, the engine protocol, --option) goes through it (core/option.h). */
bool tv_parse_bool(const char *s, int *out);

/* TV_OK when path is a regular file (following links); else the errors of
 * tv_read_file below: cannot open, is a directory, not a regular file.
 * Checked before opening anything that would block on a FIFO. */
TvStatus tv_check_regular_file(const char *path, const char *what, TvError *err);

/* Reads a whole regular file (up to 16 MiB) into a NUL-terminated heap
 * string, its length (which counts any NUL bytes inside) in *len (may be
 * NULL).  `what` names the file in messages ("engine file").  Errors
 * (TV_ERR_IO): "PATH: cannot open the WHAT: REASON", "PATH: the WHAT is a
 * directory", "... is not a regular file (a FIFO, device or socket)" (it
 * would block or never end), "... is larger than 16 MiB", a read error. */
TvStatus tv_read_file(const char *path, const char *what, char **text, size_t *len, TvError *err);

/* The longest INI line the readers take: inih, as Debian builds it, reads
 * lines into a 200-byte buffer (INI_MAX_LINE), newline and NUL included. */
#define TV_INI_LINE_MAX 198

/* Checks an INI text (len bytes) before inih reads it, for what inih
 * would silently misread: a NUL byte (inih stops there) or another control
 * character (tab, CR and LF are fine), a line longer than TV_INI_LINE_MAX
 * (inih would cut it), and a section header with anything but blanks or a
 * comment after its ']' ("[rules] x").  Returns 0, or the first bad line
 * with the reason in why. */
int tv_ini_check_text(const char *text, size_t len, char *why, size_t n);

/* tv_ini_check_text as an error: TV_OK, or "NAME:LINE: WHY" (tv_fail_at).
 * The readers of INI text that is not a file (a store's copy) call it. */
TvStatus tv_ini_check(const char *text, size_t len, const char *name, TvError *err);

/* The one prologue of every INI reader: reads the whole file
 * (tv_read_file: a directory, FIFO or device is refused, at most 16 MiB)
 * and checks its text (tv_ini_check_text: NUL and other control bytes,
 * lines too long for inih, text after a section header).  Errors name the
 * file and, for the text, the line ("PATH:LINE: WHY"; err->file and
 * err->line set).  On success *text is the heap text (free it). */
TvStatus tv_ini_load(const char *path, const char *what, char **text, size_t *len, TvError *err);

/* The section headers of an INI text that are not among known (a NULL-ended
 * list of names without brackets): inih reports keys only, so a misspelt
 * section without keys would pass unseen.  Returns 0, or the first bad
 * header's line with "unknown section [X] (known: [a], [b])" in why. */
/* The counted line source of the INI readers, for inih's ini_parse_stream
 * (tv_ini_line_reader as the reader, a TvIniLines as its stream): it hands
 * inih one line of the text at a time and keeps the number and the text of
 * the line being parsed, so that a handler can name FILE:LINE.  A line
 * longer than inih's buffer is cut (the rest is skipped, so line numbers
 * stay right): readers refuse such lines beforehand (tv_ini_check_text). */
typedef struct {
    const char *pos;        /* the rest of the text */
    int next_line;          /* the number of the next line handed to inih */
    int line;               /* the number of the line being parsed */
    const char *line_start; /* its text */
} TvIniLines;

/* A source over text, whose first line is line 1. */
void tv_ini_lines_init(TvIniLines *l, const char *text);

/* inih's ini_reader over a TvIniLines (stream). */
char *tv_ini_line_reader(char *str, int num, void *stream);

/* When the line (len bytes, without its newline) is a section header
 * ("[NAME]" after blanks): *name is NAME's first byte and the result its
 * length (0 when the ']' is missing); else -1. */
long tv_ini_header(const char *line, size_t len, const char **name);

int tv_ini_check_sections(const char *text, const char *const *known, char *why, size_t n);

/* The keys an INI reader has been given, so that a key given twice is
 * refused (inih hands both, and the later would silently win) in the one
 * wording of every reader.  Start from {0}; free with tv_ini_keys_free. */
typedef struct {
    struct TvIniKey *keys; /* [section] name and the line of each key, in file order */
    int64_t n, cap;
} TvIniKeys;

/* Records key `name` of [section], given at line.  1 when it is new; 0
 * when it was given before, with "[SECTION] NAME is given twice (first at
 * line N): give it once" in why; -1 when out of memory ("out of memory"). */
int tv_ini_key_once(TvIniKeys *k, const char *section, const char *name, int line, char *why, size_t n);

/* The line at which [section] name was given, 0 when it was not. */
int tv_ini_key_line(const TvIniKeys *k, const char *section, const char *name);

void tv_ini_keys_free(TvIniKeys *k);

/* Clears an error record. */
void tv_error_clear(TvError *err);

/* FNV-1a over n bytes, continuing from h (start with TV_HASH_START): for
 * content digests and checks, not for hash tables. */
#define TV_HASH_START 1469598103934665603ull
uint64_t tv_hash_bytes(uint64_t h, const void *data, size_t n);

/* A printable copy of untrusted text for messages: printable ASCII and valid
 * UTF-8 characters are kept; control characters (ESC, NUL-free C0 and C1
 * controls, DEL) and bytes that are not valid UTF-8 become \xNN, so that an
 * error message never sends raw control bytes to a terminal.  Cut to fit n
 * (at least 8); returns buf. */
char *tv_escape(const char *s, char *buf, size_t n);

/* Seconds on the monotonic clock (for durations). */
double tv_now_seconds(void);

#endif
