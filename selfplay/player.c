/* player.c: the players behind player.h.  Each kind is a table of its
 * operations (new game, go, close), chosen once in player_open: the only
 * place that asks which kind a player is. */
#include "player.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "atomic_file.h"
#include "engine.h"
#include "engine_proc.h"
#include "option.h"
#include "movegen.h"
#include "notation.h"
#include "rng.h"

typedef struct {
    TvStatus (*new_game)(Player *p, uint64_t seed, bool *again, TvError *err);
    PlayerAnswer (*go)(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                       PlayerMove *out);
    void (*close)(Player *p);
} PlayerOps;

struct Player {
    const PlayerOps *ops;
    const TournamentEngine *te;
    const Options *rules;
    const char *store_path;
    SearchContext *ctx; /* the built-in engine */
    EngineProc *proc;   /* a separate program: NULL until the first game, and again after a failure
                           that made it unusable (the next game starts a fresh one) */
    StoredEngine first; /* ... what its first start was (program_identity): every restart must be
                           the same program (first.id_name[0] or first.exe_sha256[0]: known) */
    bool started;
    uint64_t rng;       /* a random mover: the game's random numbers */
};

static void move_text(const Player *p, const Position *pos, Move m, PlayerMove *out)
{
    move_to_str(pos, p->rules, m, false, out->move, sizeof out->move);
}

/* ---- the built-in engine ------------------------------------------------------ */

static TvStatus engine_new_game(Player *p, uint64_t seed, bool *again, TvError *err)
{
    (void)seed;
    (void)again;
    (void)err;
    search_clear(p->ctx);
    return TV_OK;
}

static PlayerAnswer engine_go(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                              PlayerMove *out)
{
    const int side = g->pos->side;
    const SearchClock sc = {c->left_ms[TV_WHITE], c->left_ms[TV_BLACK], c->inc_ms[TV_WHITE], c->inc_ms[TV_BLACK],
                            c->movestogo};
    search_set_stop_flags(p->ctx, stop);
    SearchResult sr;
    const double t0 = tv_now_seconds();
    search_run_clock(p->ctx, g->pos, g->hist, g->nmoves, &p->te->engine.limits, c->on[side] ? &sc : NULL, NULL,
                     NULL, &sr);
    out->seconds = tv_now_seconds() - t0;
    if (stop_flags_set(stop))
        return PLAYER_STOPPED;
    move_text(p, g->pos, sr.best, out);
    out->has_score = true;
    out->score = sr.score;
    out->depth = sr.depth;
    out->nodes = sr.nodes;
    return PLAYER_MOVED;
}

static void engine_close(Player *p) { search_free(p->ctx); }

static const PlayerOps ENGINE_OPS = {engine_new_game, engine_go, engine_close};

/* ---- a mover at random --------------------------------------------------------- */

static TvStatus random_new_game(Player *p, uint64_t seed, bool *again, TvError *err)
{
    (void)again;
    (void)err;
    p->rng = seed;
    return TV_OK;
}

static PlayerAnswer random_go(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                              PlayerMove *out)
{
    (void)c;
    (void)stop;
    const double t0 = tv_now_seconds();
    MoveList list;
    movegen_legal(g->pos, p->rules, &list);
    const Move m = list.moves[tv_rng_below(&p->rng, (uint64_t)list.count)];
    out->seconds = tv_now_seconds() - t0;
    move_text(p, g->pos, m, out);
    return PLAYER_MOVED;
}

static void random_close(Player *p) { (void)p; }

static const PlayerOps RANDOM_OPS = {random_new_game, random_go, random_close};

/* ---- a separate program ---------------------------------------------------------- */

/* How to start the program of te; its stderr goes by default to
 * STORE.ENGINE.log beside the store (no store: only its last lines are
 * kept, for errors).  stderr_buf holds that path. */
static EngineProcSpec process_spec(const TournamentEngine *te, const Options *o, const char *store_path,
                                   char *stderr_buf, size_t n)
{
    const char *errpath = te->stderr_path;
    if (!strcmp(errpath, TOURNAMENT_STDERR_DISCARD)) {
        errpath = "";
    } else if (!*errpath && store_path) {
        size_t len = strlen(store_path);
        if (len > 3 && !strcmp(store_path + len - 3, ".h5"))
            len -= 3;
        snprintf(stderr_buf, n, "%.*s.%s.log", (int)len, store_path, te->engine.name);
        errpath = stderr_buf;
    }
    return (EngineProcSpec){.label = te->engine.name,
                            .command = te->command,
                            .dir = te->dir,
                            .stderr_path = errpath,
                            .log_path = te->log_path,
                            .log_cap = (int64_t)te->log_cap_mb << 20,
                            .rules = o,
                            .noptions = te->noptions,
                            .option_names = (const char (*)[UCI_OPTION_NAME_MAX])te->option_names,
                            .option_values = (const char (*)[UCI_OPTION_VALUE_MAX])te->option_values,
                            .start_timeout_ms = te->start_timeout_ms};
}

static void process_drop(Player *p)
{
    engine_proc_close(p->proc);
    p->proc = NULL;
}

/* What a started program is (engine_id.h): te's identity, the executable
 * its command runs and what it said (id name and author, a tavreli
 * build's commit). */
static TvStatus program_identity(const TournamentEngine *te, const EngineProc *proc, StoredEngine *se,
                                 TvError *err)
{
    engine_id_of_entry(te, se);
    TvError e;
    if (engine_id_program(te->command, se, &e) != TV_OK)
        return tv_fail(err, e.status, "engine '%s': %s", te->engine.name, e.msg);
    snprintf(se->id_name, sizeof se->id_name, "%s", engine_proc_name(proc));
    snprintf(se->id_author, sizeof se->id_author, "%s", engine_proc_author(proc));
    engine_id_commit_of_name(se->id_name, se->commit, sizeof se->commit);
    /* every option it declared, with the value in effect */
    const int n = engine_proc_option_count(proc);
    char(*words)[UCI_OPTION_NAME_MAX + UCI_OPTION_VALUE_MAX + 2] = calloc((size_t)(n > 0 ? n : 1), sizeof *words);
    char **sorted = calloc((size_t)(n > 0 ? n : 1), sizeof *sorted);
    int k = 0;
    for (int i = 0; words && sorted && i < n; i++) {
        const UciOption *opt = engine_proc_option(proc, i);
        if (opt->type == UCI_OPT_BUTTON)
            continue;
        const char *value = opt->def;
        for (int j = 0; j < te->noptions; j++)
            if (!strcasecmp(te->option_names[j], opt->name))
                value = te->option_values[j];
        snprintf(words[k], sizeof words[k], "%s=%s", opt->name, value);
        sorted[k] = words[k];
        k++;
    }
    if (words && sorted)
        engine_id_join_sorted(sorted, k, se->options_in_effect, sizeof se->options_in_effect);
    free(words);
    free(sorted);
    if (!words || !sorted)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    return TV_OK;
}

static TvStatus process_new_game(Player *p, uint64_t seed, bool *again, TvError *err)
{
    (void)seed;
    if (p->proc && !engine_proc_alive(p->proc))
        process_drop(p);
    if (!p->proc) {
        char errpath[TOURNAMENT_PATH_MAX + 128];
        EngineProcSpec spec = process_spec(p->te, p->rules, p->store_path, errpath, sizeof errpath);
        if (engine_proc_start(&spec, &p->proc, err) != TV_OK) {
            /* The program started before this game (the run checked every
             * program at its start, runner_identify): a start that fails now
             * (a uciok late on a loaded machine) is tried again with the game
             * ([tournament] game_attempts).  SPSA starts its programs anew
             * every iteration, and one late uciok at iteration 2 ended a run. */
            *again = true;
            return err ? err->status : TV_ERR_IO;
        }
        /* a restart must start the program this player began with: one name, one version */
        StoredEngine now;
        TvStatus st = program_identity(p->te, p->proc, &now, err);
        char why[512];
        if (st == TV_OK && p->started && engine_id_difference(&p->first, "at its first start", &now, "now", why,
                                                             sizeof why))
            st = tv_fail(err, TV_ERR_ARG,
                         "engine '%s' was started again as another program (%s): its games would mix two "
                         "versions under one name; the run stops here (--resume continues it once the program is "
                         "the one the store holds)",
                         p->te->engine.name, why);
        if (st != TV_OK) {
            process_drop(p);
            return st;
        }
        if (!p->started) {
            p->first = now;
            p->started = true;
        }
    }
    TvStatus st = engine_proc_new_game(p->proc, err);
    if (st != TV_OK) { /* it ended or did not answer: a fresh one for the next attempt */
        process_drop(p);
        *again = true;
    }
    return st;
}

static PlayerAnswer process_go(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                               PlayerMove *out)
{
    const TournamentEngine *te = p->te;
    const SearchLimits *l = &te->engine.limits;
    const int side = g->pos->side;
    UciGo go;
    uci_go_init(&go);
    if (l->depth > 0)
        go.depth = l->depth;
    if (l->nodes > 0)
        go.nodes = (int64_t)l->nodes;
    if (l->movetime_ms > 0)
        go.movetime_ms = l->movetime_ms;
    if (c->on[TV_WHITE]) {
        go.wtime_ms = c->left_ms[TV_WHITE];
        go.winc_ms = c->inc_ms[TV_WHITE];
    }
    if (c->on[TV_BLACK]) {
        go.btime_ms = c->left_ms[TV_BLACK];
        go.binc_ms = c->inc_ms[TV_BLACK];
    }
    if (c->on[side] && c->movestogo > 0)
        go.movestogo = c->movestogo;
    /* Waited for from `go` until its clock or movetime and its timemargin
     * are over (and 2 ms), or its timeout without either. */
    const double limit_ms = c->on[side]         ? c->left_ms[side] + te->timemargin_ms
                            : l->movetime_ms > 0 ? l->movetime_ms + te->timemargin_ms
                                                 : te->timeout_ms;
    EngineMove em;
    EngineMoveStatus ms = engine_proc_go(p->proc, g->start_tfen, g->moves, g->nmoves, &go, limit_ms / 1000.0 + 0.002,
                                         stop, &em);
    out->seconds = em.seconds;
    out->ready_seconds = em.ready_seconds;
    switch (ms) {
    case ENGINE_MOVE_ABORTED:
        return PLAYER_STOPPED;
    case ENGINE_MOVE_UNREADY: /* no readyok before go: it cannot be asked for a move */
        out->failure = TERM_ENGINE_STALLED;
        out->unready = true;
        process_drop(p);
        return PLAYER_FAILED;
    case ENGINE_MOVE_LATE: {
        const bool timed = c->on[side] || l->movetime_ms > 0;
        out->failure = timed ? TERM_TIME_FORFEIT : TERM_ENGINE_STALLED;
        if (!timed || !engine_proc_stop(p->proc, 1000))
            process_drop(p); /* a fresh one plays the next game */
        return PLAYER_FAILED;
    }
    case ENGINE_MOVE_DIED:
        out->failure = TERM_ENGINE_DIED;
        process_drop(p);
        return PLAYER_FAILED;
    case ENGINE_MOVE_NOMOVE:
        out->failure = TERM_ILLEGAL_MOVE;
        return PLAYER_FAILED;
    case ENGINE_MOVE_OK:
        break;
    }
    snprintf(out->move, sizeof out->move, "%s", em.move);
    out->has_score = em.info.has_score;
    out->score = em.info.has_score ? em.info.score : 0;
    out->depth = em.info.depth > 0 ? em.info.depth : 0;
    out->nodes = em.info.nodes > 0 ? (uint64_t)em.info.nodes : 0;
    return PLAYER_MOVED;
}

static void process_close(Player *p) { engine_proc_close(p->proc); }

static const PlayerOps PROCESS_OPS = {process_new_game, process_go, process_close};

/* ---- the seam ------------------------------------------------------------------- */

TvStatus player_open(const TournamentEngine *te, const Options *o, const char *store_path, Player **out,
                     TvError *err)
{
    *out = NULL;
    Player *p = calloc(1, sizeof *p);
    if (!p)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for player '%s'", te->engine.name);
    p->te = te;
    p->rules = o;
    p->store_path = store_path;
    switch (te->kind) {
    case PLAYER_ENGINE:
        p->ops = &ENGINE_OPS;
        p->ctx = search_alloc(&te->engine.params, o, &te->engine.settings);
        if (!p->ctx) {
            free(p);
            return tv_fail(err, TV_ERR_LIMIT, "out of memory for the search of engine '%s'", te->engine.name);
        }
        break;
    case PLAYER_RANDOM:
        p->ops = &RANDOM_OPS;
        break;
    case PLAYER_PROCESS:
        p->ops = &PROCESS_OPS;
        break;
    default:
        free(p);
        return tv_fail(err, TV_ERR_ARG, "player '%s' is of an unknown kind %d", te->engine.name, (int)te->kind);
    }
    *out = p;
    return TV_OK;
}

void player_close(Player *p)
{
    if (!p)
        return;
    p->ops->close(p);
    free(p);
}

const TournamentEngine *player_config(const Player *p) { return p->te; }

TvStatus player_identify(const TournamentEngine *te, const Options *o, const char *store_path, StoredEngine *se,
                         TvError *err)
{
    if (te->kind != PLAYER_PROCESS) {
        engine_id_of_entry(te, se);
        return TV_OK;
    }
    char errpath[TOURNAMENT_PATH_MAX + 128];
    EngineProcSpec spec = process_spec(te, o, store_path, errpath, sizeof errpath);
    EngineProc *proc;
    TvStatus st = engine_proc_start(&spec, &proc, err);
    if (st == TV_OK)
        st = program_identity(te, proc, se, err);
    engine_proc_close(proc);
    if (st != TV_OK || !strcmp(te->bench, TOURNAMENT_BENCH_NONE))
        return st;
    /* its bench signature: the command given, else a tavreli build's own */
    if (!*te->bench && strncmp(se->id_name, "tavreli ", 8))
        return TV_OK;
    TvError e;
    if ((*te->bench ? engine_id_bench(te->bench, te->dir, &se->bench, &e)
                    : engine_id_tavreli_bench(se->exe_path, &se->bench, &e)) != TV_OK)
        return tv_fail(err, e.status, "engine '%s': %s%s", te->engine.name, e.msg,
                       *te->bench ? "" : " (bench = none in its section leaves the signature out)");
    return TV_OK;
}

TvStatus player_new_game(Player *p, uint64_t seed, bool *again, TvError *err)
{
    *again = false;
    return p->ops->new_game(p, seed, again, err);
}

PlayerAnswer player_go(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                       PlayerMove *out)
{
    memset(out, 0, sizeof *out);
    out->failure = TERM_ILLEGAL_MOVE;
    return p->ops->go(p, g, c, stop, out);
}

int player_threads(const TournamentEngine *te)
{
    int threads = 1;
    for (int k = 0; te->kind == PLAYER_PROCESS && k < te->noptions; k++)
        if (!strcasecmp(te->option_names[k], "Threads") && atoi(te->option_values[k]) > threads)
            threads = atoi(te->option_values[k]);
    return threads;
}

/* ---- a player's integer parameters ---------------------------------------------------- */

static void param_no(PlayerParamInfo *info, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void param_no(PlayerParamInfo *info, const char *fmt, ...)
{
    info->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->why, sizeof info->why, fmt, ap);
    va_end(ap);
}

TvStatus player_params(const TournamentEngine *te, const Options *o, const char *const *names, int n,
                       bool start_programs, PlayerParamInfo *info, TvError *err)
{
    for (int i = 0; i < n; i++)
        info[i] = (PlayerParamInfo){.known = te->kind != PLAYER_PROCESS || start_programs, .index = -1};
    if (te->kind == PLAYER_PROCESS && !start_programs)
        return TV_OK;
    if (te->kind == PLAYER_RANDOM) {
        for (int i = 0; i < n; i++)
            param_no(&info[i], "the engine plays random moves, it has nothing to tune");
        return TV_OK;
    }
    if (te->kind == PLAYER_ENGINE) {
        for (int i = 0; i < n; i++) {
            OptionInfo oi;
            const int k = option_find(names[i]);
            if (k < 0 || !option_info(k, &oi))
                param_no(&info[i],
                         "the built-in engine has no such setting or weight (see 'tavreli weights' and "
                         "core/search.def; weight elements are written like top_value[1])");
            else if (oi.type == OPTION_BOOL)
                param_no(&info[i], "a yes/no setting, not tunable: set it in the engine file");
            else
                info[i] = (PlayerParamInfo){.known = true, .ok = true, .lo = oi.lo, .hi = oi.hi, .index = k};
        }
        return TV_OK;
    }
    /* a program: what it declares */
    char errpath[TOURNAMENT_PATH_MAX + 128];
    EngineProcSpec spec = process_spec(te, o, NULL, errpath, sizeof errpath);
    spec.stderr_path = "";
    EngineProc *proc;
    TvStatus st = engine_proc_start(&spec, &proc, err);
    if (st != TV_OK)
        return st;
    for (int i = 0; i < n; i++) {
        const UciOption *found = NULL;
        for (int k = 0; k < engine_proc_option_count(proc); k++)
            if (!strcmp(engine_proc_option(proc, k)->name, names[i]))
                found = engine_proc_option(proc, k);
        if (!found)
            param_no(&info[i], "engine '%s' declares no option %s (its 'uci' answer lists its options)",
                     te->engine.name, names[i]);
        else if (found->type != UCI_OPT_SPIN)
            param_no(&info[i], "engine '%s' declares it as a %s option; only spin options are tunable",
                     te->engine.name, uci_option_type_name(found->type));
        else
            info[i] = (PlayerParamInfo){.known = true, .ok = true, .lo = (long)found->min, .hi = (long)found->max,
                                        .index = -1};
    }
    engine_proc_close(proc);
    return TV_OK;
}

TvStatus player_take_options(TournamentEngine *te, int *bad, TvError *err)
{
    *bad = -1;
    for (int k = 0; te->kind != PLAYER_PROCESS && k < te->noptions; k++)
        if (option_set_text(&te->engine, te->option_names[k], te->option_values[k], err) != TV_OK) {
            *bad = k;
            return err->status;
        }
    return TV_OK;
}

TvStatus player_set_param(TournamentEngine *te, const char *name, long value, TvError *err)
{
    if (te->kind != PLAYER_PROCESS) {
        const int k = option_find(name);
        if (k < 0)
            return tv_fail(err, TV_ERR_ARG, "engine '%s' has no setting or weight %s", te->engine.name, name);
        return option_set(&te->engine, k, (int)value, err);
    }
    int k = 0;
    while (k < te->noptions && strcmp(te->option_names[k], name) != 0)
        k++;
    if (k == te->noptions) {
        if (k == TOURNAMENT_MAX_OPTIONS)
            return tv_fail(err, TV_ERR_LIMIT, "engine '%s': more than %d options with the parameters",
                           te->engine.name, TOURNAMENT_MAX_OPTIONS);
        snprintf(te->option_names[k], sizeof te->option_names[k], "%s", name);
        te->noptions++;
    }
    snprintf(te->option_values[k], sizeof te->option_values[k], "%ld", value);
    return TV_OK;
}

TvStatus player_write(const TournamentEngine *te, const char *path, const char *name, const char *comment,
                      TvError *err)
{
    if (te->kind != PLAYER_PROCESS) {
        EngineVersion e = te->engine;
        snprintf(e.name, sizeof e.name, "%s", name);
        return engine_write(path, &e, comment, err);
    }
    TvAtomicFile a;
    TvStatus st = tv_atomic_open(&a, path, "engine options file", err);
    if (st != TV_OK)
        return st;
    fprintf(a.f, "; %s\n; engine '%s' (command = %s): the option lines of its [engine] section\n", comment, name,
            te->command);
    for (int k = 0; k < te->noptions; k++)
        fprintf(a.f, "option.%s = %s\n", te->option_names[k], te->option_values[k]);
    return tv_atomic_commit(&a, err);
}

TvStatus player_section(const TournamentEngine *te, const char *written, StrBuf *out, TvError *err)
{
    if (te->kind != PLAYER_PROCESS)
        strbuf_addf(out, "path = %s\n", written);
    else
        for (int k = 0; k < te->noptions; k++)
            strbuf_addf(out, "option.%s = %s\n", te->option_names[k], te->option_values[k]);
    return out->failed ? tv_fail(err, TV_ERR_LIMIT, "out of memory") : TV_OK;
}
