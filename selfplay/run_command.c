/* run_command.c: a helper program run to its end (run_command.h). */
#define _GNU_SOURCE /* pipe2 */
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Appends n bytes, keeping only the last RUN_COMMAND_KEEP. */
static void keep(CommandResult *r, const char *s, size_t n)
{
    strbuf_add_n(&r->out, s, n);
    if (r->out.len > RUN_COMMAND_KEEP + RUN_COMMAND_KEEP / 4) {
        size_t drop = r->out.len - RUN_COMMAND_KEEP;
        memmove(r->out.s, r->out.s + drop, r->out.len - drop + 1);
        r->out.len -= drop;
        r->cut += drop;
    }
}

TvStatus run_command(char *const argv[], const char *dir, int timeout_ms, CommandResult *r, TvError *err)
{
    memset(r, 0, sizeof *r);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return tv_fail(err, TV_ERR_IO, "cannot run %s: %s", argv[0], strerror(errno));
    int report[2]; /* the child writes errno here when exec fails */
    if (pipe2(report, O_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return tv_fail(err, TV_ERR_IO, "cannot run %s: %s", argv[0], strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        close(report[0]);
        close(report[1]);
        return tv_fail(err, TV_ERR_IO, "cannot run %s: %s", argv[0], strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY);
        int e = 0;
        if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
            e = errno;
        else if (dir && chdir(dir) != 0)
            e = errno;
        else {
            signal(SIGPIPE, SIG_DFL);
            execvp(argv[0], argv);
            e = errno;
        }
        if (write(report[1], &e, sizeof e) < 0) {
            /* nothing more to say */
        }
        _exit(127);
    }
    close(fds[1]);
    close(report[1]);
    int child_errno = 0;
    ssize_t got;
    while ((got = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (got == (ssize_t)sizeof child_errno) {
        close(fds[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        return tv_fail(err, TV_ERR_IO, "cannot run %s%s%s: %s", argv[0], dir ? " in " : "", dir ? dir : "",
                       strerror(child_errno));
    }
    const double deadline = timeout_ms > 0 ? tv_now_seconds() + timeout_ms / 1000.0 : 0; /* seconds */
    char buf[8192];
    for (;;) {
        int wait_ms = -1;
        if (deadline > 0) {
            const double left_ms = (deadline - tv_now_seconds()) * 1000;
            if (left_ms <= 0) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                r->timed_out = 1;
                break;
            }
            wait_ms = left_ms > 1000 ? 1000 : (int)left_ms + 1;
        }
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int k = poll(&p, 1, wait_ms);
        if (k < 0 && errno != EINTR)
            break;
        if (k <= 0)
            continue;
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0)
            keep(r, buf, (size_t)n);
        else if (n == 0 || errno != EINTR)
            break; /* end of its output (or of every process that held the pipe) */
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
    if (!r->out.s)
        strbuf_add(&r->out, "");
    if (r->out.failed)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory keeping the output of %s", argv[0]);
    return TV_OK;
}

void run_command_tail(const char *text, int lines, char *buf, size_t n)
{
    if (!n)
        return;
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t start = len;
    int seen = 0;
    while (start > 0) {
        if (text[start - 1] == '\n' && ++seen == lines)
            break;
        start--;
    }
    size_t take = len - start;
    if (take >= n) { /* keep the end: the last words are the error */
        start = len - (n - 1);
        take = n - 1;
    }
    memcpy(buf, text + start, take);
    buf[take] = '\0';
}
