#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE /* mkdtemp, realpath */
/* serve.c: the HTTP side of `tavreli serve` (serve.h): libmicrohttpd, the
 * routes, the pages built into the program, the files of runs, and the
 * server's cache of reports.  docs/serve.md lists the routes. */
#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ladder.h"
#include "report.h"
#include "serve_assets.h"
#include "serve_internal.h"
#include "spsa_report.h"
#include "train.h"

/* A run's report is made again when its store changed and the last one is
 * older than this: a report of a 2,000-game store takes about 0.4 s here
 * (gnuplot included), so a page left open on a running tournament costs at
 * most 3% of a core. */
#define SERVE_REPORT_AGE 15
/* Files of runs (logs, a report's plots) are served up to this size: a
 * store (.h5) is data for the pages, not a download here. */
#define SERVE_FILE_MAX (64 * 1024 * 1024)
/* Seconds a client may stay silent before its connection is closed, and the
 * memory one connection may hold while its request is read. */
#define SERVE_CONNECTION_TIMEOUT 30
#define SERVE_CONNECTION_MEMORY (64 * 1024)

struct ReportCache {
    char id[PATH_MAX];
    FileSig sig;
    time_t made;
    int n; /* the folder's number under cache/ */
};

void serve_options_default(ServeOptions *o)
{
    o->dir = "results";
    o->bind = "127.0.0.1";
    o->port = 8080;
    o->threads = 4;
    o->max_connections = 64;
}

/* ---- responses ----------------------------------------------------------------- */

/* Queues r with the headers every answer has, and lets it go. */
static enum MHD_Result queue(struct MHD_Connection *c, unsigned code, const char *type, struct MHD_Response *r)
{
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    /* the pages load nothing from elsewhere, and may not be framed by another site */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                            "script-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'self'");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

/* A body that lives as long as the program (a page built into it). */
static enum MHD_Result respond_static(struct MHD_Connection *c, unsigned code, const char *type, const void *body,
                                      size_t len)
{
    return queue(c, code, type, MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_PERSISTENT));
}

/* A heap buffer handed to libmicrohttpd, which frees it. */
static enum MHD_Result respond_take(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                                    size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r)
        free(body);
    return queue(c, code, type, r);
}

/* An error as JSON for /api/ routes, as text otherwise: what was refused and why. */
static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned code, bool json, const char *msg)
{
    StrBuf b = {0};
    if (json) {
        strbuf_add(&b, "{\"error\": ");
        strbuf_add_json_string(&b, msg);
        strbuf_add(&b, "}\n");
    } else {
        strbuf_addf(&b, "%u: %s\n", code, msg);
    }
    size_t len = b.len;
    char *s = strbuf_take(&b);
    if (!s)
        return MHD_NO;
    return respond_take(c, code, json ? "application/json" : "text/plain; charset=utf-8", s, len);
}

static unsigned code_of(TvStatus st)
{
    return st == TV_ERR_ARG ? MHD_HTTP_BAD_REQUEST : st == TV_ERR_IO ? MHD_HTTP_NOT_FOUND
           : st == TV_ERR_LIMIT                   ? MHD_HTTP_SERVICE_UNAVAILABLE
                                                  : MHD_HTTP_UNPROCESSABLE_CONTENT;
}

static enum MHD_Result respond_buf(struct MHD_Connection *c, TvStatus st, const TvError *err, StrBuf *b,
                                   const char *type)
{
    bool json = strstr(type, "json") != NULL;
    if (st != TV_OK) {
        strbuf_free(b);
        return respond_error(c, code_of(st), json, err->msg);
    }
    size_t len = b->len;
    char *s = strbuf_take(b);
    if (!s)
        return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, json, "out of memory");
    return respond_take(c, MHD_HTTP_OK, type, s, len);
}

/* ---- files ------------------------------------------------------------------------ */

static const char *type_of(const char *path)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"}, {".md", "text/plain; charset=utf-8"},
        {".png", "image/png"},                 {".svg", "image/svg+xml"},
        {".css", "text/css; charset=utf-8"},   {".js", "text/javascript; charset=utf-8"},
        {".json", "application/json"},         {".log", "text/plain; charset=utf-8"},
        {".ini", "text/plain; charset=utf-8"}, {".tgn", "text/plain; charset=utf-8"},
        {".txt", "text/plain; charset=utf-8"}, {".dat", "text/plain; charset=utf-8"},
    };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t k = strlen(types[i][0]);
        if (n >= k && strcmp(path + n - k, types[i][0]) == 0)
            return types[i][1];
    }
    return "application/octet-stream";
}

/* Reads a regular file whole (up to SERVE_FILE_MAX). */
static TvStatus read_file(const char *path, char **out, size_t *len, TvError *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return tv_fail(err, TV_ERR_IO, "not found");
    if (!S_ISREG(st.st_mode))
        return tv_fail(err, TV_ERR_ARG, "not a file (a folder is not listed here: see the runs list)");
    if (st.st_size > SERVE_FILE_MAX)
        return tv_fail(err, TV_ERR_ARG, "larger than the %d MiB served here", SERVE_FILE_MAX >> 20);
    FILE *f = fopen(path, "rb");
    if (!f)
        return tv_fail(err, TV_ERR_IO, "cannot be read: %s", strerror(errno));
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!buf)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    *out = buf;
    *len = got;
    return TV_OK;
}

static enum MHD_Result serve_file(Server *s, struct MHD_Connection *c, const char *rel)
{
    char abs[PATH_MAX];
    TvError err;
    TvStatus st = serve_path(s, rel, abs, sizeof abs, &err);
    if (st != TV_OK)
        return respond_error(c, code_of(st), false, err.msg);
    if (strstr(abs, ".h5") && strcmp(abs + strlen(abs) - 3, ".h5") == 0)
        return respond_error(c, MHD_HTTP_FORBIDDEN, false,
                             "a store is not served as a file: open its run page (/run?run=...)");
    char *buf;
    size_t len;
    if ((st = read_file(abs, &buf, &len, &err)) != TV_OK)
        return respond_error(c, code_of(st), false, err.msg);
    return respond_take(c, MHD_HTTP_OK, type_of(abs), buf, len);
}

/* ---- the report cache ----------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static enum MHD_Result serve_report(Server *s, struct MHD_Connection *c, const char *id)
{
    char abs[PATH_MAX];
    TvError err;
    TvStatus st = serve_path(s, id ? id : "", abs, sizeof abs, &err);
    if (st != TV_OK)
        return respond_error(c, code_of(st), false, err.msg);
    const char *kind = serve_run_kind(abs);
    if (!kind)
        return respond_error(c, MHD_HTTP_BAD_REQUEST, false, "not a run (a store, a training or an SPSA folder)");
    FileSig sig;
    memset(&sig, 0, sizeof sig);
    serve_file_sig(abs, &sig);
    struct ReportCache *rc = NULL;
    for (int i = 0; i < s->nreports; i++)
        if (!strcmp(s->reports[i].id, id))
            rc = &s->reports[i];
    if (!rc) {
        if (s->nreports == s->capreports) {
            int cap = s->capreports ? 2 * s->capreports : 16;
            struct ReportCache *r = realloc(s->reports, (size_t)cap * sizeof *r);
            if (!r)
                return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, false, "out of memory");
            s->reports = r;
            s->capreports = cap;
        }
        rc = &s->reports[s->nreports];
        memset(rc, 0, sizeof *rc);
        rc->n = s->nreports++;
        snprintf(rc->id, sizeof rc->id, "%s", id);
    }
    char outdir[PATH_MAX + 32], html[PATH_MAX + 64];
    snprintf(outdir, sizeof outdir, "%s/%d", s->cache, rc->n);
    snprintf(html, sizeof html, "%s/report.html", outdir);
    const time_t now = time(NULL);
    const bool changed = rc->made == 0 || memcmp(&sig, &rc->sig, sizeof sig) != 0 || strcmp(kind, "tournament");
    if (changed && (rc->made == 0 || now - rc->made >= SERVE_REPORT_AGE)) {
        if (!strcmp(kind, "tournament")) {
            const char *files[1] = {abs};
            const ReportOptions o = {.simulations = 0, .mix_rules = false, .baseline = NULL, .sprt_from_ini = true};
            st = report_write_opts(files, 1, NULL, outdir, &o, NULL, &err);
        } else if (!strcmp(kind, "train")) {
            TrainRung *rungs = NULL;
            int nr = 0;
            TrainLadderInfo info;
            if ((st = train_ladder_info(abs, &rungs, &nr, &info, &err)) == TV_OK)
                st = ladder_report_write(abs, rungs, nr, &info, outdir, &err);
            free(rungs);
        } else {
            st = spsa_report(abs, outdir, &err);
        }
        if (st != TV_OK)
            return respond_error(c, MHD_HTTP_UNPROCESSABLE_CONTENT, false, err.msg);
        rc->made = now;
        rc->sig = sig;
    }
    char *buf;
    size_t len;
    if ((st = read_file(html, &buf, &len, &err)) != TV_OK)
        return respond_error(c, code_of(st), false, err.msg);
    return respond_take(c, MHD_HTTP_OK, "text/html; charset=utf-8", buf, len);
}

/* ---- routes -------------------------------------------------------------------------- */

static const ServeAsset *asset(const char *name)
{
    for (int i = 0; i < SERVE_NASSETS; i++)
        if (!strcmp(SERVE_ASSETS[i].name, name))
            return &SERVE_ASSETS[i];
    return NULL;
}

static enum MHD_Result respond_asset(struct MHD_Connection *c, const char *name)
{
    const ServeAsset *a = asset(name);
    if (!a)
        return respond_error(c, MHD_HTTP_NOT_FOUND, false, "no such page");
    return respond_static(c, MHD_HTTP_OK, type_of(name), a->data, a->len);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
    (void)version;
    (void)upload_data;
    Server *s = cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        /* read-only: refused at once, before any body is read */
        *upload_data_size = 0;
        StrBuf b = {0};
        strbuf_addf(&b, "405: %.32s is refused: this server only reads (GET, HEAD)\n", method);
        size_t len = b.len;
        char *text = strbuf_take(&b);
        if (!text)
            return MHD_NO;
        struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
        if (!r) {
            free(text);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Allow", "GET, HEAD");
        MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
        MHD_add_response_header(r, "Connection", "close");
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
        MHD_destroy_response(r);
        return ret;
    }
    (void)con_cls;
    /* static pages need no lock */
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return respond_asset(c, "index.html");
    if (!strcmp(url, "/run"))
        return respond_asset(c, "run.html");
    if (!strcmp(url, "/game"))
        return respond_asset(c, "game.html");
    if (!strncmp(url, "/static/", 8))
        return respond_asset(c, url + 8);
    if (!strcmp(url, "/favicon.ico"))
        return respond_error(c, MHD_HTTP_NOT_FOUND, false, "no icon");
    const char *run = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "run");
    const char *game = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "game");
    StrBuf b = {0};
    TvError err;
    TvStatus st;
    enum MHD_Result ret;
    pthread_mutex_lock(&s->mu);
    if (!strcmp(url, "/api/runs")) {
        st = serve_runs(s, &b, &err);
        ret = respond_buf(c, st, &err, &b, "application/json");
    } else if (!strcmp(url, "/api/run")) {
        st = serve_run(s, run ? run : "", &b, &err);
        ret = respond_buf(c, st, &err, &b, "application/json");
    } else if (!strcmp(url, "/api/games")) {
        st = serve_games(s, run ? run : "", &b, &err);
        ret = respond_buf(c, st, &err, &b, "application/json");
    } else if (!strcmp(url, "/api/game")) {
        st = serve_game(s, run ? run : "", game, &b, &err);
        ret = respond_buf(c, st, &err, &b, "application/json");
    } else if (!strcmp(url, "/tgn")) {
        st = serve_tgn(s, run ? run : "", game, &b, &err);
        ret = respond_buf(c, st, &err, &b, "text/plain; charset=utf-8");
    } else if (!strcmp(url, "/report")) {
        ret = serve_report(s, c, run);
    } else if (!strncmp(url, "/files/", 7)) {
        ret = serve_file(s, c, url + 7);
    } else {
        ret = respond_error(c, MHD_HTTP_NOT_FOUND, !strncmp(url, "/api/", 5),
                            "no such page (the runs list is at /)");
    }
    pthread_mutex_unlock(&s->mu);
    return ret;
}

/* ---- start and stop ------------------------------------------------------------------------ */

TvStatus serve_start(const ServeOptions *o, Server **out, TvError *err)
{
    *out = NULL;
    Server *s = calloc(1, sizeof *s);
    if (!s)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    struct stat st;
    if (!realpath(o->dir, s->dir) || stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(s);
        return tv_fail(err, TV_ERR_IO, "%s is not a folder this user can read (give the folder of runs, e.g. results)",
                       o->dir);
    }
    snprintf(s->dir_shown, sizeof s->dir_shown, "%s", o->dir);
    size_t dl = strlen(s->dir_shown);
    while (dl > 1 && s->dir_shown[dl - 1] == '/')
        s->dir_shown[--dl] = 0;
    union {
        struct sockaddr sa;
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } addr;
    memset(&addr, 0, sizeof addr);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    if (inet_pton(AF_INET, o->bind, &addr.v4.sin_addr) == 1) {
        addr.v4.sin_family = AF_INET;
        addr.v4.sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->bind, &addr.v6.sin6_addr) == 1) {
        addr.v6.sin6_family = AF_INET6;
        addr.v6.sin6_port = htons((uint16_t)o->port);
        flags |= MHD_USE_IPv6;
    } else {
        free(s);
        return tv_fail(err, TV_ERR_ARG, "--bind %s: not an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::1)",
                       o->bind);
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(s->cache, sizeof s->cache, "%s/tavreli-serve-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(s->cache)) {
        TvStatus r = tv_fail(err, TV_ERR_IO, "cannot make a folder for the server's reports (%s): %s", s->cache,
                             strerror(errno));
        free(s);
        return r;
    }
    pthread_mutex_init(&s->mu, NULL);
    s->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, &addr.sa,
                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(o->threads > 0 ? o->threads : 1),
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)(o->max_connections > 0 ? o->max_connections : 1),
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_CONNECTION_TIMEOUT,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_CONNECTION_MEMORY, MHD_OPTION_END);
    if (!s->d) {
        int e = errno;
        nftw(s->cache, rm_one, 8, FTW_DEPTH | FTW_PHYS);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return tv_fail(err, TV_ERR_IO, "cannot listen on %s port %d: %s (another program there? choose --port)",
                       o->bind, o->port, e ? strerror(e) : "libmicrohttpd could not start");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : o->port;
    *out = s;
    return TV_OK;
}

int serve_port(const Server *s) { return s->port; }

void serve_stop(Server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    nftw(s->cache, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; i < s->nstores; i++) {
        free(s->stores[i].fields);
        free(s->stores[i].error);
    }
    free(s->stores);
    for (int i = 0; i < SERVE_DETAIL_CACHE; i++)
        free(s->detail[i].json);
    free(s->reports);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

TvStatus serve_runs_json(Server *s, StrBuf *out, TvError *err)
{
    pthread_mutex_lock(&s->mu);
    TvStatus st = serve_runs(s, out, err);
    pthread_mutex_unlock(&s->mu);
    return st;
}
