/* cli.h: the command-line front ends.  Each parses its arguments, calls the
 * library and turns the outcome into an exit code: 0 success, 1 bad input or
 * a failed check (illegal move, unreadable file), 2 bad usage. */
#ifndef TAVRELI_CLI_H
#define TAVRELI_CLI_H

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

int cli_perft(int argc, char **argv);
int cli_moves(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_analyse(int argc, char **argv);
int cli_play(int argc, char **argv);
int cli_bench_search(int argc, char **argv);
int cli_weights(int argc, char **argv);
int cli_strength(int argc, char **argv);
int cli_selfplay(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_bench_selfplay(int argc, char **argv);
int cli_bench_mpi(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_sprt(int argc, char **argv);
int cli_tune(int argc, char **argv);
int cli_bench_tune(int argc, char **argv);

/* Reads "--option NAME=VALUE" / "--option=NAME=VALUE" (a variant option of
 * RULES.md section 10) at argv[*i] into o; returns 1 when consumed (i moved
 * past the value), 0 when argv[*i] is something else, -1 after printing an
 * error. */
#include "types.h"
int cli_take_option(int argc, char **argv, int *i, Options *o);

/* Joins words with single spaces into buf (a TFEN given unquoted arrives as
 * words); stops at the last word that fits. */
void cli_join_words(char **words, int n, char *buf, size_t size);

/* Prints "error: <msg>" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
