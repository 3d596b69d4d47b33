/* engine_guard.c: the guard process of a separate program (engine_guard.h).
 *
 * The harness does not start the engine itself: its child is this same
 * program run again (/proc/self/exe, under the name GUARD_ARGV0), which
 * engine_guard_entry() below turns into a small guard before main() runs.
 * The guard is a child subreaper (PR_SET_CHILD_SUBREAPER): every process
 * the engine starts, however it detaches (a double-forked setsid daemon, a
 * child that ignores SIGTERM), stays its descendant or is handed to it
 * when its parent ends.  When the engine's main process ends, when the
 * harness closes the engine (SIGTERM to the guard), or when the thread that
 * started it ends, also by a SIGKILL of the harness (the guard's
 * PR_SET_PDEATHSIG is SIGTERM), the guard kills the engine's process group
 * and every process handed to it, until it has no child left, and then
 * ends the way the engine ended (its exit status or signal).  So the
 * harness watches one process (with a pidfd) whose end means "the engine
 * and all it started are gone".  One guard per engine keeps the threads of
 * the harness apart: no guard ever reaps another engine's processes, and
 * the harness itself reaps only the guards it started, by their pids.  The
 * guard is a fresh exec, not a fork that stays: it holds none of the
 * harness's memory.
 *
 * The constructor that turns a run into a guard is linked into every
 * program that starts engines: engine_proc.c calls engine_guard_exec, so
 * this file is always taken from the library with it. */
#define _GNU_SOURCE
#include "engine_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The guard: its argv[0], the word after it (so that no other use of the
 * name starts one), and the fd on which it and the engine's child report
 * (the engine's pid, or why it could not start) to the harness. */
#define GUARD_ARGV0 "tavreli-engine-guard"
#define GUARD_MAGIC "--guard-v1"
#define REPORT_FD 3

void engine_guard_argv(pid_t parent, char **argv, char *parent_text, size_t n)
{
    snprintf(parent_text, n, "%d", (int)parent);
    argv[0] = (char *)GUARD_ARGV0;
    argv[1] = (char *)GUARD_MAGIC;
    argv[2] = parent_text;
}

_Noreturn void engine_guard_exec(pid_t parent, int in_fd, int out_fd, int err_fd, int rep_fd, const char *dir,
                                 char **argv)
{
    setpgid(0, 0); /* a Ctrl-C on the terminal reaches the harness only */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    /* the four fds are all above 2 (0-2 are open in the harness); dup2
     * clears close-on-exec on the copies */
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (rep_fd == REPORT_FD)
        fcntl(REPORT_FD, F_SETFD, 0);
    else
        dup2(rep_fd, REPORT_FD);
    if (dir && chdir(dir) != 0) {
        GuardReport r = {GUARD_REPORT_CHDIR, errno};
        ssize_t w = write(REPORT_FD, &r, sizeof r);
        (void)w;
        _exit(127);
    }
    execv("/proc/self/exe", argv);
    GuardReport r = {GUARD_REPORT_GUARD, errno};
    ssize_t w = write(REPORT_FD, &r, sizeof r);
    (void)w;
    _exit(127);
}

/* ---- the guard (runs before main, in its own exec of this program) ---------- */

/* SIGKILL to every process whose parent is the guard. */
static void guard_kill_children(pid_t self)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = 0;
        const char *rp = strrchr(buf, ')'); /* after the command name, which may hold anything */
        char state;
        int ppid;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
            kill((pid_t)pid, SIGKILL);
    }
    closedir(d);
}

static void guard_report(int kind, int value)
{
    GuardReport r = {kind, value};
    ssize_t w = write(REPORT_FD, &r, sizeof r);
    (void)w;
}

/* Starts the engine (argv) and watches it, as the file's comment says.
 * Never returns. */
static void guard_main(pid_t harness, char **argv)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL); /* signals are taken with sigwaitinfo only */
    if (getppid() != harness)             /* the harness ended before the mask was set */
        _exit(127);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    fcntl(REPORT_FD, F_SETFD, FD_CLOEXEC);
    const pid_t self = getpid();
    pid_t engine = fork();
    if (engine == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a guard killed by SIGKILL takes the engine with it */
        if (getppid() != self)
            _exit(127);
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                signal(sig, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        guard_report(GUARD_REPORT_EXEC, errno);
        _exit(127);
    }
    if (engine < 0) {
        guard_report(GUARD_REPORT_FORK, errno);
        _exit(127);
    }
    setpgid(engine, engine); /* also here: no race with the child's own call */
    guard_report(GUARD_REPORT_PID, engine);
    close(REPORT_FD);
    /* hold none of the engine's pipes: their end of file is the engine's */
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        dup2(null, fd);
    if (null > 2)
        close(null);
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, SIGCHLD);
    sigaddset(&wake, SIGTERM); /* from the harness, or its death (PR_SET_PDEATHSIG) */
    sigaddset(&wake, SIGINT);
    sigaddset(&wake, SIGHUP);
    int status = 0;
    bool ended = false;
    while (!ended) {
        int sig = sigwaitinfo(&wake, NULL);
        if (sig == SIGCHLD) {
            int st;
            pid_t r;
            while ((r = waitpid(-1, &st, WNOHANG)) > 0) /* the engine, or a process handed to the guard */
                if (r == engine) {
                    status = st;
                    ended = true;
                }
        } else if (sig > 0) {
            break;
        }
    }
    /* The engine's group, then every process handed to the guard, until
     * none is left (a process whose parent is killed is handed over next). */
    kill(-engine, SIGKILL);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    const struct timespec tick = {0, 20 * 1000000L};
    for (;;) {
        guard_kill_children(self);
        int st;
        pid_t r;
        while ((r = waitpid(-1, &st, WNOHANG)) > 0)
            if (r == engine && !ended) {
                status = st;
                ended = true;
            }
        if (r < 0 && errno == ECHILD)
            break;
        sigtimedwait(&chld, NULL, &tick);
    }
    if (WIFSIGNALED(status)) { /* end as the engine ended, without a core file of the guard */
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* Runs before main in every program that holds this file; turns the process
 * into a guard when it was started as one (glibc passes argc and argv to
 * constructors). */
__attribute__((constructor)) static void engine_guard_entry(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc >= 4 && argv && argv[0] && !strcmp(argv[0], GUARD_ARGV0) && !strcmp(argv[1], GUARD_MAGIC))
        guard_main((pid_t)atol(argv[2]), argv + 3);
}
