/* engine_guard.h: the guard process under which every separate program
 * runs (engine_guard.c), as engine_proc.c starts it.  Internal to
 * engine_proc.c. */
#ifndef TAVRELI_ENGINE_GUARD_H
#define TAVRELI_ENGINE_GUARD_H

#include <sys/types.h>

/* Words of the guard's argv before the engine's command. */
#define ENGINE_GUARD_ARGS 3

/* What the guard and the engine's child report to the harness on the
 * report pipe: the engine's pid, or why it could not start (value is then
 * an errno). */
typedef struct {
    int kind;  /* GUARD_REPORT_* */
    int value;
} GuardReport;
enum { GUARD_REPORT_PID = 1, GUARD_REPORT_CHDIR, GUARD_REPORT_GUARD, GUARD_REPORT_FORK, GUARD_REPORT_EXEC };

/* Fills argv[0 .. ENGINE_GUARD_ARGS - 1], the words that make a run of
 * this program a guard for the harness `parent`; parent_text (n bytes)
 * holds the pid's text.  Call before fork (the child only calls
 * async-signal-safe functions). */
void engine_guard_argv(pid_t parent, char **argv, char *parent_text, size_t n);

/* In the child the harness forked: takes in_fd, out_fd and err_fd as its
 * stdin, stdout and stderr and rep_fd as its report pipe, changes to dir
 * (NULL: stays), and runs this program again as the guard (argv from
 * engine_guard_argv, then the engine's command).  Never returns; calls
 * only async-signal-safe functions. */
_Noreturn void engine_guard_exec(pid_t parent, int in_fd, int out_fd, int err_fd, int rep_fd, const char *dir,
                                 char **argv);

#endif
