/* engine_proc.c: an engine program under a guard process, on pipes
 * (engine_proc.h).
 *
 * The engine's stdin is a socket (the harness writes with
 * send(MSG_NOSIGNAL), so an engine that dies never kills the harness with
 * SIGPIPE, and no process-wide signal disposition has to change); its
 * stdout and stderr are two pipes, so an engine that closes its stdout is
 * seen at once, and its stderr lines reach the harness (kept for errors,
 * written to their log).
 *
 * Each program runs under a guard process of its own (engine_guard.c):
 * the harness watches that one process, whose end means "the engine and
 * all it started are gone", and reaps only the guards it started. */
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_guard.h"
#include "option.h"
#include "strbuf.h"

/* Lines the harness remembers for its error messages, of stdout and of
 * stderr each. */
#define TAIL_LINES 3
#define TAIL_CHARS 120

/* How long the harness waits, after the guard has ended, for the last
 * bytes of the engine's stdout (the guard has killed every writer by then:
 * the end of file comes at once; this bounds a pipe still held by a
 * process outside the guard's reach). */
#define EXIT_DRAIN_MS 200

/* The last lines of one stream. */
typedef struct {
    char line[TAIL_LINES][TAIL_CHARS];
    int n;
} Tail;

/* A stream read line by line (the engine's stdout or stderr). */
typedef struct {
    int fd;          /* -1 once closed (or never opened) */
    bool eof;
    bool discarding; /* the rest of an over-long line is being dropped */
    size_t start;    /* the first unread byte in buf */
    size_t len;      /* unread bytes, from buf + start */
    char buf[UCI_LINE_MAX + 4096];
} Stream;

struct EngineProc {
    pid_t pid;        /* the guard (the harness's child); 0 once reaped */
    pid_t engine;     /* the engine program, leader of its process group; 0 before start */
    int pidfd;        /* the guard's pidfd (-1 when the kernel has none) */
    int in_fd;        /* the harness's end of the engine's stdin */
    bool exited;      /* the guard has ended (seen through the pidfd or waitpid) */
    double exited_at; /* when that was seen */
    bool dead;        /* output closed, process ended or an answer missed: not usable */
    int wait_status;  /* the guard's status once reaped (the engine's, mirrored) */
    int stderr_fd;    /* its stderr lines are appended here (-1: not kept beyond the tail) */
    int log_fd;       /* the protocol log (-1: none) */
    int64_t cap;      /* spec->log_cap */
    int64_t cut[2];   /* bytes not written past the cap: [0] the stderr file, [1] the protocol log */
    Tail last[2];     /* ... and the last of those lines */
    char label[80];
    char command[160];
    char name[128];   /* its id name and id author ("" until given) */
    char author[128];
    UciOption *options;
    int noptions;
    Tail tail_out, tail_err;
    char exit_text[96];
    Stream out, err;
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

/* ---- logs and the lines remembered -------------------------------------------- */

static void remember(Tail *t, const char *line);

/* Appends line (n bytes, its last a newline) to file k, 0 the stderr
 * file, 1 the protocol log, in one write of an O_APPEND file: lines of
 * several engines on several threads never mix.  Once the file holds the
 * cap (or would with this line), nothing more of this process is written:
 * it is counted, its last lines kept, and both said at the end
 * (cap_note). */
static void capped_write(EngineProc *p, int k, char *buf, size_t n)
{
    const int fd = k ? p->log_fd : p->stderr_fd;
    struct stat st;
    if (fd < 0)
        return;
    if (p->cut[k] > 0 || (p->cap > 0 && fstat(fd, &st) == 0 && st.st_size + (off_t)n > p->cap)) {
        p->cut[k] += (int64_t)n;
        buf[n - 1] = '\0'; /* the line without its newline, for the last lines kept */
        remember(&p->last[k], buf);
        buf[n - 1] = '\n';
        return;
    }
    ssize_t w = write(fd, buf, n);
    (void)w;
}

/* One line of the protocol log: "HH:MM:SS.mmm LABEL#PID DIR TEXT", DIR '>'
 * to the engine, '<' from it, '!' its stderr, '*' the harness's notes. */
static void log_line(EngineProc *p, char dir, const char *text, size_t n)
{
    if (p->log_fd < 0)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    StrBuf b = {0};
    strbuf_addf(&b, "%02d:%02d:%02d.%03ld %s#%d %c ", tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                p->label, (int)p->engine, dir);
    strbuf_add_n(&b, text, n);
    strbuf_add(&b, "\n");
    if (!b.failed)
        capped_write(p, 1, b.s, b.len);
    strbuf_free(&b);
}

/* At the end of a process whose lines were cut at the cap: how many bytes,
 * and its last lines, written to the file past the cap (once). */
static void cap_note(EngineProc *p, int k)
{
    const int fd = k ? p->log_fd : p->stderr_fd;
    if (fd < 0 || p->cut[k] == 0)
        return;
    StrBuf b = {0};
    strbuf_addf(&b, "[tavreli: %lld bytes of %s#%d cut here: this %s had reached its cap of %lld bytes (log_cap); "
                    "the process's last lines follow]\n",
                (long long)p->cut[k], p->label, (int)p->engine, k ? "protocol log" : "stderr file", (long long)p->cap);
    for (int i = 0; i < p->last[k].n; i++)
        strbuf_addf(&b, "%s\n", p->last[k].line[i]);
    if (!b.failed) {
        ssize_t w = write(fd, b.s, b.len);
        (void)w;
    }
    strbuf_free(&b);
}

static void remember(Tail *t, const char *line)
{
    if (t->n == TAIL_LINES) {
        memmove(t->line[0], t->line[1], sizeof t->line[0] * (TAIL_LINES - 1));
        t->n--;
    }
    char *d = t->line[t->n++];
    size_t i = 0;
    for (; line[i] && i < TAIL_CHARS - 4; i++)
        d[i] = (unsigned char)line[i] >= 32 && (unsigned char)line[i] < 127 ? line[i] : '?';
    if (line[i])
        memcpy(d + i, "...", 3), i += 3;
    d[i] = 0;
}

/* "; its last lines: 'a' 'b'; on stderr: 'c'" or "; it printed nothing". */
static void tail_text(const EngineProc *p, char *out, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    const Tail *t[2] = {&p->tail_out, &p->tail_err};
    for (int k = 0; k < 2; k++) {
        if (!t[k]->n)
            continue;
        o += (size_t)snprintf(out + o, n - o, "; %s line%s: ", k ? "its last stderr" : "its last",
                              t[k]->n > 1 ? "s" : "");
        for (int i = 0; i < t[k]->n && o < n; i++)
            o += (size_t)snprintf(out + o, n - o, "%s'%s'", i ? " " : "", t[k]->line[i]);
        if (o >= n)
            return;
    }
    if (!o)
        snprintf(out, n, "; it printed nothing");
}

/* ---- reading: stdout lines, stderr lines, the guard's end -------------------- */

/* Reads what the stream has (without blocking).  False at its end. */
static bool stream_fill(Stream *s)
{
    /* The unread bytes move to the front once a fill, when the end is
     * reached, not once a line taken: an engine's burst of short lines
     * (a search's info lines) moved the buffer's whole rest per line. */
    if (s->start && s->start + s->len == sizeof s->buf) {
        memmove(s->buf, s->buf + s->start, s->len);
        s->start = 0;
    }
    while (s->fd >= 0 && s->start + s->len < sizeof s->buf) {
        ssize_t got = read(s->fd, s->buf + s->start + s->len, sizeof s->buf - s->start - s->len);
        if (got > 0) {
            s->len += (size_t)got;
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return true;
        close(s->fd);
        s->fd = -1;
        s->eof = true;
    }
    return !s->eof;
}

/* Takes one line out of s (at most n - 1 bytes; an over-long line is cut
 * there and its rest dropped; at the stream's end, the unfinished rest is a
 * line).  False when no whole line is there yet. */
static bool stream_line(Stream *s, char *line, size_t n)
{
    for (;;) {
        char *data = s->buf + s->start;
        char *nl = memchr(data, '\n', s->len);
        if (!nl && s->len < UCI_LINE_MAX - 1 && !(s->eof && s->len))
            return false;
        size_t end = nl ? (size_t)(nl - data) : s->len;
        bool was_discarding = s->discarding;
        size_t k = end < n - 1 ? end : n - 1;
        if (!was_discarding) {
            memcpy(line, data, k);
            line[k] = 0;
            if (k && line[k - 1] == '\r')
                line[k - 1] = 0;
        }
        size_t drop = nl ? end + 1 : s->len;
        s->start = drop == s->len ? 0 : s->start + drop;
        s->len -= drop;
        s->discarding = !nl && !s->eof;
        if (!was_discarding)
            return true;
    }
}

/* The engine's stderr: every whole line to the tail, the stderr file and
 * the protocol log. */
static void take_stderr(EngineProc *p)
{
    stream_fill(&p->err);
    char line[UCI_LINE_MAX];
    while (stream_line(&p->err, line, sizeof line - 1)) {
        remember(&p->tail_err, line);
        log_line(p, '!', line, strlen(line));
        if (p->stderr_fd >= 0) {
            size_t n = strlen(line);
            line[n] = '\n';
            capped_write(p, 0, line, n + 1);
        }
    }
}

/* Whether the guard has ended (reaping it then). */
static bool guard_ended(EngineProc *p)
{
    if (p->pid <= 0)
        return true;
    pid_t r = waitpid(p->pid, &p->wait_status, WNOHANG);
    if (r == p->pid || (r < 0 && errno == ECHILD)) {
        p->pid = 0;
        return true;
    }
    return false;
}

/* Waits up to timeout_ms (-1: without end) for output or the guard's end,
 * and takes what came. */
static void wait_io(EngineProc *p, int timeout_ms)
{
    struct pollfd pfd[3];
    int n = 0, ipid = -1;
    if (p->out.fd >= 0)
        pfd[n++] = (struct pollfd){p->out.fd, POLLIN, 0};
    if (p->err.fd >= 0)
        pfd[n++] = (struct pollfd){p->err.fd, POLLIN, 0};
    if (p->pidfd >= 0 && !p->exited)
        ipid = n, pfd[n++] = (struct pollfd){p->pidfd, POLLIN, 0};
    /* without a pidfd the guard is looked at every 20 ms; once it has ended,
     * the rest of its output is awaited only as long as EXIT_DRAIN_MS */
    if ((p->pidfd < 0 || p->exited) && (timeout_ms < 0 || timeout_ms > 20))
        timeout_ms = 20;
    int r = poll(pfd, (nfds_t)n, timeout_ms);
    if (r < 0 && errno != EINTR) {
        p->exited = true;
        return;
    }
    if (p->err.fd >= 0)
        take_stderr(p);
    stream_fill(&p->out);
    if (!p->exited && ((ipid >= 0 && pfd[ipid].revents) || (p->pidfd < 0 && guard_ended(p)))) {
        p->exited = true;
        p->exited_at = tv_now_seconds();
    }
}

/* Takes the next stdout line already read into line (at most n - 1
 * bytes), remembered and logged; false when there is none yet. */
static bool take_line(EngineProc *p, char *line, size_t n)
{
    if (!stream_line(&p->out, line, n))
        return false;
    remember(&p->tail_out, line);
    log_line(p, '<', line, strlen(line));
    return true;
}

/* Reads one stdout line into line (at most n - 1 bytes).  1: a line; 0:
 * deadline passed; -1: the engine closed its output or ended (after every
 * line it wrote was read); -2: a flag of stop (may be NULL) set. */
static int read_line(EngineProc *p, char *line, size_t n, double deadline, const StopFlags *stop)
{
    for (;;) {
        if (take_line(p, line, n))
            return 1;
        if (p->out.eof || (p->exited && tv_now_seconds() - p->exited_at > EXIT_DRAIN_MS / 1000.0)) {
            p->dead = true;
            return -1;
        }
        if (stop_flags_set(stop))
            return -2;
        int timeout = -1;
        if (deadline > 0) {
            double left = deadline - tv_now_seconds();
            if (left <= 0)
                return 0;
            timeout = (int)(left * 1000.0) + 1;
        }
        if (stop && (timeout < 0 || timeout > 50))
            timeout = 50; /* Ctrl-C is seen within 50 ms */
        wait_io(p, timeout);
    }
}

/* Sends text and a newline; false (and the engine dead) when it cannot be
 * written within 2 s. */
static bool send_line(EngineProc *p, const char *text)
{
    if (p->dead)
        return false;
    size_t n = strlen(text);
    log_line(p, '>', text, n);
    char *msg = malloc(n + 1);
    if (!msg)
        return false;
    memcpy(msg, text, n);
    msg[n++] = '\n';
    size_t off = 0;
    double deadline = tv_now_seconds() + 2.0;
    while (off < n) {
        ssize_t w = send(p->in_fd, msg + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            double left = deadline - tv_now_seconds();
            struct pollfd pfd = {p->in_fd, POLLOUT, 0};
            if (left > 0 && poll(&pfd, 1, (int)(left * 1000) + 1) >= 0)
                continue;
        }
        p->dead = true;
        break;
    }
    free(msg);
    return !p->dead;
}

/* Waits up to wait_ms for the guard to end and reaps it. */
static void reap(EngineProc *p, int wait_ms)
{
    for (int waited = 0; !guard_ended(p) && waited < wait_ms; waited += 5)
        usleep(5000);
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

/* Takes the stderr lines written so far, waiting up to wait_ms for its end
 * (an engine that has ended has written them all). */
static void collect_stderr(EngineProc *p, int wait_ms)
{
    double until = tv_now_seconds() + wait_ms / 1000.0;
    while (p->err.fd >= 0) {
        take_stderr(p);
        double left = until - tv_now_seconds();
        if (p->err.fd < 0 || left <= 0)
            break;
        struct pollfd pfd = {p->err.fd, POLLIN, 0};
        poll(&pfd, 1, (int)(left * 1000) + 1);
    }
    if (p->err.eof && p->err.len) /* an unfinished last line */
        take_stderr(p);
}

/* ---- start, handshake, options ---------------------------------------------- */

static TvStatus fail_engine(EngineProc *p, TvError *err, const char *what)
{
    collect_stderr(p, p->exited || p->out.eof ? 200 : 0);
    char tail[2 * TAIL_LINES * (TAIL_CHARS + 4) + 80];
    tail_text(p, tail, sizeof tail);
    log_line(p, '*', what, strlen(what));
    return tv_fail(err, TV_ERR_IO, "engine '%s' (%s): %s%s", p->label, p->command, what, tail);
}

/* Reads until a line whose verb is `want`, within timeout_ms (or until a
 * flag of stop, which may be NULL, is set: -2); during `uci`, id
 * and option lines are kept, and every other line is passed over (a stray
 * bestmove among them).  0: it came; -1: no answer in time, -2: aborted,
 * -3: the engine ended. */
static int await_line(EngineProc *p, const char *want, const StopFlags *stop, int timeout_ms)
{
    char line[UCI_LINE_MAX];
    double deadline = tv_now_seconds() + timeout_ms / 1000.0;
    for (;;) {
        int r = read_line(p, line, sizeof line, deadline, stop);
        if (r == 0) {
            p->dead = true;
            return -1;
        }
        if (r == -2)
            return -2;
        if (r < 0)
            return -3;
        char verb[32];
        const char *args = uci_verb(line, verb, sizeof verb);
        if (!strcmp(verb, want))
            return 0;
        if (!strcmp(want, "uciok") && !strcmp(verb, "id")) {
            char w[16];
            const char *rest = uci_verb(args, w, sizeof w);
            if (!strcmp(w, "name"))
                snprintf(p->name, sizeof p->name, "%s", rest);
            else if (!strcmp(w, "author"))
                snprintf(p->author, sizeof p->author, "%s", rest);
        } else if (!strcmp(want, "uciok") && !strcmp(verb, "option") && p->noptions < ENGINE_PROC_MAX_OPTIONS) {
            UciOption o;
            if (uci_option_parse(args, &o, NULL) == TV_OK)
                p->options[p->noptions++] = o;
        } else if (!strcmp(verb, "bestmove")) {
            static const char note[] = "(a bestmove that answers no go: passed over)";
            log_line(p, '*', note, sizeof note - 1);
        }
    }
}

/* await_line as an error: what was sent, and what went wrong. */
static TvStatus await(EngineProc *p, const char *want, const char *sent, int timeout_ms, TvError *err)
{
    int r = await_line(p, want, NULL, timeout_ms);
    if (r == 0)
        return TV_OK;
    char what[200];
    if (r == -1)
        snprintf(what, sizeof what, "no '%s' within %g s of '%s'%s", want, timeout_ms / 1000.0, sent,
                 timeout_ms == ENGINE_PROC_HANDSHAKE_MS ? "" : " (its start_timeout)");
    else
        snprintf(what, sizeof what, "it ended before answering '%s' with '%s' (%s)", sent, want,
                 engine_proc_exit_text(p));
    return fail_engine(p, err, what);
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
        /* a check takes every boolean spelling (tv_parse_bool), sent as the protocol's true/false */
        const char *value = spec->option_values[i];
        int b;
        if (have->type == UCI_OPT_CHECK && tv_parse_bool(value, &b))
            value = option_bool_text(b, OPTION_SPELL_PROTOCOL);
        TvError e;
        if (uci_option_check_value(have, value, &e) != TV_OK)
            return tv_fail(err, TV_ERR_ARG, "engine '%s' (%s): option.%s = %s: %s", p->label, p->command,
                           spec->option_names[i], spec->option_values[i], e.msg);
        if (set_option(p, have->name, have->type == UCI_OPT_BUTTON ? NULL : value, err) != TV_OK)
            return err ? err->status : TV_ERR_IO;
    }
    return TV_OK;
}

/* Opens a file to append to, for the engine's stderr or the protocol log. */
/* Opens path for appending; *created: whether this call made the file (a
 * start that fails removes it again while it is empty). */
static TvStatus open_append(const EngineProcSpec *spec, const char *path, const char *what, int *fd, bool *created,
                            TvError *err)
{
    *fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    *created = false;
    if (*fd < 0 && errno == ENOENT) {
        *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        *created = *fd >= 0;
        if (*fd < 0 && errno == EEXIST) /* made meanwhile by another start */
            *fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    }
    if (*fd < 0)
        return tv_fail(err, TV_ERR_IO, "engine '%s': cannot open its %s '%s': %s", spec->label, what, path,
                       strerror(errno));
    return TV_OK;
}

/* A start that failed: the stderr file and protocol log it made are removed
 * while nothing was written to them (an empty .log beside the store said
 * nothing but that a start was tried). */
static void drop_made_files(const EngineProcSpec *spec, const EngineProc *p, bool made_err, bool made_log)
{
    struct stat sb;
    if (made_err && p->stderr_fd >= 0 && fstat(p->stderr_fd, &sb) == 0 && sb.st_size == 0)
        unlink(spec->stderr_path);
    if (made_log && p->log_fd >= 0 && fstat(p->log_fd, &sb) == 0 && sb.st_size == 0)
        unlink(spec->log_path);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Why the guard or the engine could not start, from its report. */
static void start_error(const GuardReport *r, const char *dir, const char *prog, char *what, size_t n)
{
    if (r->kind == GUARD_REPORT_CHDIR)
        snprintf(what, n, "cannot change to its directory '%s': %s (dir = in the tournament)", dir, strerror(r->value));
    else if (r->kind == GUARD_REPORT_EXEC)
        snprintf(what, n, "cannot run '%s'%s%s: %s (a program without '/' is looked up in PATH)", prog,
                 dir ? " from " : "", dir ? dir : "", strerror(r->value));
    else
        snprintf(what, n, "cannot start its guard process (/proc/self/exe): %s", strerror(r->value));
}

TvStatus engine_proc_start(const EngineProcSpec *spec, EngineProc **out, TvError *err)
{
    *out = NULL;
    char words[2048];
    char *argv[64 + ENGINE_GUARD_ARGS];
    int argc = engine_proc_split(spec->command, words, sizeof words, argv + ENGINE_GUARD_ARGS, 64);
    if (argc <= 0)
        return tv_fail(err, TV_ERR_ARG, "engine '%s': command '%s' %s", spec->label, spec->command,
                       argc == 0 ? "is empty" : "has an unclosed quote or is too long (2047 bytes, 63 words)");
    /* A relative program with a '/' names a file from the harness's working
     * directory (the tournament reader made it relative to the INI's folder);
     * the engine runs in dir, so it is made absolute before the chdir. */
    char prog[4096];
    if (spec->dir && *spec->dir && argv[3][0] != '/' && strchr(argv[3], '/')) {
        if (!getcwd(prog, sizeof prog))
            return tv_fail(err, TV_ERR_IO, "engine '%s': cannot read the working directory: %s", spec->label,
                           strerror(errno));
        size_t len = strlen(prog);
        if ((size_t)snprintf(prog + len, sizeof prog - len, "/%s", argv[3]) >= sizeof prog - len)
            return tv_fail(err, TV_ERR_ARG, "engine '%s': the program's path '%s' is too long", spec->label,
                           argv[3]);
        argv[3] = prog;
    }
    EngineProc *p = calloc(1, sizeof *p);
    if (p)
        p->options = calloc(ENGINE_PROC_MAX_OPTIONS, sizeof *p->options);
    if (!p || !p->options) {
        if (p)
            free(p);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for engine '%s'", spec->label);
    }
    p->in_fd = p->out.fd = p->err.fd = p->pidfd = p->stderr_fd = p->log_fd = -1;
    p->cap = spec->log_cap;
    snprintf(p->label, sizeof p->label, "%s", spec->label);
    snprintf(p->command, sizeof p->command, "%s", spec->command);
    const bool inherit = spec->stderr_path && !strcmp(spec->stderr_path, ENGINE_PROC_STDERR_INHERIT);
    if (inherit) /* its lines pass through the harness, which keeps the last ones */
        p->stderr_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    bool made_err = false, made_log = false;
    if ((!inherit && spec->stderr_path && *spec->stderr_path &&
         open_append(spec, spec->stderr_path, "stderr file", &p->stderr_fd, &made_err, err) != TV_OK) ||
        (spec->log_path && *spec->log_path &&
         open_append(spec, spec->log_path, "protocol log", &p->log_fd, &made_log, err) != TV_OK)) {
        drop_made_files(spec, p, made_err, made_log);
        engine_proc_close(p);
        return err ? err->status : TV_ERR_IO;
    }

    /* [0] the harness's end, [1] the child's: stdin, stdout, stderr, reports */
    int in[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
    bool made = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) == 0 && pipe2(outp, O_CLOEXEC) == 0 &&
                pipe2(errp, O_CLOEXEC) == 0 && pipe2(rep, O_CLOEXEC) == 0;
    int make_errno = errno;
    /* the guard's arguments, made before fork (the child only calls
     * async-signal-safe functions) */
    const pid_t parent = getpid();
    char parent_text[24];
    engine_guard_argv(parent, argv, parent_text, sizeof parent_text);
    const char *dir = spec->dir && *spec->dir ? spec->dir : NULL;
    pid_t pid = made ? fork() : -1;
    if (pid == 0)
        engine_guard_exec(parent, in[1], outp[1], errp[1], rep[1], dir, argv);
    int fork_errno = errno;
    close_fd(&in[1]);
    close_fd(&outp[1]);
    close_fd(&errp[1]);
    close_fd(&rep[1]);
    p->in_fd = in[0];
    p->out.fd = outp[0];
    p->err.fd = errp[0];
    if (!made || pid < 0) {
        close_fd(&rep[0]);
        drop_made_files(spec, p, made_err, made_log);
        engine_proc_close(p);
        return tv_fail(err, TV_ERR_IO, "engine '%s': cannot %s: %s", spec->label,
                       made ? "start a process" : "make its pipes", strerror(made ? fork_errno : make_errno));
    }
    setpgid(pid, pid);
    p->pid = pid;
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    fcntl(p->out.fd, F_SETFL, O_NONBLOCK);
    fcntl(p->err.fd, F_SETFL, O_NONBLOCK);
    /* the reports, until every writer has closed: the engine's pid, or why
     * it could not start */
    GuardReport bad = {0, 0}, r;
    ssize_t got;
    while ((got = read(rep[0], &r, sizeof r)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof r)
            break;
        if (r.kind == GUARD_REPORT_PID)
            p->engine = r.value;
        else
            bad = r;
    }
    close_fd(&rep[0]);
    if (bad.kind) {
        char what[700];
        start_error(&bad, dir, argv[ENGINE_GUARD_ARGS], what, sizeof what);
        TvStatus s = tv_fail(err, TV_ERR_IO, "engine '%s': %s", spec->label, what);
        drop_made_files(spec, p, made_err, made_log);
        engine_proc_close(p);
        return s;
    }
    log_line(p, '*', spec->command, strlen(spec->command));
    /* An engine that exits at once may be gone before `uci` is written: what
     * it printed and how it ended are still read (await) and told. */
    send_line(p, "uci");
    const int start_ms = spec->start_timeout_ms > 0 ? spec->start_timeout_ms : ENGINE_PROC_HANDSHAKE_MS;
    TvStatus st = await(p, "uciok", "uci", start_ms, err);
    if (st == TV_OK)
        st = send_options(p, spec, err);
    if (st == TV_OK)
        st = send_line(p, "isready") ? await(p, "readyok", "isready", start_ms, err)
                                     : fail_engine(p, err, "it closed its input after its options were set");
    if (st != TV_OK) {
        engine_proc_close(p);
        return st;
    }
    *out = p;
    return TV_OK;
}

const char *engine_proc_name(const EngineProc *p) { return p->name; }

const char *engine_proc_author(const EngineProc *p) { return p->author; }
int engine_proc_option_count(const EngineProc *p) { return p->noptions; }
const UciOption *engine_proc_option(const EngineProc *p, int i) { return &p->options[i]; }
bool engine_proc_alive(const EngineProc *p) { return p && !p->dead; }

TvStatus engine_proc_new_game(EngineProc *p, TvError *err)
{
    if (send_line(p, "ucinewgame") && send_line(p, "isready")) {
        const int r = await_line(p, "readyok", NULL, ENGINE_PROC_HANDSHAKE_MS);
        if (r == 0)
            return TV_OK;
        if (r == -1) {
            char what[200];
            snprintf(what, sizeof what, "no 'readyok' within %d s of 'ucinewgame' and 'isready' (the limit of a "
                                        "handshake)", ENGINE_PROC_HANDSHAKE_MS / 1000);
            return fail_engine(p, err, what);
        }
    }
    /* Its input closed as 'ucinewgame' was written, or its output before the
     * 'readyok': one event (which comes first is a race), said one way, with
     * the cause the process gives. */
    char what[200];
    const char *exit_text = engine_proc_exit_text(p);
    snprintf(what, sizeof what, "it %s at a new game, before its 'readyok' ('ucinewgame', 'isready'): %s",
             strcmp(exit_text, "still running") ? "ended" : "closed its input", exit_text);
    return fail_engine(p, err, what);
}

/* ---- moves ------------------------------------------------------------------- */

EngineMoveStatus engine_proc_go(EngineProc *p, const char *start_tfen, const char *const *moves, int nmoves,
                                const UciGo *go, double limit_s, const StopFlags *stop,
                                EngineMove *out)
{
    memset(out, 0, sizeof *out);
    uci_info_init(&out->info);
    StrBuf b = {0};
    uci_position_format(start_tfen, moves, nmoves, &b);
    bool ok = send_line(p, strbuf_str(&b));
    strbuf_free(&b);
    /* Everything the engine said before its readyok answers something
     * earlier (a late or repeated bestmove, one nobody asked for): it is
     * passed over, never taken for the answer to this go. */
    const double asked = tv_now_seconds();
    ok = ok && send_line(p, "isready");
    if (!ok)
        return ENGINE_MOVE_DIED;
    int ready = await_line(p, "readyok", stop, ENGINE_PROC_HANDSHAKE_MS);
    out->ready_seconds = tv_now_seconds() - asked;
    if (ready == -2)
        return ENGINE_MOVE_ABORTED;
    if (ready == -1)
        return ENGINE_MOVE_UNREADY;
    if (ready < 0)
        return ENGINE_MOVE_DIED;
    /* What it wrote after its readyok and before this go (already
     * readable now) answers nothing this go asks: logged, passed over. */
    char early[UCI_LINE_MAX];
    do
        wait_io(p, 0);
    while (take_line(p, early, sizeof early));
    uci_go_format(go, &b);
    ok = send_line(p, strbuf_str(&b));
    strbuf_free(&b);
    const double t0 = tv_now_seconds();
    const double deadline_s = limit_s > 0 ? t0 + limit_s : 0;
    if (!ok)
        return ENGINE_MOVE_DIED;
    char line[UCI_LINE_MAX];
    for (;;) {
        int r = read_line(p, line, sizeof line, deadline_s, stop);
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
    if (p->pid > 0) { /* the guard ends the engine and all it started, then itself */
        kill(p->pid, SIGTERM);
        reap(p, 2000);
    }
    if (p->pid > 0) { /* a guard that did not end: what it guards, then the guard */
        if (p->engine > 0)
            kill(-p->engine, SIGKILL);
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, &p->wait_status, 0) < 0 && errno == EINTR)
            ;
        p->pid = 0;
    }
    collect_stderr(p, 0);
    if (p->err.len) { /* an unfinished last line */
        p->err.eof = true;
        take_stderr(p);
    }
    log_line(p, '*', "closed", 6);
    cap_note(p, 0);
    cap_note(p, 1);
    close_fd(&p->in_fd);
    close_fd(&p->out.fd);
    close_fd(&p->err.fd);
    close_fd(&p->pidfd);
    close_fd(&p->stderr_fd);
    close_fd(&p->log_fd);
    free(p->options);
    free(p);
}
