/* uci_engine.c: the built-in engine on the engine protocol (uci_engine.h).
 *
 * Two threads: the reader (uci_engine_run) reads commands; a search runs on
 * a thread of its own started by `go`, so that `stop`, `isready` and `quit`
 * are answered during it.  A command that changes what a search reads
 * (position, setoption, ucinewgame, go) stops a running search first, as
 * `stop` does (its bestmove is answered), then takes effect: the reader
 * never waits for a search that only `stop` would end.  Every line out goes
 * through one mutex. */
#define _POSIX_C_SOURCE 200809L
#include "uci_engine.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "option.h"
#include "record.h"
#include "search.h"
#include "strbuf.h"
#include "uci.h"

typedef struct {
    FILE *out;
    pthread_mutex_t out_lock;
    EngineVersion eng;  /* its weights and settings: options of core/option.h */
    Options rules;
    SearchContext *ctx; /* NULL until needed, and after an option change */
    bool fresh;         /* ctx was just made or cleared (ucinewgame) */
    bool has_pos;       /* false after a `position` that failed: go answers 0000 */
    Position pos;
    uint64_t *hist;     /* the positions of the game before pos (repetitions), all of them */
    int nhist;
    /* the search thread */
    pthread_t thread;
    bool searching;
    volatile sig_atomic_t stop;
    SearchLimits limits;
    SearchClock clock;
    bool has_clock;
    double started;
} Uci;

static void say(Uci *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&u->out_lock);
    vfprintf(u->out, fmt, ap);
    fputc('\n', u->out);
    fflush(u->out);
    pthread_mutex_unlock(&u->out_lock);
    va_end(ap);
}

/* ---- options ----------------------------------------------------------------- */

/* Threads: the only option of the protocol that is not in the table of
 * engine options (core/option.h); this engine searches on one thread. */
static void threads_decl(UciOption *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "Threads");
    d->type = UCI_OPT_SPIN;
    snprintf(d->def, sizeof d->def, "1");
    d->min = d->max = 1;
}

/* The declaration of every option, in the order `uci` lists them: Hash
 * (option 0 of the table), Threads, the rest of the table (the search
 * settings, the weight elements), the rule options.  Option k is returned
 * in *d; false past the last. */
static bool option_decl(const Uci *u, int k, UciOption *d)
{
    if (k == 1) {
        threads_decl(d);
        return true;
    }
    memset(d, 0, sizeof *d);
    int t = k == 0 ? 0 : k - 1;
    OptionInfo o;
    if (option_info(t, &o)) {
        snprintf(d->name, sizeof d->name, "%s", o.name);
        const int v = option_get(&u->eng, t);
        option_value_text(t, v, OPTION_SPELL_PROTOCOL, d->def, sizeof d->def);
        if (o.type == OPTION_BOOL) {
            d->type = UCI_OPT_CHECK;
        } else {
            d->type = UCI_OPT_SPIN;
            d->min = o.lo;
            d->max = o.hi;
        }
        return true;
    }
    t -= option_count();
    if (t < TV_NRULE_OPTIONS) {
        uci_rule_option_decl(t, d);
        return true;
    }
    return false;
}

/* Sets option name to value (a check takes every boolean spelling of
 * tv_parse_bool); an error explains why not. */
static TvStatus set_option(Uci *u, const char *name, const char *value, TvError *err)
{
    bool is_rule = false;
    if (uci_rule_option_set(&u->rules, name, value, &is_rule, err) != TV_OK)
        return err->status;
    if (is_rule)
        return TV_OK;
    const int k = option_find(name);
    if (k >= 0) {
        int v;
        if (option_parse_value(k, value, &v, err) != TV_OK)
            return err->status;
        return option_set(&u->eng, k, v, err);
    }
    UciOption threads;
    threads_decl(&threads);
    if (!strcasecmp(name, threads.name))
        return uci_option_check_value(&threads, value, err); /* 1 is its only value */
    return tv_fail(err, TV_ERR_ARG, "no option '%s' (see the answer to 'uci')", name);
}

/* The search context for the current options (made anew after a change).
 * A Hash that cannot be allocated is halved until it can (down to the
 * least, 1 MiB), and an info string says so, so that every go is answered;
 * false only when not even the least table can be had (also said). */
static bool ensure_context(Uci *u)
{
    if (u->ctx)
        return true;
    SearchSettings set = u->eng.settings;
    const int min_mb = SEARCH_SETTING_INFO[SS_hash_mb].lo;
    for (;;) {
        u->ctx = search_alloc(&u->eng.params, &u->rules, &set);
        if (u->ctx || set.hash_mb <= min_mb)
            break;
        set.hash_mb /= 2;
        if (set.hash_mb < min_mb)
            set.hash_mb = min_mb;
    }
    if (!u->ctx) {
        say(u, "info string out of memory: not even a %d MiB hash table can be allocated (Hash %d MiB asked)",
            min_mb, u->eng.settings.hash_mb);
        return false;
    }
    if (set.hash_mb != u->eng.settings.hash_mb)
        say(u, "info string out of memory for Hash %d MiB: searching with a %d MiB hash table instead (set a "
               "smaller Hash)",
            u->eng.settings.hash_mb, set.hash_mb);
    search_set_stop_flag(u->ctx, &u->stop);
    u->fresh = true;
    return true;
}

static void drop_context(Uci *u)
{
    search_free(u->ctx);
    u->ctx = NULL;
}

/* ---- the search thread ------------------------------------------------------ */

static int elapsed_ms(const Uci *u) { return (int)((tv_now_seconds() - u->started) * 1000.0 + 0.5); }

/* One info line for a search result (an iteration or the final one). */
static void say_info(Uci *u, const SearchResult *r)
{
    char words[SEARCH_MAX_PLY][TV_MOVE_STR_MAX];
    const char *pv[SEARCH_MAX_PLY];
    int npv = 0;
    Position p = u->pos;
    for (int i = 0; i < r->pv_len && i < SEARCH_MAX_PLY; i++) {
        move_to_str(&p, &u->rules, r->pv[i], false, words[npv], sizeof words[npv]);
        pv[npv] = words[npv];
        npv++;
        Undo undo;
        pos_make_move(&p, r->pv[i], &undo);
    }
    StrBuf b = {0};
    uci_info_format(r->depth, r->score, r->nodes, elapsed_ms(u), pv, npv, &b);
    say(u, "%s", strbuf_str(&b));
    strbuf_free(&b);
}

static void report_iteration(const SearchResult *it, void *user) { say_info(user, it); }

/* Searches (the search thread, or the reader when no thread can be had)
 * and answers bestmove. */
static void *search_thread(void *arg)
{
    Uci *u = arg;
    SearchResult r;
    search_run_clock(u->ctx, &u->pos, u->hist, u->nhist, &u->limits, u->has_clock ? &u->clock : NULL,
                     report_iteration, u, &r);
    say_info(u, &r); /* the search's own figures: what selfplay records in-process */
    char mv[TV_MOVE_STR_MAX] = "0000";
    if (r.best != TV_MOVE_NONE)
        move_to_str(&u->pos, &u->rules, r.best, false, mv, sizeof mv);
    say(u, "bestmove %s", mv);
    return NULL;
}

/* Ends a running search (stopping it first when asked) once it has
 * answered. */
static void finish_search(Uci *u, bool stop)
{
    if (!u->searching)
        return;
    if (stop)
        u->stop = 1;
    pthread_join(u->thread, NULL);
    u->searching = false;
    u->stop = 0;
}

/* Answers `go ARGS`: always with a bestmove, whatever the words. */
static void start_search(Uci *u, const char *args)
{
    UciGo go;
    TvError e;
    bool least = false; /* the least search: one that must answer at once */
    if (uci_go_parse(args, &go, &e) != TV_OK) {
        say(u, "info string %s; answering with the least search", e.msg);
        uci_go_init(&go);
        least = true;
    }
    if (go.ignored[0])
        say(u, "info string go: ignored '%s' (not supported by this engine)", go.ignored);
    if (!u->has_pos) {
        say(u, "info string go: no position to search (the last 'position' failed; send a good one)");
        say(u, "bestmove 0000");
        return;
    }
    if (!ensure_context(u)) {
        say(u, "bestmove 0000");
        return;
    }
    const char *zero = go.depth == 0         ? "depth 0"
                       : go.nodes == 0       ? "nodes 0"
                       : go.movetime_ms == 0 ? "movetime 0"
                       : go.mate == 0        ? "mate 0"
                                             : NULL;
    /* mate N: a mate in N moves of the side to move is found by a search of
     * 2N - 1 plies; the search ends there (or at a smaller depth given) */
    if (go.mate > 0) {
        const int plies = go.mate > SEARCH_MAX_PLY ? SEARCH_MAX_PLY : 2 * go.mate - 1;
        if (go.depth < 0 || go.depth > plies)
            go.depth = plies;
    }
    if (zero) {
        say(u, "info string go: '%s' leaves no search; answering with the least search", zero);
        least = true;
    }
    /* The least search is the one a clock at 0 gets (search.h): a 1 ms
     * budget, its best move so far. */
    u->limits = (SearchLimits){least || go.depth <= 0 ? 0 : go.depth, least || go.nodes <= 0 ? 0 : (uint64_t)go.nodes,
                               least || go.movetime_ms <= 0 ? 0 : go.movetime_ms};
    const int mover_ms = u->pos.side == TV_WHITE ? go.wtime_ms : go.btime_ms;
    u->has_clock = least || mover_ms >= 0; /* without the mover's time there is no clock to keep */
    u->clock = least ? (SearchClock){0, 0, 0, 0, 0}
                     : (SearchClock){go.wtime_ms > 0 ? go.wtime_ms : 0, go.btime_ms > 0 ? go.btime_ms : 0,
                                     go.winc_ms > 0 ? go.winc_ms : 0, go.binc_ms > 0 ? go.binc_ms : 0,
                                     go.movestogo > 0 ? go.movestogo : 0};
    u->stop = 0;
    u->started = tv_now_seconds();
    u->fresh = false;
    if (pthread_create(&u->thread, NULL, search_thread, u) != 0) {
        say(u, "info string cannot start a search thread: searching on the reader ('stop' is read afterwards)");
        search_thread(u);
        return;
    }
    u->searching = true;
}

/* Applies `position ARGS` whole or not at all: after an error the engine
 * has no position (go answers 0000) until a good one or ucinewgame. */
static void set_position(Uci *u, const char *args)
{
    const int cap = uci_position_plies(args) + 1;
    uint64_t *hist = malloc(sizeof *hist * (size_t)cap);
    Position p;
    int n = 0;
    TvError e;
    if (!hist) {
        u->has_pos = false;
        say(u, "info string position: out of memory for %d positions; no position is set", cap);
        return;
    }
    if (uci_position_parse(args, &u->rules, &p, hist, cap, &n, &e) != TV_OK) {
        free(hist);
        u->has_pos = false;
        say(u, "info string %s; no position is set (a go answers bestmove 0000) until a good 'position' or "
               "'ucinewgame'",
            e.msg);
        return;
    }
    free(u->hist);
    u->hist = hist;
    u->nhist = n;
    u->pos = p;
    u->has_pos = true;
}

static void set_start_position(Uci *u)
{
    tfen_read_arg("startpos", &u->pos, NULL);
    u->nhist = 0;
    u->has_pos = true;
}

/* ---- the reader ---------------------------------------------------------------- */

static void list_options(Uci *u)
{
    UciOption d;
    for (int k = 0; option_decl(u, k, &d); k++) {
        if (!d.name[0])
            continue;
        StrBuf b = {0};
        uci_option_format(&d, &b);
        say(u, "%s", strbuf_str(&b));
        strbuf_free(&b);
    }
}

TvStatus uci_engine_run(FILE *in, FILE *out, const EngineVersion *engine, const char *id_name, TvError *err)
{
    Uci *u = calloc(1, sizeof *u);
    if (!u)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for the engine");
    u->out = out;
    pthread_mutex_init(&u->out_lock, NULL);
    u->eng = *engine;
    set_start_position(u);
    TvStatus st = TV_OK;
    char *line = NULL;
    size_t cap = 0;
    /* lines of any length: a position of a long game is one line */
    while (getline(&line, &cap, in) >= 0) {
        char verb[32];
        const char *args = uci_verb(line, verb, sizeof verb);
        TvError e;
        if (!strcmp(verb, "uci")) {
            if (id_name)
                say(u, "id name %s", id_name);
            else
                say(u, "id name tavreli %s", engine->name);
            say(u, "id author the tavreli project");
            list_options(u);
            say(u, "uciok");
        } else if (!strcmp(verb, "isready")) {
            if (!u->searching)
                ensure_context(u); /* says what it could not allocate */
            say(u, "readyok");
        } else if (!strcmp(verb, "setoption")) {
            finish_search(u, true);
            char name[UCI_OPTION_NAME_MAX], value[UCI_OPTION_VALUE_MAX];
            if (uci_setoption_parse(args, name, sizeof name, value, sizeof value, &e) != TV_OK ||
                set_option(u, name, value, &e) != TV_OK)
                say(u, "info string setoption: %s", e.msg);
            else
                drop_context(u);
        } else if (!strcmp(verb, "ucinewgame")) {
            finish_search(u, true);
            if (u->ctx && !u->fresh)
                search_clear(u->ctx);
            u->fresh = u->ctx != NULL;
            set_start_position(u);
        } else if (!strcmp(verb, "position")) {
            finish_search(u, true);
            set_position(u, args);
        } else if (!strcmp(verb, "go")) {
            finish_search(u, true);
            start_search(u, args);
        } else if (!strcmp(verb, "stop")) {
            finish_search(u, true);
        } else if (!strcmp(verb, "quit")) {
            break;
        } else if (verb[0]) {
            say(u, "info string unknown command '%s'", verb);
        }
    }
    finish_search(u, true);
    drop_context(u);
    pthread_mutex_destroy(&u->out_lock);
    free(u->hist);
    free(u);
    free(line);
    return st;
}
