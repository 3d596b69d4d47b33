#define _DEFAULT_SOURCE /* DT_DIR, realpath */
/* serve_runs.c: the runs under DIR and what the runs list and a run's page
 * say of each (serve_internal.h).
 *
 * A run is a store (FILE.h5: a tournament, or one match of a training or
 * SPSA run), a training folder (train.ini and gen-0: `tavreli train`) or an
 * SPSA folder (spsa.h5: `tavreli spsa`).  Folders are searched to
 * SCAN_DEPTH levels; symbolic links are not followed into folders (a link
 * to a store is listed when it stays inside DIR). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5store.h"
#include "engine_id.h"
#include "report_live.h"
#include "run_session.h"
#include "serve_internal.h"
#include "spsa_report.h"
#include "spsa_run.h"
#include "tournament.h"
#include "train.h"

#define SCAN_DEPTH 3
/* The games a minute are measured over the latest games stored less than
 * RATE_GAP seconds apart (one session's), at most RATE_GAMES of them: a
 * run's pace now, not its average over a night with a pause in it. */
#define RATE_GAP 300
#define RATE_GAMES 200
/* The seconds one answer of the runs list may spend reading stores it has
 * not read (or that changed): a folder of 100 stores of 2,000 games each
 * takes about 10 s to read cold here, and a page that waits that long for
 * its first answer looks dead; the rest are read by the next answers. */
#define SERVE_LIST_BUDGET 1.0
/* The referee's losses a run's page lists (the latest). */
#define SERVE_REFEREE_LOSSES 200

/* ---- paths ------------------------------------------------------------------ */

bool serve_file_sig(const char *path, FileSig *sig)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    sig->dev = st.st_dev;
    sig->ino = st.st_ino;
    sig->size = st.st_size;
    sig->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    return true;
}

static bool sig_equal(const FileSig *a, const FileSig *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

TvStatus serve_path(const Server *s, const char *rel, char *abs, size_t n, TvError *err)
{
    if (!rel || !rel[0])
        return tv_fail(err, TV_ERR_ARG, "no path given");
    if (rel[0] == '/')
        return tv_fail(err, TV_ERR_ARG, "an absolute path is refused: paths are relative to the served folder");
    for (const char *p = rel; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return tv_fail(err, TV_ERR_ARG, "a path with an empty, '.' or '..' part is refused");
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)p[i] < 0x20 || p[i] == 0x7F)
                return tv_fail(err, TV_ERR_ARG, "a path with a control character is refused");
        p += len + (p[len] == '/');
    }
    char joined[PATH_MAX], real[PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", s->dir, rel) >= sizeof joined)
        return tv_fail(err, TV_ERR_ARG, "the path is too long");
    if (!realpath(joined, real))
        return tv_fail(err, TV_ERR_IO, "%s: %s", rel, strerror(errno));
    const size_t dl = strlen(s->dir);
    if (strncmp(real, s->dir, dl) != 0 || (real[dl] != '/' && real[dl] != 0))
        return tv_fail(err, TV_ERR_ARG, "%s leads out of the served folder (a symbolic link): refused", rel);
    if ((size_t)snprintf(abs, n, "%s", real) >= n)
        return tv_fail(err, TV_ERR_ARG, "the path is too long");
    return TV_OK;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

const char *serve_run_kind(const char *abs)
{
    struct stat st;
    if (stat(abs, &st) != 0)
        return NULL;
    if (S_ISREG(st.st_mode))
        return has_suffix(abs, ".h5") ? "tournament" : NULL;
    if (!S_ISDIR(st.st_mode))
        return NULL;
    if (train_is_dir(abs))
        return "train";
    if (spsa_is_dir(abs))
        return "spsa";
    return NULL;
}

/* ---- the scan --------------------------------------------------------------- */

typedef struct {
    char id[PATH_MAX];
    const char *kind;
    char parent[PATH_MAX]; /* the train or SPSA folder it belongs to ("" none) */
} Found;

typedef struct {
    Found *f;
    int n, cap;
    bool cut; /* more than SERVE_MAX_STORES */
} FoundList;

static int cmp_found(const void *a, const void *b)
{
    return strcmp(((const Found *)a)->id, ((const Found *)b)->id);
}

static void add_found(FoundList *l, const char *id, const char *kind, const char *parent)
{
    if (l->n >= SERVE_MAX_STORES) {
        l->cut = true;
        return;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        Found *f = realloc(l->f, (size_t)cap * sizeof *f);
        if (!f) {
            l->cut = true;
            return;
        }
        l->f = f;
        l->cap = cap;
    }
    Found *x = &l->f[l->n++];
    snprintf(x->id, sizeof x->id, "%s", id);
    x->kind = kind;
    snprintf(x->parent, sizeof x->parent, "%s", parent);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void scan(const Server *s, const char *rel, const char *parent, int depth, FoundList *l)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s%s%s", s->dir, rel[0] ? "/" : "", rel) >= sizeof path)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue; /* ., .., hidden files */
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char id[PATH_MAX], abs[PATH_MAX];
        if ((size_t)snprintf(id, sizeof id, "%s%s%s", rel, rel[0] ? "/" : "", names[i]) >= sizeof id)
            continue;
        if ((size_t)snprintf(abs, sizeof abs, "%s/%s", s->dir, id) >= sizeof abs)
            continue;
        struct stat lst;
        if (lstat(abs, &lst) != 0)
            continue;
        if (S_ISLNK(lst.st_mode)) {
            /* a link: listed only when it is a store inside DIR, never followed into a folder */
            char real[PATH_MAX];
            if (has_suffix(id, ".h5") && serve_path(s, id, real, sizeof real, NULL) == TV_OK &&
                serve_run_kind(real) && !strcmp(serve_run_kind(real), "tournament"))
                add_found(l, id, "tournament", parent);
            continue;
        }
        if (S_ISREG(lst.st_mode) && has_suffix(id, ".h5")) {
            add_found(l, id, "tournament", parent);
        } else if (S_ISDIR(lst.st_mode)) {
            const char *kind = serve_run_kind(abs);
            if (kind)
                add_found(l, id, kind, parent);
            if (depth > 0)
                scan(s, id, kind ? id : parent, depth - 1, l);
        }
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- one store -------------------------------------------------------------- */

static StoreEntry *store_entry(Server *s, const char *id)
{
    for (int i = 0; i < s->nstores; i++)
        if (!strcmp(s->stores[i].id, id))
            return &s->stores[i];
    if (s->nstores == s->capstores) {
        int cap = s->capstores ? 2 * s->capstores : 64;
        StoreEntry *e = realloc(s->stores, (size_t)cap * sizeof *e);
        if (!e)
            return NULL;
        s->stores = e;
        s->capstores = cap;
    }
    StoreEntry *e = &s->stores[s->nstores++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    return e;
}

static void entry_clear(StoreEntry *e)
{
    free(e->fields);
    free(e->error);
    e->fields = e->error = NULL;
}

static int cmp_i64_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Games a minute over the latest games stored close together (RATE_GAP). */
static double recent_rate(const StoreContents *c)
{
    if (c->ngames < 2)
        return NAN;
    int64_t *t = malloc((size_t)c->ngames * sizeof *t);
    if (!t)
        return NAN;
    int64_t n = 0;
    for (int64_t i = 0; i < c->ngames; i++)
        if (c->games[i].stored_at > 0)
            t[n++] = c->games[i].stored_at;
    qsort(t, (size_t)n, sizeof *t, cmp_i64_desc);
    int64_t k = n ? 1 : 0;
    while (k < n && k < RATE_GAMES && t[k - 1] - t[k] <= RATE_GAP)
        k++;
    double rate = NAN;
    /* k games stored over t[0] - t[k-1] seconds: k - 1 intervals */
    if (k >= 3 && t[0] > t[k - 1])
        rate = 60.0 * (double)(k - 1) / (double)(t[0] - t[k - 1]);
    free(t);
    return rate;
}

/* A tournament INI whose text the store holds, in the folders where
 * configurations live: its path for the resume line ("" none). */
static void find_ini(const Server *s, const char *text, char *out, size_t n)
{
    out[0] = 0;
    if (!text)
        return;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", s->dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = 0;
    const char *dirs[2] = {"configs/tournaments", NULL};
    char other[PATH_MAX];
    if ((size_t)snprintf(other, sizeof other, "%s/configs/tournaments", parent) >= sizeof other)
        return;
    dirs[1] = other;
    for (int k = 0; k < 2 && !out[0]; k++) {
        DIR *d = opendir(dirs[k]);
        if (!d)
            continue;
        struct dirent *e;
        while (!out[0] && (e = readdir(d))) {
            if (!has_suffix(e->d_name, ".ini"))
                continue;
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", dirs[k], e->d_name);
            FILE *f = fopen(p, "rb");
            if (!f)
                continue;
            size_t len = strlen(text);
            char *buf = malloc(len + 2);
            size_t got = buf ? fread(buf, 1, len + 1, f) : 0;
            if (buf && got == len && memcmp(buf, text, len) == 0)
                snprintf(out, n, "%s", k == 0 ? p : p + strlen(parent) + 1);
            free(buf);
            fclose(f);
        }
        closedir(d);
    }
}

static void limits_text(const StoredEngine *e, char *buf, size_t n)
{
    if (e->tc[0])
        snprintf(buf, n, "tc %s", e->tc);
    else if (e->movetime_ms)
        snprintf(buf, n, "movetime %d ms", e->movetime_ms);
    else if (e->nodes && e->depth)
        snprintf(buf, n, "depth %d, %lld nodes", e->depth, (long long)e->nodes);
    else if (e->nodes)
        snprintf(buf, n, "%lld nodes", (long long)e->nodes);
    else if (e->depth)
        snprintf(buf, n, "depth %d", e->depth);
    else
        snprintf(buf, n, "no limit");
}

static void identity_text(const StoredEngine *e, char *buf, size_t n)
{
    char tag[96];
    engine_id_tag(e, tag, sizeof tag);
    if (e->kind == PLAYER_PROCESS)
        snprintf(buf, n, "%s: %s%s%s%s", engine_id_kind_name(e->kind), e->id_name[0] ? e->id_name : e->command,
                 tag[0] ? " (" : "", tag, tag[0] ? ")" : "");
    else
        snprintf(buf, n, "%s, %s%s%s", engine_id_kind_name(e->kind), e->version[0] ? e->version : "tavreli",
                 e->path[0] ? ", " : "", e->path);
}

void serve_kv_str(StrBuf *o, const char *k, const char *v)
{
    strbuf_add(o, ", ");
    strbuf_add_json_string(o, k);
    strbuf_add(o, ": ");
    strbuf_add_json_string(o, v);
}

void serve_kv_num(StrBuf *o, const char *k, double v)
{
    strbuf_add(o, ", ");
    strbuf_add_json_string(o, k);
    strbuf_add(o, ": ");
    strbuf_add_json_number(o, v, 6);
}

/* Reads the store and fills the entry's fields (or its error). */
static void store_summarise(Server *s, StoreEntry *e, const char *abs)
{
    entry_clear(e);
    e->games = e->planned = 0;
    e->gpm = NAN;
    e->decided = false;
    e->last_end[0] = 0;
    e->resume[0] = 0;
    StoreContents c;
    memset(&c, 0, sizeof c);
    TvError err;
    /* the rows checked, the moves not replayed: the list needs the results (a
     * run's page and its games use the full reader) */
    if (h5store_read_unreplayed(abs, false, false, &c, &err) != TV_OK) {
        e->error = strdup(err.msg);
        h5store_contents_free(&c);
        return;
    }
    e->games = c.ngames;
    e->gpm = recent_rate(&c);
    /* a run stopped before its SPRT decided stores "continue after N pairs ..." */
    e->decided = c.sprt_result && (!strncmp(c.sprt_result, "H0 accepted", 11) || !strncmp(c.sprt_result, "H1 accepted", 11));
    RunSession *sessions = NULL;
    int ns = 0;
    if (run_sessions_parse(c.sessions, &sessions, &ns, NULL) == TV_OK && ns > 0)
        snprintf(e->last_end, sizeof e->last_end, "%s", sessions[ns - 1].end);
    free(sessions);

    StrBuf o = {0};
    char name[128];
    const char *base = strrchr(e->id, '/');
    snprintf(name, sizeof name, "%.100s", base ? base + 1 : e->id);
    if (has_suffix(name, ".h5"))
        name[strlen(name) - 3] = 0;
    Tournament t;
    bool have_t = tournament_read_plan(c.tournament_ini, &t, NULL) == TV_OK;
    if (have_t) {
        e->planned = tournament_total_games(&t);
        if (t.name[0])
            snprintf(name, sizeof name, "%s", t.name);
    }
    strbuf_add_json_string(&o, "name");
    strbuf_add(&o, ": ");
    strbuf_add_json_string(&o, name);
    /* the engines by identity */
    strbuf_add(&o, ", \"engines\": [");
    for (int i = 0; i < c.nengines; i++) {
        char id[1024], lim[96];
        identity_text(&c.engines[i], id, sizeof id);
        limits_text(&c.engines[i], lim, sizeof lim);
        strbuf_add(&o, i ? ", {" : "{");
        strbuf_add_json_string(&o, "name");
        strbuf_add(&o, ": ");
        strbuf_add_json_string(&o, c.engines[i].name);
        serve_kv_str(&o, "identity", id);
        serve_kv_str(&o, "limits", lim);
        strbuf_add(&o, "}");
    }
    strbuf_add(&o, "]");
    /* the conditions: limits (once when all engines share them), openings, rules */
    StrBuf cond = {0};
    for (int i = 0; i < c.nengines; i++) {
        char lim[96], first[96];
        limits_text(&c.engines[i], lim, sizeof lim);
        limits_text(&c.engines[0], first, sizeof first);
        bool same = true;
        for (int j = 1; j < c.nengines; j++) {
            char other[96];
            limits_text(&c.engines[j], other, sizeof other);
            same &= !strcmp(other, first);
        }
        if (same) {
            strbuf_add(&cond, first);
            break;
        }
        strbuf_addf(&cond, "%s%s %s", i ? ", " : "", c.engines[i].name, lim);
    }
    if (have_t) {
        if (t.openings.file[0])
            strbuf_addf(&cond, "; openings from %s", t.openings.file);
        else
            strbuf_addf(&cond, "; random openings of %d plies%s", t.openings.plies,
                        t.openings.per_game ? ", one per game" : ", one per pair");
        strbuf_addf(&cond, "; %d pair%s per pairing", t.pairs, t.pairs == 1 ? "" : "s");
    }
    strbuf_addf(&cond, "; rules %s", c.options && c.options[0] ? c.options : "default");
    serve_kv_str(&o, "conditions", strbuf_str(&cond));
    strbuf_free(&cond);
    serve_kv_str(&o, "program", c.program_version);
    /* the report's headline and SPRT (report_live.h): what `tavreli report` says */
    if (c.ngames > 0) {
        StrBuf live = {0};
        TvError e2;
        if (report_live_json_contents(&c, abs, true, 0, &live, &e2) == TV_OK) {
            strbuf_add(&o, ", ");
            strbuf_add(&o, strbuf_str(&live));
        } else {
            serve_kv_str(&o, "headline", "");
            serve_kv_str(&o, "report_error", e2.msg);
        }
        strbuf_free(&live);
    } else {
        strbuf_add(&o, ", \"headline\": \"\", \"sprt\": null");
    }
    if (have_t)
        tournament_free(&t);
    /* the command that continues it */
    char ini[PATH_MAX];
    find_ini(s, c.tournament_ini, ini, sizeof ini);
    if ((size_t)snprintf(e->resume, sizeof e->resume, "tavreli selfplay %s --out %s/%s --resume",
                         ini[0] ? ini : "TOURNAMENT.ini", s->dir_shown, e->id) >= sizeof e->resume)
        e->resume[0] = 0;
    h5store_contents_free(&c);
    e->fields = strbuf_take(&o);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The store entry of id, read again when the file changed; once the
 * answer's reading budget is spent (s->deadline), an entry read before is
 * given as it was and one never read as not read yet (*pending): the page
 * asks again in 2 s and the list fills in. */
static StoreEntry *store_get(Server *s, const char *id, const char *abs, bool *pending)
{
    *pending = false;
    StoreEntry *e = store_entry(s, id);
    if (!e)
        return NULL;
    e->seen = true;
    FileSig sig;
    if (!serve_file_sig(abs, &sig)) {
        entry_clear(e);
        e->error = strdup("the store cannot be read (it was removed?)");
        return e;
    }
    const bool have = e->fields || e->error;
    if (have && sig_equal(&sig, &e->sig))
        return e;
    if (s->deadline > 0 && now_seconds() > s->deadline) {
        *pending = !have;
        return e;
    }
    store_summarise(s, e, abs);
    e->sig = sig;
    return e;
}

/* ---- a run's list entry ---------------------------------------------------- */

static void state_of_store(const StoreEntry *e, long writer, const char **state, char *detail, size_t n)
{
    if (writer != 0) {
        *state = "running";
        if (writer > 0)
            snprintf(detail, n, "process %ld is writing it", writer);
        else
            snprintf(detail, n, "a process is writing it");
    } else if (e->error) {
        *state = "damaged";
        snprintf(detail, n, "%s", e->error);
    } else if (e->decided || !strcmp(e->last_end, "finished")) {
        *state = "finished";
        snprintf(detail, n, "%s", e->decided ? "its SPRT decided" : "every planned game was played");
    } else {
        *state = "interrupted";
        snprintf(detail, n, "%s",
                 e->last_end[0] ? (!strcmp(e->last_end, "failed") ? "its last session failed"
                                                                   : "its last session was stopped")
                                : "its run ended without a word (killed, or the machine went down)");
    }
}

/* A store's list entry. */
static void store_json(Server *s, const Found *f, StrBuf *o)
{
    char abs[PATH_MAX];
    TvError err;
    strbuf_add(o, "{\"id\": ");
    strbuf_add_json_string(o, f->id);
    serve_kv_str(o, "kind", "tournament");
    strbuf_add(o, ", \"parent\": ");
    strbuf_add_json_string(o, f->parent[0] ? f->parent : NULL);
    if (serve_path(s, f->id, abs, sizeof abs, &err) != TV_OK) {
        serve_kv_str(o, "state", "damaged");
        serve_kv_str(o, "error", err.msg);
        strbuf_add(o, "}");
        return;
    }
    bool pending;
    StoreEntry *e = store_get(s, f->id, abs, &pending);
    if (!e) {
        o->failed = true;
        return;
    }
    if (pending) {
        serve_kv_str(o, "state", "reading");
        serve_kv_str(o, "state_detail", "not read yet: the list fills in as the page asks again");
        serve_kv_str(o, "name", f->id);
        strbuf_add(o, ", \"games\": null, \"planned\": null, \"resume\": null, \"error\": null}");
        return;
    }
    const long writer = h5store_writer_pid(abs);
    const char *state;
    char detail[1200];
    state_of_store(e, writer, &state, detail, sizeof detail);
    serve_kv_str(o, "state", state);
    serve_kv_str(o, "state_detail", detail);
    strbuf_add(o, ", \"resume\": ");
    strbuf_add_json_string(o, !strcmp(state, "interrupted") && !f->parent[0] ? e->resume : NULL);
    serve_kv_num(o, "games", (double)e->games);
    serve_kv_num(o, "planned", e->planned ? (double)e->planned : NAN);
    const bool running = !strcmp(state, "running");
    serve_kv_num(o, "games_per_min", running ? e->gpm : NAN);
    double eta = NAN;
    if (running && e->gpm > 0 && e->planned > e->games)
        eta = 60.0 * (double)(e->planned - e->games) / e->gpm;
    serve_kv_num(o, "eta_s", round(eta));
    serve_kv_num(o, "updated", (double)(e->sig.mtime_ns / 1000000000));
    strbuf_add(o, ", \"error\": ");
    strbuf_add_json_string(o, e->error);
    if (e->fields) {
        strbuf_add(o, ", ");
        strbuf_add(o, e->fields);
    } else {
        serve_kv_str(o, "name", f->id);
    }
    strbuf_add(o, "}");
}

/* Whether a store under the folder rel is being written. */
static bool folder_running(Server *s, const FoundList *l, const char *rel)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->f[i].parent, rel) && !strcmp(l->f[i].kind, "tournament")) {
            char abs[PATH_MAX];
            if (serve_path(s, l->f[i].id, abs, sizeof abs, NULL) == TV_OK && h5store_writer_pid(abs) != 0)
                return true;
        }
    return false;
}

static void stores_of(const FoundList *l, const char *rel, StrBuf *o)
{
    strbuf_add(o, ", \"stores\": [");
    bool any = false;
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->f[i].parent, rel)) {
            strbuf_add(o, any ? ", " : "");
            strbuf_add_json_string(o, l->f[i].id);
            any = true;
        }
    strbuf_add(o, "]");
}

/* The first members of a train or SPSA folder's entry; false (the entry
 * closed as damaged) when the folder cannot be reached. */
static bool folder_head(const Server *s, const Found *f, const char *kind, char *abs, size_t n, StrBuf *o)
{
    strbuf_add(o, "{\"id\": ");
    strbuf_add_json_string(o, f->id);
    serve_kv_str(o, "kind", kind);
    strbuf_add(o, ", \"parent\": null");
    if (serve_path(s, f->id, abs, n, NULL) == TV_OK)
        return true;
    serve_kv_str(o, "state", "damaged");
    strbuf_add(o, "}");
    return false;
}

/* A training folder's entry: its generations so far (train.h). */
static void train_json(Server *s, const FoundList *l, const Found *f, StrBuf *o, bool detail)
{
    char abs[PATH_MAX];
    if (!folder_head(s, f, "train", abs, sizeof abs, o))
        return;
    char cfg[PATH_MAX];
    TrainConfig tc;
    TvError err;
    const bool have_cfg = (size_t)snprintf(cfg, sizeof cfg, "%s/train.ini", abs) < sizeof cfg &&
                          train_read_config(cfg, &tc, false, &err) == TV_OK;
    const char *base = strrchr(f->id, '/');
    serve_kv_str(o, "name", have_cfg && tc.name[0] ? tc.name : base ? base + 1 : f->id);
    int done = 0, best = 0;
    StrBuf gens = {0};
    strbuf_add(&gens, "[");
    for (int g = 1;; g++) {
        TrainGeneration gen;
        bool have = false;
        if (train_read_generation(abs, g, &gen, &have, NULL) != TV_OK || !have)
            break;
        done = g;
        best = (int)gen.best;
        strbuf_add(&gens, g > 1 ? ", {" : "{");
        strbuf_addf(&gens, "\"gen\": %d", g);
        serve_kv_str(&gens, "outcome", gen.outcome);
        serve_kv_num(&gens, "best", (double)gen.best);
        serve_kv_num(&gens, "llr", gen.llr);
        serve_kv_num(&gens, "pairs", (double)gen.pairs);
        strbuf_addf(&gens, ", \"confirmed\": %s}", gen.confirmed ? "true" : "false");
    }
    strbuf_add(&gens, "]");
    const bool running = folder_running(s, l, f->id);
    const long planned = have_cfg ? tc.generations : 0;
    const char *state = running ? "running" : planned && done >= planned ? "finished" : "interrupted";
    serve_kv_str(o, "state", state);
    char text[256];
    snprintf(text, sizeof text, "%d of %ld generations complete; the best is gen-%d", done, planned, best);
    serve_kv_str(o, "state_detail", text);
    serve_kv_str(o, "headline", text);
    strbuf_add(o, ", \"resume\": ");
    strbuf_add_json_string(o, !strcmp(state, "interrupted") ? "the same `tavreli train CONFIG.ini` again: it resumes"
                                                             : NULL);
    serve_kv_num(o, "games", NAN);
    serve_kv_num(o, "planned", NAN);
    strbuf_add(o, ", \"sprt\": null, \"engines\": []");
    if (have_cfg) {
        char cond[256];
        snprintf(cond, sizeof cond, "%ld generations of %ld self-play games at depth %ld; SPRT [%g, %g] nElo", tc.generations,
                 tc.games, tc.depth, tc.elo0, tc.elo1);
        serve_kv_str(o, "conditions", cond);
    }
    strbuf_add(o, ", \"generations\": ");
    strbuf_add(o, strbuf_str(&gens));
    strbuf_free(&gens);
    stores_of(l, f->id, o);
    /* the ladder: each accepted generation's Elo against gen-0 */
    if (detail && done > 0) {
        TrainRung *rungs = NULL;
        int nr = 0;
        strbuf_add(o, ", \"ladder\": [");
        if (train_ladder(abs, &rungs, &nr, NULL) == TV_OK)
            for (int i = 0; i < nr; i++) {
                strbuf_add(o, i ? ", {" : "{");
                strbuf_addf(o, "\"gen\": %d", rungs[i].generation);
                serve_kv_num(o, "elo", rungs[i].elo);
                serve_kv_num(o, "lo", rungs[i].lo);
                serve_kv_num(o, "hi", rungs[i].hi);
                serve_kv_num(o, "games", (double)rungs[i].games);
                strbuf_add(o, "}");
            }
        free(rungs);
        strbuf_add(o, "]");
    }
    strbuf_add(o, "}");
}

/* An SPSA folder's entry: its parameters' paths when the run has written
 * its /spsa table (at its end, or when it was stopped). */
static void spsa_json(Server *s, const FoundList *l, const Found *f, StrBuf *o, bool detail)
{
    char abs[PATH_MAX];
    if (!folder_head(s, f, "spsa", abs, sizeof abs, o))
        return;
    const char *base = strrchr(f->id, '/');
    serve_kv_str(o, "name", base ? base + 1 : f->id);
    char store[PATH_MAX], tuned[PATH_MAX];
    if ((size_t)snprintf(store, sizeof store, "%s/spsa.h5", abs) >= sizeof store ||
        (size_t)snprintf(tuned, sizeof tuned, "%s/tuned.ini", abs) >= sizeof tuned) {
        serve_kv_str(o, "state", "damaged");
        strbuf_add(o, "}");
        return;
    }
    SpsaTable t;
    bool found = false;
    const bool running = folder_running(s, l, f->id);
    TvError err;
    const bool have_table = !running && spsa_table_read(store, &t, &found, &err) == TV_OK && found;
    const bool finished = access(tuned, F_OK) == 0;
    const char *state = running ? "running" : finished ? "finished" : "interrupted";
    serve_kv_str(o, "state", state);
    char text[256];
    if (have_table)
        snprintf(text, sizeof text, "%ld of %ld iterations of %ld pairs%s", t.done, t.iterations, t.batch,
                 finished ? "; tuned.ini written" : "");
    else
        snprintf(text, sizeof text, "%s", running ? "playing (the parameters' paths are written when it stops)"
                                                  : "no /spsa table yet");
    serve_kv_str(o, "state_detail", text);
    serve_kv_str(o, "headline", text);
    strbuf_add(o, ", \"resume\": ");
    strbuf_add_json_string(o, !strcmp(state, "interrupted") ? "the same `tavreli spsa CONFIG.ini` again: it resumes"
                                                             : NULL);
    strbuf_add(o, ", \"games\": null, \"planned\": null, \"sprt\": null, \"engines\": []");
    stores_of(l, f->id, o);
    if (detail && have_table) {
        strbuf_add(o, ", \"params\": [");
        for (int p = 0; p < t.nparams; p++) {
            strbuf_add(o, p ? ", {" : "{");
            strbuf_add(o, "\"name\": ");
            strbuf_add_json_string(o, t.names[p]);
            serve_kv_num(o, "lo", t.lo[p]);
            serve_kv_num(o, "hi", t.hi[p]);
            serve_kv_num(o, "start", t.theta[p]);
            serve_kv_num(o, "now", t.theta[t.done * t.nparams + p]);
            strbuf_add(o, ", \"path\": [");
            for (long k = 0; k <= t.done; k++) {
                strbuf_addf(o, "%s[%ld, ", k ? ", " : "", k);
                strbuf_add_json_number(o, t.theta[k * t.nparams + p], 6);
                strbuf_add(o, "]");
            }
            strbuf_add(o, "]}");
        }
        strbuf_add(o, "]");
    }
    if (have_table)
        spsa_table_free(&t);
    strbuf_add(o, "}");
}

TvStatus serve_runs(Server *s, StrBuf *out, TvError *err)
{
    s->deadline = now_seconds() + SERVE_LIST_BUDGET;
    FoundList l = {0};
    scan(s, "", "", SCAN_DEPTH, &l);
    if (l.n > 0) /* qsort of no array: undefined */
        qsort(l.f, (size_t)l.n, sizeof *l.f, cmp_found);
    for (int i = 0; i < s->nstores; i++)
        s->stores[i].seen = false;
    strbuf_add(out, "{\"dir\": ");
    strbuf_add_json_string(out, s->dir_shown);
    strbuf_addf(out, ", \"now\": %lld, \"cut\": %s, \"runs\": [", (long long)time(NULL), l.cut ? "true" : "false");
    for (int i = 0; i < l.n; i++) {
        strbuf_add(out, i ? ",\n" : "\n");
        if (!strcmp(l.f[i].kind, "train"))
            train_json(s, &l, &l.f[i], out, false);
        else if (!strcmp(l.f[i].kind, "spsa"))
            spsa_json(s, &l, &l.f[i], out, false);
        else
            store_json(s, &l.f[i], out);
    }
    strbuf_add(out, "]}\n");
    /* stores no longer there leave the cache */
    int k = 0;
    for (int i = 0; i < s->nstores; i++) {
        if (s->stores[i].seen)
            s->stores[k++] = s->stores[i];
        else
            entry_clear(&s->stores[i]);
    }
    s->nstores = k;
    free(l.f);
    if (out->failed)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory writing the runs list");
    return TV_OK;
}

TvStatus serve_run(Server *s, const char *id, StrBuf *out, TvError *err)
{
    char abs[PATH_MAX];
    TvStatus st = serve_path(s, id, abs, sizeof abs, err);
    if (st != TV_OK)
        return st;
    const char *kind = serve_run_kind(abs);
    if (!kind)
        return tv_fail(err, TV_ERR_ARG, "%s is not a run (a store, a training or an SPSA folder)", id);
    FoundList l = {0};
    Found self;
    memset(&self, 0, sizeof self);
    snprintf(self.id, sizeof self.id, "%s", id);
    self.kind = kind;
    if (strcmp(kind, "tournament") != 0) {
        /* its stores, for their state and their links */
        scan(s, id, id, SCAN_DEPTH, &l);
        if (!strcmp(kind, "train"))
            train_json(s, &l, &self, out, true);
        else
            spsa_json(s, &l, &self, out, true);
        free(l.f);
        return out->failed ? tv_fail(err, TV_ERR_LIMIT, "out of memory") : TV_OK;
    }
    /* a store inside a train or SPSA folder names it as its parent */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", id);
    for (char *slash; (slash = strrchr(parent, '/'));) {
        *slash = 0;
        char pabs[PATH_MAX];
        if (serve_path(s, parent, pabs, sizeof pabs, NULL) == TV_OK && serve_run_kind(pabs)) {
            snprintf(self.parent, sizeof self.parent, "%s", parent);
            break;
        }
    }
    StrBuf entry = {0};
    s->deadline = 0; /* one run: always read */
    store_json(s, &self, &entry);
    const char *e = strbuf_str(&entry);
    /* the entry's members, then the detail's */
    strbuf_add_n(out, e, entry.len > 0 ? entry.len - 1 : 0);
    strbuf_free(&entry);
    FileSig sig;
    DetailEntry *d = NULL;
    if (serve_file_sig(abs, &sig)) {
        for (int i = 0; i < SERVE_DETAIL_CACHE; i++)
            if (s->detail[i].json && !strcmp(s->detail[i].id, id) && sig_equal(&s->detail[i].sig, &sig))
                d = &s->detail[i];
        if (!d) {
            StrBuf live = {0};
            TvError e2;
            const char *files[1] = {abs};
            if (report_live_json(files, 1, false, SERVE_REFEREE_LOSSES, &live, &e2) == TV_OK) {
                d = &s->detail[s->next_detail];
                s->next_detail = (s->next_detail + 1) % SERVE_DETAIL_CACHE;
                free(d->json);
                d->json = strbuf_take(&live);
                snprintf(d->id, sizeof d->id, "%s", id);
                d->sig = sig;
            } else {
                strbuf_free(&live);
                serve_kv_str(out, "detail_error", e2.msg);
            }
        }
    }
    if (d && d->json) {
        strbuf_add(out, ", \"detail\": {");
        strbuf_add(out, d->json);
        strbuf_add(out, "}");
    }
    strbuf_add(out, "}\n");
    return out->failed ? tv_fail(err, TV_ERR_LIMIT, "out of memory") : TV_OK;
}
