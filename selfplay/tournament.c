/* tournament.c: what a tournament is once read: its defaults and the plan
 * of its games (pairings, colours, openings per game, seeds), and whether a
 * stored tournament may be continued by another configuration.  See
 * tournament.h; the INI reader is tournament_ini.c, the openings are in
 * tournament_openings.c. */
#include "tournament.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "rng.h"
#include "stats.h"

/* ---- defaults ------------------------------------------------------------------ */

void tournament_defaults(Tournament *t, const char *name)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->format = FORMAT_ROUND_ROBIN;
    t->pairs = 10;
    sprt_settings_default(&t->sprt_settings);
    t->seed = 1;
    t->threads = 0;
    t->game_attempts = TOURNAMENT_GAME_ATTEMPTS;
    t->openings.plies = 6;
    t->openings.balance_depth = 2;
    t->openings.balance_cp = 150;
    t->openings.sample_temperature = 100;
    t->openings.start = 1;
    t->adjudication.max_plies = 400;
    t->adjudication.resign_score = 1000;
    t->adjudication.resign_moves = 4;
    t->adjudication.draw_score = 10;
    t->adjudication.draw_moves = 8;
    t->adjudication.draw_after_ply = 80;
    for (int i = 0; i < TOURNAMENT_MAX_ENGINES; i++) {
        TournamentEngine *te = &t->engines[i];
        engine_default(&te->engine);
        te->timemargin_ms = 100;
        te->timeout_ms = MATCH_ANSWER_TIMEOUT_MS;
        te->log_cap_mb = TOURNAMENT_LOG_CAP_MB;
    }
}

void tournament_free(Tournament *t)
{
    if (!t)
        return;
    free(t->text);
    t->text = NULL;
    free(t->opening_tfens);
    t->opening_tfens = NULL;
    t->nopening_tfens = 0;
}

/* ---- the plan ------------------------------------------------------------------ */

int tournament_pairings(const Tournament *t)
{
    int n = t->nengines;
    if (n < 2)
        return 0;
    return t->format == FORMAT_GAUNTLET ? n - 1 : n * (n - 1) / 2;
}

/* Round-robin pairings in order (0,1), (0,2), ..., (0,n-1), (1,2), ...;
 * gauntlet pairings (0,1), (0,2), ..., (0,n-1). */
void tournament_pairing(const Tournament *t, int p, int *first, int *second)
{
    int n = t->nengines;
    if (t->format == FORMAT_GAUNTLET) {
        *first = 0;
        *second = p + 1;
        return;
    }
    for (int i = 0; i < n - 1; i++) {
        if (p < n - 1 - i) {
            *first = i;
            *second = i + 1 + p;
            return;
        }
        p -= n - 1 - i;
    }
    *first = 0; /* p out of range: not reached for 0 <= p < pairings */
    *second = 1;
}

/* ---- which engine versions play ------------------------------------------------- */

bool tournament_can_continue(const Tournament *stored, const Tournament *now, char *why, size_t n)
{
    const Tournament *a = stored, *b = now;
#define DIFFERS(cond, ...)                                                                                           \
    do {                                                                                                             \
        if (cond) {                                                                                                  \
            snprintf(why, n, __VA_ARGS__);                                                                           \
            return false;                                                                                            \
        }                                                                                                            \
    } while (0)
    DIFFERS(a->format != b->format, "[tournament] format differs");
    DIFFERS(a->seed != b->seed, "[tournament] seed %llu, now %llu", (unsigned long long)a->seed,
            (unsigned long long)b->seed);
    DIFFERS(b->pairs < a->pairs, "[tournament] pairs %d, now %d (fewer pairs would drop stored games)", a->pairs,
            b->pairs);
    DIFFERS(memcmp(&a->rules, &b->rules, sizeof a->rules) != 0, "[rules] differ");
    DIFFERS(a->openings.plies != b->openings.plies || a->openings.balance_depth != b->openings.balance_depth ||
                a->openings.balance_cp != b->openings.balance_cp || strcmp(a->openings.file, b->openings.file) ||
                a->openings.per_game != b->openings.per_game ||
                a->openings.sample_plies != b->openings.sample_plies ||
                a->openings.sample_temperature != b->openings.sample_temperature ||
                a->openings.random_order != b->openings.random_order || a->openings.start != b->openings.start ||
                a->openings.plies_given != b->openings.plies_given || a->openings.format != b->openings.format,
            "[openings] differ"); /* cycle may differ: it changes no game, it only allows more */
    DIFFERS(memcmp(&a->adjudication, &b->adjudication, sizeof a->adjudication) != 0, "[adjudication] differs");
    DIFFERS(a->sprt != b->sprt || (a->sprt && memcmp(&a->sprt_settings, &b->sprt_settings, sizeof a->sprt_settings)),
            "[sprt] differs");
    DIFFERS(a->nengines != b->nengines, "%d engines, now %d", a->nengines, b->nengines);
    for (int i = 0; i < a->nengines; i++) {
        const TournamentEngine *x = &a->engines[i], *y = &b->engines[i];
        StoredEngine ex, ey;
        engine_id_of_entry(x, &ex);
        engine_id_of_entry(y, &ey);
        char d[400];
        DIFFERS(engine_id_difference(&ex, "then", &ey, "now", d, sizeof d), "engine %d ('%s'): %s", i + 1,
                x->engine.name, d);
        /* the harness's own settings of it */
        DIFFERS(x->timeout_ms != y->timeout_ms, "engine '%s': its timeout differs", x->engine.name);
        DIFFERS(strcmp(x->dir, y->dir), "engine '%s': its dir differs", x->engine.name);
    }
#undef DIFFERS
    return true;
}

/* The next line of text that holds a setting (not blank, not a comment),
 * trimmed, from *p on; its number in *line.  False at the end. */
static bool next_setting(const char **p, int *line, char *buf, size_t n)
{
    while (**p) {
        const char *s = *p, *eol = strchr(s, '\n');
        const char *end = eol ? eol : s + strlen(s);
        *p = eol ? eol + 1 : end;
        ++*line;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        const char *cut = s;
        while (cut < end && *cut != ';' && *cut != '#')
            cut++;
        while (cut > s && (cut[-1] == ' ' || cut[-1] == '\t' || cut[-1] == '\r'))
            cut--;
        if (cut == s)
            continue;
        snprintf(buf, n, "%.*s", (int)(cut - s), s);
        return true;
    }
    return false;
}

void tournament_text_difference(const char *a, const char *b, char *buf, size_t n)
{
    const char *pa = a ? a : "", *pb = b ? b : "";
    int la = 0, lb = 0;
    char sa[256], sb[256];
    buf[0] = 0;
    for (;;) {
        bool ha = next_setting(&pa, &la, sa, sizeof sa), hb = next_setting(&pb, &lb, sb, sizeof sb);
        if (!ha && !hb)
            return;
        if (ha && hb) {
            /* blanks around '=' do not count */
            char ca[256], cb[256];
            size_t i = 0, j = 0;
            for (const char *c = sa; *c; c++)
                if (*c != ' ' && *c != '\t')
                    ca[i++] = *c;
            for (const char *c = sb; *c; c++)
                if (*c != ' ' && *c != '\t')
                    cb[j++] = *c;
            ca[i] = cb[j] = 0;
            if (!strcmp(ca, cb))
                continue;
        }
        char xa[300], xb[300];
        if (ha)
            snprintf(xa, sizeof xa, "line %d '%s'", la, sa);
        else
            snprintf(xa, sizeof xa, "(none)");
        if (hb)
            snprintf(xb, sizeof xb, "line %d '%s'", lb, sb);
        else
            snprintf(xb, sizeof xb, "(none)");
        snprintf(buf, n, "%s, now %s", xa, xb);
        return;
    }
}

bool tournament_engines_identical(const Tournament *t, int a, int b)
{
    StoredEngine x, y;
    engine_id_of_entry(&t->engines[a], &x);
    engine_id_of_entry(&t->engines[b], &y);
    snprintf(y.name, sizeof y.name, "%s", x.name); /* two names, one version */
    return engine_id_identical(&x, &y) && !strcmp(t->engines[a].dir, t->engines[b].dir);
}

bool tournament_reproducible(const Tournament *t)
{
    for (int i = 0; i < t->nengines; i++) {
        StoredEngine e;
        engine_id_of_entry(&t->engines[i], &e);
        if (!engine_id_reproducible(&e))
            return false;
    }
    return true;
}

int64_t tournament_total_games(const Tournament *t)
{
    return (int64_t)tournament_pairings(t) * t->pairs * 2;
}

int64_t tournament_openings_needed(const Tournament *t)
{
    return t->openings.per_game ? tournament_total_games(t) : t->pairs;
}

/* With P pairings, game i belongs to
 *     pair k = i / 2,  round r = k / P,  pairing p = k % P,
 * so round r (games 2rP .. 2rP + 2P - 1) plays every pairing once and an
 * interrupted run has played whole rounds.  Game 2k has the pairing's first
 * engine as White, game 2k + 1 the second.  Both use opening r: all pairings
 * of a round start from the same position, which makes their results
 * comparable.  With [openings] per_game every game has its own opening,
 * opening i.  The game's seed is the (i+1)-th output of splitmix64 started
 * at t->seed, i.e. mix(t->seed + (i + 1) * 0x9E3779B97F4A7C15). */
const char *tournament_game_difference(const PlannedGame *stored, const PlannedGame *plan, char *why, size_t n)
{
    const PlannedGame *a = stored, *b = plan;
    if (a->pairing == b->pairing && a->white == b->white && a->black == b->black && a->opening == b->opening &&
        a->seed == b->seed)
        return NULL;
    snprintf(why, n,
             "pairing %d, white %d, black %d, opening %d, seed %llu stored, the plan has %d, %d, %d, %d, %llu",
             a->pairing, a->white, a->black, a->opening, (unsigned long long)a->seed, b->pairing, b->white, b->black,
             b->opening, (unsigned long long)b->seed);
    return why;
}

void tournament_game(const Tournament *t, int64_t i, PlannedGame *g)
{
    int P = tournament_pairings(t);
    int64_t k = i / 2;
    int first = 0, second = 1;
    g->index = i;
    g->pairing = P > 0 ? (int)(k % P) : 0;
    g->opening = t->openings.per_game ? (int)i : P > 0 ? (int)(k / P) : 0;
    if (P > 0)
        tournament_pairing(t, g->pairing, &first, &second);
    g->white = i % 2 == 0 ? first : second;
    g->black = i % 2 == 0 ? second : first;
    g->seed = tv_rng_mix(t->seed + (uint64_t)i * TV_RNG_GOLDEN);
}
