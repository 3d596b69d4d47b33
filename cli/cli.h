/* cli.h: the command-line front ends of `tavreli`.
 *
 * Each command is a CliCommand: its name, its --help text, a table of the
 * flags it accepts and the function that runs it.  A front end parses its
 * arguments with cli_parse (getopt_long underneath: `--flag value` and
 * `--flag=value` both work, flags and positional arguments may be mixed),
 * calls one library function, prints, and returns an exit code: 0 success,
 * 1 bad input or a failed check (illegal move, unreadable file), 2 bad
 * usage.  The libraries never print; what they report reaches the front end
 * through callbacks. */
#ifndef TAVRELI_CLI_H
#define TAVRELI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine.h"
#include "position.h"
#include "train.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* What a flag's value is. */
typedef enum {
    CLI_BOOL,        /* no value: sets a bool to true */
    CLI_STRING,      /* a string: const char * (the last one given wins) */
    CLI_LONG,        /* a whole number in [lo, hi]: long */
    CLI_U64,         /* a whole number in [lo, hi], up to 2^64 - 1: unsigned long long */
    CLI_DOUBLE,      /* a finite number in [lo, hi]: double */
    CLI_DOUBLE_OPEN, /* a finite number in (lo, hi), bounds excluded: double */
    CLI_RULE_OPTION, /* NAME=VALUE, a variant option (docs/rules.md section 10), repeatable: Options */
    CLI_ENGINE_OPTION /* NAME=VALUE, an engine option (core/option.h), repeatable: CliEngineOptions */
} CliFlagKind;

/* The --option NAME=VALUE words of a command, as given (checked for their
 * form here, applied to the engine by cli_apply_engine_options once it is
 * loaded). */
#define CLI_MAX_ENGINE_OPTIONS 64
typedef struct {
    int n;
    const char *text[CLI_MAX_ENGINE_OPTIONS];
} CliEngineOptions;

/* One flag of a command: `--name` (and `-c` when short_name is not 0).  The
 * value is stored at `offset` bytes into the command's own arguments struct
 * (give it with offsetof).  For CLI_LONG and CLI_U64, lo and hi are whole
 * numbers (written as doubles). */
typedef struct {
    const char *name;
    char short_name;
    CliFlagKind kind;
    size_t offset;
    double lo, hi;
} CliFlag;

/* The flag table of a command that takes no flags. */
extern const CliFlag CLI_NO_FLAGS[];

typedef struct CliCommand CliCommand;
struct CliCommand {
    const char *name;     /* "perft", or "bench search" for a benchmark */
    const char *help;     /* the whole --help text: it names every flag of `flags` */
    const CliFlag *flags; /* ends with an entry whose name is NULL */
    int (*run)(const CliCommand *cmd, int argc, char **argv); /* argv[0] is the command's last word */
};

/* Every command, in the order of `tavreli --help` (for the dispatcher and
 * the test that every --help lists exactly the flags its parser accepts). */
const CliCommand *const *cli_commands(int *n);

/* The commands, each defined in its front end's file. */
extern const CliCommand CLI_PERFT, CLI_MOVES, CLI_REPLAY, CLI_ANALYSE, CLI_PLAY, CLI_WEIGHTS, CLI_STRENGTH,
    CLI_SELFPLAY, CLI_MATCH, CLI_EXPORT, CLI_VERIFY, CLI_REPAIR, CLI_REPORT, CLI_SPRT, CLI_TUNE, CLI_BENCH, CLI_BENCH_PERFT, CLI_BENCH_SEARCH,
    CLI_BENCH_SELFPLAY, CLI_BENCH_TUNE, CLI_BENCH_MPI, CLI_UCI, CLI_BENCH_PROTOCOL, CLI_TRAIN, CLI_SPSA, CLI_BENCH_SPSA, CLI_COMPARE, CLI_SERVE, CLI_BENCH_SERVE;

/* The result of cli_parse besides the flags' values. */
typedef enum { CLI_PARSED = 0, CLI_PARSE_HELP = 1, CLI_PARSE_ERROR = 2 } CliParse;

/* Parses argv[1 .. argc-1] against cmd->flags into `args` (the command's
 * own struct, already holding the defaults).  Positional arguments are
 * collected in order into `pos` (room for argc entries; may be NULL when the
 * command takes none) and counted in *npos.  `--help` or `-h` prints
 * cmd->help on stdout and returns CLI_PARSE_HELP.  An unknown flag, a
 * missing value, or a value that is not of its kind or outside its range is
 * reported on stderr ("error: selfplay: --threads must be a whole number
 * from 0 to 1024, not 'x'") and returns CLI_PARSE_ERROR.  "--" ends the
 * flags. */
CliParse cli_parse(const CliCommand *cmd, int argc, char **argv, void *args, char **pos, int *npos);

/* cli_parse for a command's run function: returns -1 when parsing succeeded
 * (carry on), else the exit code to return (CLI_OK after --help, CLI_USAGE
 * after an error). */
int cli_parse_or_exit(const CliCommand *cmd, int argc, char **argv, void *args, char **pos, int *npos);

/* Reads a position given as one TFEN argument or as its space-separated
 * words (or the word 'startpos'); false after printing the TFEN error. */
bool cli_read_position(char **words, int n, Position *p);

/* The engine version of an --engine FILE (path NULL: the built-in
 * defaults); false after printing the reader's error. */
bool cli_load_engine(const char *path, EngineVersion *e);

/* A command's only positional argument (`what`, e.g. "CONFIG.ini"): NULL
 * after a usage message when there is none or more than one. */
const char *cli_one_arg(const CliCommand *cmd, char **pos, int npos, const char *what);

/* Joins words with single spaces into buf (a TFEN given unquoted arrives as
 * words); stops at the last word that fits. */
void cli_join_words(char **words, int n, char *buf, size_t size);

/* s padded with blanks to width columns of a terminal, on the left (right
 * aligned, right = true) or on the right, into buf: a table's cell.  A
 * UTF-8 character is one column ('±' is two bytes: printf's %16s counts
 * bytes and shifted the cells after it by one). */
const char *cli_cell(const char *s, int width, bool right, char *buf, size_t n);

/* Prints a training ladder (train_ladder) as a table on stdout, each rung
 * with how it was measured (cli_train.c; report prints it too). */
void cli_print_ladder(const TrainRung *rungs, int n);

/* The folder temporary files go to: $TMPDIR when set, else /tmp. */
const char *cli_temp_root(void);

/* Makes a fresh folder cli_temp_root()/tavreli-WHAT-XXXXXX (mkdtemp) into
 * buf; false (errno set) when it cannot. */
bool cli_temp_dir(const char *what, char *buf, size_t n);

/* Removes a temporary directory and everything in it (a benchmark's); a
 * warning names it when it cannot be removed. */
void cli_remove_temp_dir(const char *dir, const char *who);

/* Levenshtein distance of a[0..na) and b[0..nb) (flag names: 99 past 62
 * bytes), for the nearest known flag of a misspelt one. */
int cli_edit_distance(const char *a, size_t na, const char *b, size_t nb);

/* Prints the usage lines of a command's help (up to its first blank line),
 * "usage: " replaced by lead and continuation lines aligned under it. */
void cli_print_synopsis(FILE *out, const char *help, const char *lead);

/* The usage lines of every benchmark ('bench X'), from their own helps:
 * the first with `first` for "usage: ", the others with `lead`. */
void cli_print_bench_usage(FILE *out, const char *first, const char *lead);

/* Sets each NAME=VALUE of o on e (the one table of engine options,
 * core/option.h: a search setting, a weight element or a limit); false
 * after saying which word is wrong and why. */
bool cli_apply_engine_options(const char *cmd, const CliEngineOptions *o, EngineVersion *e);

/* The program as the user ran it, for the lines printed to be pasted (the
 * resume line, tune's SPRT command, train's last line): argv[0] when it
 * names a path (build/tavreli), else "tavreli" (found on PATH, so the bare
 * name runs it).  Set once by main (cli_set_self) before any command. */
const char *cli_self(void);
void cli_set_self(const char *argv0);

/* Prints "error: <msg>" on stderr, the message escaped (tv_escape: control
 * bytes and bytes that are not UTF-8, in a file name for example, as \xNN). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints "warning: <msg>" on stderr, escaped as cli_error does. */
void cli_warning(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
