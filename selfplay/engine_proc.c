/* engine_proc.c: an engine program on the other end of a socket pair
 * (engine_proc.h).
 *
 * A socket pair rather than two pipes: the harness writes with
 * send(MSG_NOSIGNAL), so an engine that dies never kills the harness with
 * SIGPIPE, and no process-wide signal disposition has to change. */
#define _GNU_SOURCE
#include "engine_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"

/* Lines the harness remembers for its error messages. */
#define TAIL_LINES 3
#define TAIL_CHARS 120

struct EngineProc {
    pid_t pid;        /* 0 once reaped */
    pid_t pgid;       /* its process group (= its first pid), 0 before start */
    int fd;           /* the harness's end of the socket pair */
    bool dead;        /* pipe closed or an answer missed: not usable */
    int wait_status;  /* waitpid's status once reaped */
    char label[80];
    char command[160];
    char name[128];
    UciOption *options;
    int noptions;
    char tail[TAIL_LINES][TAIL_CHARS];
    int ntail;
    size_t len;       /* bytes in buf */
    bool discarding;  /* the rest of an over-long line is being dropped */
    char exit_text[96];
    char buf[UCI_LINE_MAX + 4096];
};

int engine_proc_split(const char *command, char *buf, size_t n, char **argv, int max)
{
    int argc = 0;
    size_t o = 0;
    const char *s = command;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        if (argc >= max - 1)
            return -1;
        argv[argc++] = buf + o;
        while (*s && *s != ' ' && *s != '\t') {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                while (*s && *s != q) {
                    if (o + 1 >= n)
                        return -1;
                    buf[o++] = *s++;
                }
                if (*s != q)
                    return -1;
                s++;
            } else {
                if (o + 1 >= n)
                    return -1;
                buf[o++] = *s++;
            }
        }
        if (o + 1 >= n)
            return -1;
        buf[o++] = 0;
    }
    argv[argc] = NULL;
    return argc;
}

/* ---- lines in and out ---------------------------------------------------------- */

static void remember(EngineProc *p, const char *line)
{
    if (p->ntail == TAIL_LINES) {
        memmove(p->tail[0], p->tail[1], sizeof p->tail[0] * (TAIL_LINES - 1));
        p->ntail--;
    }
    char *d = p->tail[p->ntail++];
    size_t i = 0;
    for (; line[i] && i < TAIL_CHARS - 4; i++)
        d[i] = (unsigned char)line[i] >= 32 && (unsigned char)line[i] < 127 ? line[i] : '?';
    if (line[i])
        memcpy(d + i, "...", 3), i += 3;
    d[i] = 0;
}

/* "; it printed: 'a' 'b'" or "; it printed nothing". */
static void tail_text(const EngineProc *p, char *out, size_t n)
{
    if (!p->ntail) {
        snprintf(out, n, "; it printed nothing");
        return;
    }
    size_t o = (size_t)snprintf(out, n, "; its last line%s: ", p->ntail > 1 ? "s" : "");
    for (int i = 0; i < p->ntail && o < n; i++)
        o += (size_t)snprintf(out + o, n - o, "%s'%s'", i ? " " : "", p->tail[i]);
}

static void reap(EngineProc *p, int wait_ms)
{
    if (p->pid <= 0)
        return;
    for (int waited = 0;; waited += 5) {
        pid_t r = waitpid(p->pid, &p->wait_status, WNOHANG);
        if (r == p->pid || (r < 0 && errno != EINTR)) {
            p->pid = 0;
            return;
        }
        if (waited >= wait_ms)
            return;
        usleep(5000);
    }
}

const char *engine_proc_exit_text(EngineProc *p)
{
    reap(p, 200);
    if (p->pid > 0)
        return "still running";
    int s = p->wait_status;
    if (WIFEXITED(s))
        snprintf(p->exit_text, sizeof p->exit_text, "exited with status %d", WEXITSTATUS(s));
    else if (WIFSIGNALED(s))
        snprintf(p->exit_text, sizeof p->exit_text, "killed by signal %d (%s)", WTERMSIG(s), strsignal(WTERMSIG(s)));
    else
        snprintf(p->exit_text, sizeof p->exit_text, "ended");
    return p->exit_text;
}

/* Reads one line into line (at most n - 1 bytes; an over-long line is cut
 * there and its rest dropped).  1: a line; 0: deadline passed; -1: the
 * engine closed its end; -2: *abort_flag set. */
static int read_line(EngineProc *p, char *line, size_t n, double deadline, volatile sig_atomic_t *abort_flag)
{
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        if (nl || p->len >= UCI_LINE_MAX - 1) {
            size_t end = nl ? (size_t)(nl - p->buf) : p->len;
            bool was_discarding = p->discarding;
            size_t k = end < n - 1 ? end : n - 1;
            if (!was_discarding) {
                memcpy(line, p->buf, k);
                line[k] = 0;
                if (k && line[k - 1] == '\r')
                    line[k - 1] = 0;
            }
            size_t drop = nl ? end + 1 : p->len;
            memmove(p->buf, p->buf + drop, p->len - drop);
            p->len -= drop;
            p->discarding = !nl;
            if (was_discarding)
                continue;
            remember(p, line);
            return 1;
        }
        if (abort_flag && *abort_flag)
            return -2;
        int timeout = -1;
        if (deadline > 0) {
            double left = deadline - tv_now_seconds();
            if (left <= 0)
                return 0;
            timeout = (int)(left * 1000.0) + 1;
        }
        if (abort_flag && (timeout < 0 || timeout > 50))
            timeout = 50; /* Ctrl-C is seen within 50 ms */
        struct pollfd pfd = {p->fd, POLLIN, 0};
        int r = poll(&pfd, 1, timeout);
        if (r < 0 && errno != EINTR) {
            p->dead = true;
            return -1;
        }
        if (r <= 0)
            continue;
        ssize_t got = read(p->fd, p->buf + p->len, sizeof p->buf - p->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            p->dead = true;
            return -1;
        }
        p->len += (size_t)got;
    }
}

/* Sends text and a newline; false (and the engine dead) when it cannot be
 * written within 2 s. */
static bool send_line(EngineProc *p, const char *text)
{
    if (p->dead)
        return false;
    size_t n = strlen(text);
    char *msg = malloc(n + 1);
    if (!msg)
        return false;
    memcpy(msg, text, n);
    msg[n++] = '\n';
    size_t off = 0;
    double deadline = tv_now_seconds() + 2.0;
    while (off < n) {
        ssize_t w = send(p->fd, msg + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            double left = deadline - tv_now_seconds();
            struct pollfd pfd = {p->fd, POLLOUT, 0};
            if (left > 0 && poll(&pfd, 1, (int)(left * 1000) + 1) >= 0)
                continue;
        }
        p->dead = true;
        break;
    }
    free(msg);
    return !p->dead;
}

/* ---- start, handshake, options ---------------------------------------------- */

static TvStatus fail_engine(EngineProc *p, TvError *err, const char *what)
{
    char tail[TAIL_LINES * (TAIL_CHARS + 4) + 40];
    tail_text(p, tail, sizeof tail);
    return tv_fail(err, TV_ERR_IO, "engine '%s' (%s): %s%s", p->label, p->command, what, tail);
}

/* Reads until a line whose verb is `want`, within ENGINE_PROC_HANDSHAKE_MS;
 * during `uci`, id and option lines are kept. */
static TvStatus await(EngineProc *p, const char *want, const char *sent, TvError *err)
{
    char line[UCI_LINE_MAX];
    double deadline = tv_now_seconds() + ENGINE_PROC_HANDSHAKE_MS / 1000.0;
    for (;;) {
        int r = read_line(p, line, sizeof line, deadline, NULL);
        char what[200];
        if (r == 0) {
            p->dead = true;
            snprintf(what, sizeof what, "no '%s' within %d s of '%s'", want, ENGINE_PROC_HANDSHAKE_MS / 1000, sent);
            return fail_engine(p, err, what);
        }
        if (r < 0) {
            snprintf(what, sizeof what, "it ended before answering '%s' with '%s' (%s)", sent, want,
                     engine_proc_exit_text(p));
            return fail_engine(p, err, what);
        }
        char verb[32];
        const char *args = uci_verb(line, verb, sizeof verb);
        if (!strcmp(verb, want))
            return TV_OK;
        if (!strcmp(want, "uciok") && !strcmp(verb, "id")) {
            char w[16];
            const char *rest = uci_verb(args, w, sizeof w);
            if (!strcmp(w, "name"))
                snprintf(p->name, sizeof p->name, "%s", rest);
        } else if (!strcmp(want, "uciok") && !strcmp(verb, "option") && p->noptions < ENGINE_PROC_MAX_OPTIONS) {
            UciOption o;
            if (uci_option_parse(args, &o, NULL) == TV_OK)
                p->options[p->noptions++] = o;
        }
    }
}

static const UciOption *find_option(const EngineProc *p, const char *name)
{
    for (int i = 0; i < p->noptions; i++)
        if (!strcasecmp(p->options[i].name, name)) /* UCI option names are case-insensitive */
            return &p->options[i];
    return NULL;
}

static TvStatus set_option(EngineProc *p, const char *name, const char *value, TvError *err)
{
    StrBuf b = {0};
    uci_setoption_format(name, value, &b);
    bool ok = send_line(p, strbuf_str(&b));
    strbuf_free(&b);
    return ok ? TV_OK : fail_engine(p, err, "it closed its input while its options were set");
}

static TvStatus send_options(EngineProc *p, const EngineProcSpec *spec, TvError *err)
{
    for (int i = 0; spec->rules && i < TV_NRULE_OPTIONS; i++) {
        UciOption decl;
        uci_rule_option_decl(i, &decl);
        const char *value = uci_rule_option_value(spec->rules, i);
        const UciOption *have = find_option(p, decl.name);
        if (!have) {
            if (strcmp(value, decl.def))
                return tv_fail(err, TV_ERR_ARG,
                               "engine '%s' (%s) does not declare the rule option '%s', which this tournament sets "
                               "to %s: it cannot play these rules (docs/protocol.md, \"Rule options\")",
                               p->label, p->command, decl.name, value);
            continue;
        }
        TvError e;
        if (uci_option_check_value(have, value, &e) != TV_OK)
            return tv_fail(err, TV_ERR_ARG, "engine '%s' (%s): rule option '%s' = %s: %s", p->label, p->command,
                           decl.name, value, e.msg);
        if (set_option(p, have->name, value, err) != TV_OK)
            return err ? err->status : TV_ERR_IO;
    }
    for (int i = 0; i < spec->noptions; i++) {
        const UciOption *have = find_option(p, spec->option_names[i]);
        if (!have)
            return tv_fail(err, TV_ERR_ARG,
                           "engine '%s' (%s) has no option '%s' (option.%s in the tournament); it declares %d "
                           "option%s (see its answer to 'uci')",
                           p->label, p->command, spec->option_names[i], spec->option_names[i], p->noptions,
                           p->noptions == 1 ? "" : "s");
        TvError e;
        if (uci_option_check_value(have, spec->option_values[i], &e) != TV_OK)
            return tv_fail(err, TV_ERR_ARG, "engine '%s' (%s): option.%s = %s: %s", p->label, p->command,
                           spec->option_names[i], spec->option_values[i], e.msg);
        if (set_option(p, have->name, have->type == UCI_OPT_BUTTON ? NULL : spec->option_values[i], err) != TV_OK)
            return err ? err->status : TV_ERR_IO;
    }
    return TV_OK;
}

TvStatus engine_proc_start(const EngineProcSpec *spec, EngineProc **out, TvError *err)
{
    *out = NULL;
    char words[2048];
    char *argv[64];
    int argc = engine_proc_split(spec->command, words, sizeof words, argv, 64);
    if (argc <= 0)
        return tv_fail(err, TV_ERR_ARG, "engine '%s': command '%s' %s", spec->label, spec->command,
                       argc == 0 ? "is empty" : "has an unclosed quote or is too long (2047 bytes, 63 words)");
    EngineProc *p = calloc(1, sizeof *p);
    if (p)
        p->options = calloc(ENGINE_PROC_MAX_OPTIONS, sizeof *p->options);
    if (!p || !p->options) {
        if (p)
            free(p);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for engine '%s'", spec->label);
    }
    p->fd = -1;
    snprintf(p->label, sizeof p->label, "%s", spec->label);
    snprintf(p->command, sizeof p->command, "%s", spec->command);

    int sv[2] = {-1, -1}, ep[2] = {-1, -1}, errfd = -1;
    const char *errpath = spec->stderr_path && *spec->stderr_path ? spec->stderr_path : "/dev/null";
    errfd = open(errpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (errfd < 0) {
        int e = errno;
        engine_proc_close(p);
        return tv_fail(err, TV_ERR_IO, "engine '%s': cannot open its stderr file '%s': %s", spec->label, errpath,
                       strerror(e));
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (sv[i] >= 0)
                close(sv[i]);
            if (ep[i] >= 0)
                close(ep[i]);
        }
        close(errfd);
        engine_proc_close(p);
        return tv_fail(err, TV_ERR_IO, "engine '%s': cannot make its pipes: %s", spec->label, strerror(e));
    }
    const pid_t parent = getpid();
    const char *dir = spec->dir && *spec->dir ? spec->dir : NULL;
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(sv[1], 0);
        dup2(sv[1], 1);
        dup2(errfd, 2);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int stage = 0;
        if (dir && chdir(dir) != 0)
            stage = 1;
        else
            execvp(argv[0], argv);
        int msg[2] = {stage, errno};
        ssize_t w = write(ep[1], msg, sizeof msg);
        (void)w;
        _exit(127);
    }
    int fork_errno = errno;
    close(sv[1]);
    close(ep[1]);
    close(errfd);
    if (pid < 0) {
        close(sv[0]);
        close(ep[0]);
        engine_proc_close(p);
        return tv_fail(err, TV_ERR_IO, "engine '%s': cannot start a process: %s", spec->label, strerror(fork_errno));
    }
    setpgid(pid, pid); /* also here: no race with the child's own call */
    p->pid = p->pgid = pid;
    p->fd = sv[0];
    int msg[2];
    ssize_t got;
    do
        got = read(ep[0], msg, sizeof msg);
    while (got < 0 && errno == EINTR);
    close(ep[0]);
    if (got == (ssize_t)sizeof msg) {
        char what[700];
        if (msg[0] == 1)
            snprintf(what, sizeof what, "cannot change to its directory '%s': %s (dir = in the tournament)", dir,
                     strerror(msg[1]));
        else
            snprintf(what, sizeof what, "cannot run '%s'%s%s: %s (a program without '/' is looked up in PATH)",
                     argv[0], dir ? " from " : "", dir ? dir : "", strerror(msg[1]));
        reap(p, 1000);
        TvStatus s = tv_fail(err, TV_ERR_IO, "engine '%s': %s", spec->label, what);
        engine_proc_close(p);
        return s;
    }
    /* An engine that exits at once may be gone before `uci` is written: what
     * it printed and how it ended are still read (await) and told. */
    send_line(p, "uci");
    TvStatus st = await(p, "uciok", "uci", err);
    if (st == TV_OK)
        st = send_options(p, spec, err);
    if (st == TV_OK)
        st = send_line(p, "isready") ? await(p, "readyok", "isready", err)
                                     : fail_engine(p, err, "it closed its input after its options were set");
    if (st != TV_OK) {
        engine_proc_close(p);
        return st;
    }
    *out = p;
    return TV_OK;
}

const char *engine_proc_name(const EngineProc *p) { return p->name; }
int engine_proc_option_count(const EngineProc *p) { return p->noptions; }
const UciOption *engine_proc_option(const EngineProc *p, int i) { return &p->options[i]; }
bool engine_proc_alive(const EngineProc *p) { return p && !p->dead; }

TvStatus engine_proc_new_game(EngineProc *p, TvError *err)
{
    if (!send_line(p, "ucinewgame") || !send_line(p, "isready"))
        return fail_engine(p, err, "it closed its input before a new game");
    return await(p, "readyok", "ucinewgame' and 'isready", err);
}

/* ---- moves ------------------------------------------------------------------- */

EngineMoveStatus engine_proc_go(EngineProc *p, const char *start_tfen, const char *const *moves, int nmoves,
                                const UciGo *go, double deadline_s, volatile sig_atomic_t *abort_flag,
                                EngineMove *out)
{
    memset(out, 0, sizeof *out);
    uci_info_init(&out->info);
    StrBuf b = {0};
    uci_position_format(start_tfen, moves, nmoves, &b);
    bool ok = send_line(p, strbuf_str(&b));
    strbuf_free(&b);
    uci_go_format(go, &b);
    ok = ok && send_line(p, strbuf_str(&b));
    strbuf_free(&b);
    const double t0 = tv_now_seconds();
    if (!ok)
        return ENGINE_MOVE_DIED;
    char line[UCI_LINE_MAX];
    for (;;) {
        int r = read_line(p, line, sizeof line, deadline_s, abort_flag);
        out->seconds = tv_now_seconds() - t0;
        if (r == 0)
            return ENGINE_MOVE_LATE;
        if (r == -1)
            return ENGINE_MOVE_DIED;
        if (r == -2)
            return ENGINE_MOVE_ABORTED;
        char verb[32];
        const char *args = uci_verb(line, verb, sizeof verb);
        if (!strcmp(verb, "info")) {
            UciInfo info;
            uci_info_init(&info);
            uci_info_parse(args, &info);
            if (info.has_score)
                out->info = info;
        } else if (!strcmp(verb, "bestmove")) {
            return uci_bestmove_parse(args, out->move, sizeof out->move) ? ENGINE_MOVE_OK : ENGINE_MOVE_NOMOVE;
        }
    }
}

bool engine_proc_stop(EngineProc *p, int wait_ms)
{
    if (!send_line(p, "stop"))
        return false;
    char line[UCI_LINE_MAX];
    double deadline = tv_now_seconds() + wait_ms / 1000.0;
    for (;;) {
        int r = read_line(p, line, sizeof line, deadline, NULL);
        if (r != 1) {
            p->dead = true;
            return false;
        }
        char verb[32];
        uci_verb(line, verb, sizeof verb);
        if (!strcmp(verb, "bestmove"))
            return true;
    }
}

void engine_proc_close(EngineProc *p)
{
    if (!p)
        return;
    if (p->pid > 0 && !p->dead)
        send_line(p, "quit");
    reap(p, p->dead ? 0 : 100);
    /* the whole group, also when the engine itself has ended: an engine
     * started through a script leaves no child behind */
    if (p->pgid > 0)
        kill(-p->pgid, SIGKILL);
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, &p->wait_status, 0) < 0 && errno == EINTR)
            ;
        p->pid = 0;
    }
    if (p->fd >= 0)
        close(p->fd);
    free(p->options);
    free(p);
}
