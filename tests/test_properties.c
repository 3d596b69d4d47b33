/* test_properties.c: property tests over seeded random legal walks.
 *
 * From the start position and from every TFEN of data/rules_cases.tsv, random
 * legal walks (seeded, deterministic) visit positions; at each one:
 *  (a) make then unmake restores the Position exactly (pos_equal) and the hash;
 *  (b) after every make, pos_is_ok (incremental hash, bitboards);
 *  (c) TFEN round-trips (tfen_read(tfen_write(p)) == p, same string again),
 *      and the independent reader of simple_movegen.c reads the same stacks;
 *  (d) every legal move's string round-trips through move_to_str/move_parse
 *      (with and without suffix, strict and lenient);
 *  (e) the colour-mirrored position has the same perft (depth 2 along the
 *      walks, depth 3 on a sample);
 *  (f) core's movegen_legal equals the independent generator of
 *      simple_movegen.c (same (from, to, k, special) set) under the default
 *      options and every combination of the variant options; after every
 *      move, core's make and the simple make give the same position; perft
 *      agrees at depth 3 on every rules case and at depth 2 along the walks.
 * The rules_cases.tsv perft numbers are also checked against the simple
 * generator alone (with its own TFEN reader), which shows that the simple
 * generator is right on its own.
 *
 * On a disagreement the test prints the position (TFEN), the options and the
 * first move where the two generators part (found by divide). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "rng.h"
#include "notation.h"
#include "perft.h"
#include "position.h"
#include "simple_movegen.h"
#include "tfen.h"

/* ---- reporting ------------------------------------------------------------ */

static int g_failures;

static void report(const char *fmt, ...)
{
    if (g_failures < 40) {
        char buf[4096];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        print_error("%s\n", buf);
    } else if (g_failures == 40) {
        print_error("(further failures not printed)\n");
    }
    g_failures++;
}

static const char *tfen_of(const Position *p, char *buf)
{
    if (pos_wizard_captured(p, TV_WHITE) || pos_wizard_captured(p, TV_BLACK)) {
        snprintf(buf, TV_TFEN_MAX, "(a Wizard has been landed on: no TFEN)");
        return buf;
    }
    return tfen_write(p, buf, TV_TFEN_MAX);
}

/* ---- options --------------------------------------------------------------- */

#define N_OPTION_SETS 8

/* Option set i: bit 0 slide_over_own=yes, bit 1 enpassant=any, bit 2
 * ending=capture.  Set 0 is the default. */
static Options option_set(int i)
{
    Options o;
    memset(&o, 0, sizeof o);
    o.slide_over_own = (i & 1) != 0;
    o.enpassant = (i & 2) ? TV_EP_ANY : TV_EP_COMBATANT;
    o.ending = (i & 4) ? TV_ENDING_CAPTURE : TV_ENDING_CHECKMATE;
    return o;
}

static const char *options_name(const Options *o, char *buf, size_t n)
{
    snprintf(buf, n, "slide_over_own=%s enpassant=%s ending=%s", o->slide_over_own ? "yes" : "no",
             o->enpassant == TV_EP_ANY ? "any" : "combatant",
             o->ending == TV_ENDING_CAPTURE ? "capture" : "checkmate");
    return buf;
}

/* ---- deterministic randomness ---------------------------------------------- */

/* ---- rules cases ----------------------------------------------------------- */

typedef struct {
    char tfen[TV_TFEN_MAX];
    uint64_t perft[3];
    char what[400];
    int line;
} RulesCase;

#define MAX_CASES 256
static RulesCase g_cases[MAX_CASES]; /* rules_cases.tsv: TFEN, perft 1-3, what */
static int g_ncases;
static RulesCase g_extra[MAX_CASES]; /* property_positions.tsv: TFEN, what */
static int g_nextra;

/* Reads a tab-separated file of TFEN lines ('#' comments); with_perft: the
 * TFEN is followed by perft 1, 2 and 3. */
static int load_tsv(const char *path, bool with_perft, RulesCase *cases, int *ncases)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        print_error("cannot open %s\n", path);
        return -1;
    }
    char line[4096];
    int lineno = 0;
    int want = with_perft ? 5 : 2;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
            continue;
        if (*ncases >= MAX_CASES)
            break;
        RulesCase *c = &cases[*ncases];
        memset(c, 0, sizeof *c);
        char *fields[5] = {0};
        int nf = 0;
        char *s = line;
        while (nf < want) {
            fields[nf++] = s;
            char *tab = strchr(s, '\t');
            if (!tab)
                break;
            *tab = 0;
            s = tab + 1;
        }
        if (nf < want - 1) {
            print_error("%s:%d: fewer than %d fields\n", path, lineno, want - 1);
            fclose(f);
            return -1;
        }
        fields[0][strcspn(fields[0], "\r\n")] = 0;
        size_t tl = strlen(fields[0]);
        if (tl >= sizeof c->tfen) {
            print_error("%s:%d: TFEN too long\n", path, lineno);
            fclose(f);
            return -1;
        }
        memcpy(c->tfen, fields[0], tl + 1);
        if (with_perft)
            for (int i = 0; i < 3; i++)
                c->perft[i] = strtoull(fields[1 + i], NULL, 10);
        if (nf == want) {
            char *w = fields[want - 1];
            w[strcspn(w, "\r\n")] = 0;
            size_t wl = strlen(w);
            if (wl >= sizeof c->what)
                wl = sizeof c->what - 1;
            memcpy(c->what, w, wl);
            c->what[wl] = 0;
        }
        c->line = lineno;
        (*ncases)++;
    }
    fclose(f);
    return *ncases > 0 ? 0 : -1;
}

static int load_cases(void **state)
{
    (void)state;
    if (load_tsv(TAVRELI_TEST_DATA "/rules_cases.tsv", true, g_cases, &g_ncases) != 0)
        return -1;
    return load_tsv(TAVRELI_TEST_DATA "/property_positions.tsv", false, g_extra, &g_nextra);
}

/* ---- move-set comparison --------------------------------------------------- */

static int move_key_cmp(const void *a, const void *b)
{
    const SimpleMove *x = a, *y = b;
    if (x->from != y->from)
        return x->from - y->from;
    if (x->to != y->to)
        return x->to - y->to;
    if (x->k != y->k)
        return x->k - y->k;
    return x->special - y->special;
}

static bool same_move(SimpleMove a, SimpleMove b) { return move_key_cmp(&a, &b) == 0; }

/* Compares core's legal moves with the simple generator's; reports every
 * difference.  Returns true when they agree. */
static bool check_movesets(const Position *p, const Options *o, const char *where)
{
    static MoveList list;
    static SimpleMove core[SIMPLE_MAX_MOVES], simple[SIMPLE_MAX_MOVES];
    movegen_legal(p, o, &list);
    int nc = list.count;
    for (int i = 0; i < nc; i++)
        core[i] = simple_move_from_core(list.moves[i]);
    int ns = simple_legal_moves(p, o, simple);
    qsort(core, (size_t)nc, sizeof core[0], move_key_cmp);
    qsort(simple, (size_t)ns, sizeof simple[0], move_key_cmp);

    char diff[3000];
    size_t dl = 0;
    diff[0] = 0;
    bool ok = true;
    char ms[32];
    for (int i = 1; i < nc; i++)
        if (same_move(core[i - 1], core[i])) {
            ok = false;
            dl += (size_t)snprintf(diff + dl, sizeof diff - dl, " duplicate-in-core:%s",
                                   simple_move_str(core[i], ms));
            if (dl >= sizeof diff)
                dl = sizeof diff - 1;
        }
    int i = 0, j = 0;
    while (i < nc || j < ns) {
        int c = i >= nc ? 1 : j >= ns ? -1 : move_key_cmp(&core[i], &simple[j]);
        if (c == 0) {
            i++;
            j++;
            continue;
        }
        ok = false;
        if (c < 0)
            dl += (size_t)snprintf(diff + dl, sizeof diff - dl, " core-only:%s", simple_move_str(core[i++], ms));
        else
            dl += (size_t)snprintf(diff + dl, sizeof diff - dl, " simple-only:%s",
                                   simple_move_str(simple[j++], ms));
        if (dl >= sizeof diff)
            dl = sizeof diff - 1;
    }
    if (!ok) {
        char t[TV_TFEN_MAX], on[128];
        report("MOVE SETS DIFFER (%s)\n  TFEN: %s\n  options: %s\n  core %d moves, simple %d moves:%s", where,
               tfen_of(p, t), options_name(o, on, sizeof on), nc, ns, diff);
    }
    return ok;
}

/* Finds and reports where perft(core) and simple_perft part (divide). */
static void diagnose_perft(Position *p, const Options *o, int depth, const char *where)
{
    if (!check_movesets(p, o, where) || depth <= 1)
        return;
    MoveList list;
    movegen_legal(p, o, &list);
    for (int i = 0; i < list.count; i++) {
        Undo u;
        pos_make_move(p, list.moves[i], &u);
        uint64_t a = perft(p, o, depth - 1), b = simple_perft(p, o, depth - 1);
        if (a != b) {
            char ms[32], w[512];
            snprintf(w, sizeof w, "%s, after %s", where, simple_move_str(simple_move_from_core(list.moves[i]), ms));
            diagnose_perft(p, o, depth - 1, w);
            pos_unmake_move(p, &u);
            return;
        }
        pos_unmake_move(p, &u);
    }
    char t[TV_TFEN_MAX];
    report("perft differs but no child differs (%s): %s", where, tfen_of(p, t));
}

static bool check_perft_pair(Position *p, const Options *o, int depth, const char *where)
{
    uint64_t a = perft(p, o, depth);
    uint64_t b = simple_perft(p, o, depth);
    if (a == b)
        return true;
    char t[TV_TFEN_MAX], on[128];
    report("PERFT %d DIFFERS (%s): core %llu, simple %llu\n  TFEN: %s\n  options: %s", depth, where,
           (unsigned long long)a, (unsigned long long)b, tfen_of(p, t), options_name(o, on, sizeof on));
    diagnose_perft(p, o, depth, where);
    return false;
}

/* ---- per-position checks --------------------------------------------------- */

/* (b) and (c): soundness, TFEN round trip, mirror round trip. */
static void check_static(const Position *p, const char *where)
{
    char why[256], t[TV_TFEN_MAX];
    if (!pos_is_ok(p, why, sizeof why))
        report("pos_is_ok fails (%s): %s\n  TFEN: %s", where, why, tfen_of(p, t));
    if (pos_compute_hash(p) != p->hash)
        report("hash differs from a recompute (%s): %s", where, tfen_of(p, t));

    if (pos_wizard_captured(p, TV_WHITE) || pos_wizard_captured(p, TV_BLACK))
        return; /* that final position has no TFEN */

    /* (c) TFEN round trip. */
    tfen_write(p, t, sizeof t);
    Position q;
    TvError err;
    tv_error_clear(&err);
    if (tfen_read(t, &q, &err) != TV_OK) {
        report("tfen_read rejects what tfen_write wrote (%s): %s\n  TFEN: %s", where, err.msg, t);
    } else {
        if (!pos_equal(p, &q))
            report("tfen_read(tfen_write(p)) != p (%s)\n  TFEN: %s", where, t);
        char t2[TV_TFEN_MAX];
        tfen_write(&q, t2, sizeof t2);
        if (strcmp(t, t2) != 0)
            report("TFEN not stable (%s): %s -> %s", where, t, t2);
    }
    /* The independent reader must read the same stacks (checks the ' marks). */
    SimplePos sp;
    if (!simple_from_tfen(t, &sp))
        report("simple TFEN reader cannot read (%s): %s", where, t);
    else if (!simple_equals_position(&sp, p, why, sizeof why))
        report("simple TFEN reader reads a different position (%s): %s\n  TFEN: %s", where, why, t);

    /* Mirror twice is the identity; the mirror is sound. */
    Position m, mm;
    pos_mirror(p, &m);
    if (!pos_is_ok(&m, why, sizeof why))
        report("pos_is_ok fails on the mirror (%s): %s\n  TFEN: %s", where, why, t);
    pos_mirror(&m, &mm);
    if (!pos_equal(p, &mm))
        report("mirror of mirror != p (%s)\n  TFEN: %s", where, t);
}

/* (d) notation round trip of one legal move. */
static void check_notation(const Position *p, const Options *o, Move m, const char *where)
{
    char buf[TV_MOVE_STR_MAX], t[TV_TFEN_MAX];
    for (int suffix = 0; suffix < 2; suffix++) {
        move_to_str(p, o, m, suffix != 0, buf, sizeof buf);
        for (int mode = 0; mode < 2; mode++) {
            Move back = TV_MOVE_NONE;
            MoveInfo info;
            TvError err;
            memset(&info, 0, sizeof info);
            tv_error_clear(&err);
            int md = mode ? TV_PARSE_LENIENT : TV_PARSE_STRICT;
            TvStatus st = move_parse(p, o, buf, md, &back, &info, &err);
            char ms[32];
            if (st != TV_OK) {
                report("move_parse(%s, %s) fails on '%s' (%s, move %s): %s\n  TFEN: %s", suffix ? "suffix" : "plain",
                       mode ? "lenient" : "strict", buf, where, simple_move_str(simple_move_from_core(m), ms), err.msg,
                       tfen_of(p, t));
                continue;
            }
            if (back != m) {
                char ms2[32];
                report("move_parse('%s') = %s, expected %s (%s)\n  TFEN: %s", buf,
                       simple_move_str(simple_move_from_core(back), ms2), simple_move_str(simple_move_from_core(m), ms),
                       where, tfen_of(p, t));
            }
            size_t n = strlen(buf);
            char last = n ? buf[n - 1] : 0;
            if (suffix && last == '+' && !info.check)
                report("'%s': '+' not reported by move_parse (%s)", buf, where);
            if (suffix && last == 'x' && !info.win && !info.mate)
                report("'%s': 'x' not reported by move_parse (%s)", buf, where);
            if (!suffix && (info.check || info.mate || info.win))
                report("'%s': a suffix reported where none was written (%s)", buf, where);
        }
    }
}

/* (a), (b) and (f) for every legal move: make/unmake restore, soundness after
 * make, core make == simple make.  With notation, also (d). */
static void check_moves(Position *p, const Options *o, bool notation, const char *where)
{
    static MoveList list;
    movegen_legal(p, o, &list);
    Position saved = *p;
    SimplePos sp;
    simple_from_position(p, &sp);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        char ms[32], why[256], t[TV_TFEN_MAX], on[128];
        simple_move_str(simple_move_from_core(m), ms);
        if (notation)
            check_notation(p, o, m, where);
        Undo u;
        pos_make_move(p, m, &u);
        if (!pos_is_ok(p, why, sizeof why))
            report("pos_is_ok fails after %s (%s): %s\n  TFEN before: %s\n  options: %s", ms, where, why,
                   tfen_of(&saved, t), options_name(o, on, sizeof on));
        SimplePos after;
        simple_make(&sp, simple_move_from_core(m), &after);
        if (!simple_equals_position(&after, p, why, sizeof why))
            report("core make and simple make differ after %s (%s): %s\n  TFEN before: %s\n  options: %s", ms, where,
                   why, tfen_of(&saved, t), options_name(o, on, sizeof on));
        pos_unmake_move(p, &u);
        if (!pos_equal(p, &saved) || p->hash != saved.hash) {
            report("make/unmake of %s does not restore the position (%s)\n  TFEN before: %s\n  options: %s", ms,
                   where, tfen_of(&saved, t), options_name(o, on, sizeof on));
            *p = saved;
        }
    }
}

/* (e) mirror perft. */
static void check_mirror_perft(Position *p, const Options *o, int depth, const char *where)
{
    Position m;
    pos_mirror(p, &m);
    uint64_t a = perft(p, o, depth), b = perft(&m, o, depth);
    if (a != b) {
        char t[TV_TFEN_MAX], t2[TV_TFEN_MAX], on[128];
        report("mirror perft %d differs (%s): %llu vs %llu\n  TFEN: %s\n  mirror: %s\n  options: %s", depth, where,
               (unsigned long long)a, (unsigned long long)b, tfen_of(p, t), tfen_of(&m, t2),
               options_name(o, on, sizeof on));
    }
}

/* ---- walks ------------------------------------------------------------------ */

enum {
    WALK_FULL = 1,     /* TFEN, notation, mirror (default options) */
    WALK_VARIANTS = 2, /* compare move sets under every option set */
};

typedef struct {
    long plies;
    long positions;
    long moves_checked;
    long perfts;
} WalkStats;

static WalkStats g_stats;

/* One random legal walk of up to `plies` plies from start under options o. */
static void walk(const Position *start, const Options *o, uint64_t seed, int plies, int flags, int perft_every,
                 const char *name)
{
    Position p = *start;
    uint64_t rng = seed;
    MoveList list;
    for (int ply = 0; ply <= plies; ply++) {
        char where[256];
        snprintf(where, sizeof where, "%s, seed %llu, ply %d", name, (unsigned long long)seed, ply);
        g_stats.positions++;
        if (flags & WALK_FULL)
            check_static(&p, where);
        if (flags & WALK_VARIANTS) {
            for (int i = 0; i < N_OPTION_SETS; i++) {
                Options v = option_set(i);
                check_movesets(&p, &v, where);
            }
        } else {
            check_movesets(&p, o, where);
        }
        check_moves(&p, o, (flags & WALK_FULL) != 0, where);
        if (perft_every > 0 && ply % perft_every == 0) {
            g_stats.perfts++;
            check_perft_pair(&p, o, 2, where);
            if (flags & WALK_FULL)
                check_mirror_perft(&p, o, 2, where);
        }
        movegen_legal(&p, o, &list);
        g_stats.moves_checked += list.count;
        if (list.count == 0 || ply == plies)
            break;
        Move m = list.moves[tv_rng_next(&rng) % (uint64_t)list.count];
        Undo u;
        pos_make_move(&p, m, &u);
    }
}

/* The walk starts: every rules case, then every property position. */
static int n_starts(void) { return g_ncases + g_nextra; }

/* Reads start i into p and names it ("FILE line N") in where; reports and
 * returns NULL when tfen_read refuses it. */
static const RulesCase *read_start(int i, Position *p, char *where, size_t where_len)
{
    const char *file = i < g_ncases ? "rules_cases.tsv" : "property_positions.tsv";
    const RulesCase *c = i < g_ncases ? &g_cases[i] : &g_extra[i - g_ncases];
    snprintf(where, where_len, "%s line %d", file, c->line);
    TvError err;
    tv_error_clear(&err);
    if (tfen_read(c->tfen, p, &err) != TV_OK) {
        report("%s: tfen_read fails: %s\n  TFEN: %s", where, err.msg, c->tfen);
        return NULL;
    }
    return c;
}

/* ---- tests ------------------------------------------------------------------ */

/* The simple generator alone (its own TFEN reader, no core code) reproduces
 * every perft number of rules_cases.tsv. */
static void test_simple_alone_rules_cases(void **state)
{
    (void)state;
    g_failures = 0;
    Options o = option_set(0);
    for (int i = 0; i < g_ncases; i++) {
        const RulesCase *c = &g_cases[i];
        SimplePos sp;
        if (!simple_from_tfen(c->tfen, &sp)) {
            report("rules_cases.tsv line %d: the simple TFEN reader cannot read %s", c->line, c->tfen);
            continue;
        }
        for (int d = 1; d <= 3; d++) {
            uint64_t n = simple_perft_sp(&sp, &o, d);
            if (n != c->perft[d - 1]) {
                report("rules_cases.tsv line %d: simple perft %d = %llu, expected %llu\n  TFEN: %s\n  (%s)", c->line,
                       d, (unsigned long long)n, (unsigned long long)c->perft[d - 1], c->tfen, c->what);
                break;
            }
        }
    }
    assert_int_equal(g_failures, 0);
}

/* Core perft reproduces the rules_cases numbers, tfen_read agrees with the
 * simple reader, and core == simple at depth 3 under every option set, on
 * every rules case and property position. */
static void test_core_vs_simple_perft3(void **state)
{
    (void)state;
    g_failures = 0;
    for (int i = 0; i < n_starts(); i++) {
        Position p;
        char where[64];
        const RulesCase *c = read_start(i, &p, where, sizeof where);
        if (!c)
            continue;
        SimplePos sp;
        char why[256];
        if (!simple_from_tfen(c->tfen, &sp))
            report("%s: the simple reader cannot read %s", where, c->tfen);
        else if (!simple_equals_position(&sp, &p, why, sizeof why))
            report("%s: tfen_read and the simple reader differ: %s\n  TFEN: %s", where, why, c->tfen);
        Options def = option_set(0);
        for (int d = 1; i < g_ncases && d <= 3; d++) {
            uint64_t n = perft(&p, &def, d);
            if (n != c->perft[d - 1]) {
                report("%s: core perft %d = %llu, expected %llu\n  TFEN: %s\n  (%s)", where, d, (unsigned long long)n,
                       (unsigned long long)c->perft[d - 1], c->tfen, c->what);
                diagnose_perft(&p, &def, d, where);
                break;
            }
        }
        for (int s = 0; s < N_OPTION_SETS; s++) {
            Options o = option_set(s);
            check_perft_pair(&p, &o, 3, where);
        }
    }
    assert_int_equal(g_failures, 0);
}

/* (e) at depth 3 on a sample of the starts under the default options, and
 * at depth 2 on every start under every other option set. */
static void test_mirror_perft(void **state)
{
    (void)state;
    g_failures = 0;
    for (int i = 0; i < n_starts(); i++) {
        Position p;
        char where[64];
        if (!read_start(i, &p, where, sizeof where))
            continue;
        Options def = option_set(0);
        check_mirror_perft(&p, &def, i % 3 == 0 ? 3 : 2, where);
        for (int s = 1; s < N_OPTION_SETS; s++) {
            Options o = option_set(s);
            check_mirror_perft(&p, &o, 2, where);
        }
    }
    assert_int_equal(g_failures, 0);
}

/* Walks under the default options, every check, every option set compared
 * at every visited position. */
static void test_walks_default(void **state)
{
    (void)state;
    g_failures = 0;
    memset(&g_stats, 0, sizeof g_stats);
    Options def = option_set(0);
    Position start;
    pos_set_start(&start);
    {
        Position q;
        TvError err;
        if (tfen_read(TV_START_TFEN, &q, &err) != TV_OK || !pos_equal(&q, &start))
            report("pos_set_start differs from tfen_read(TV_START_TFEN)");
    }
    for (int w = 0; w < 12; w++)
        walk(&start, &def, 1000 + (uint64_t)w, 40, WALK_FULL | WALK_VARIANTS, 4, "start position");
    for (int i = 0; i < n_starts(); i++) {
        Position p;
        char name[64];
        if (!read_start(i, &p, name, sizeof name))
            continue;
        for (int w = 0; w < 3; w++)
            walk(&p, &def, 7000 + 100 * (uint64_t)i + (uint64_t)w, 16, WALK_FULL | WALK_VARIANTS, 4, name);
    }
    print_message("default walks: %ld positions, %ld legal moves made and unmade, %ld perft checks\n",
                  g_stats.positions, g_stats.moves_checked, g_stats.perfts);
    assert_int_equal(g_failures, 0);
}

/* Walks played under each variant option set (so that the positions only
 * those options reach are visited too). */
static void test_walks_variants(void **state)
{
    (void)state;
    g_failures = 0;
    memset(&g_stats, 0, sizeof g_stats);
    Position start;
    pos_set_start(&start);
    for (int s = 1; s < N_OPTION_SETS; s++) {
        Options o = option_set(s);
        char name[200], on[128];
        options_name(&o, on, sizeof on);
        snprintf(name, sizeof name, "start position [%s]", on);
        for (int w = 0; w < 4; w++)
            walk(&start, &o, 50000 + 10 * (uint64_t)s + (uint64_t)w, 40, 0, 5, name);
        for (int i = 0; i < n_starts(); i++) {
            Position p;
            if (!read_start(i, &p, name, sizeof name))
                continue;
            size_t nl = strlen(name);
            snprintf(name + nl, sizeof name - nl, " [%s]", on);
            walk(&p, &o, 90000 + 1000 * (uint64_t)s + (uint64_t)i, 10, 0, 5, name);
        }
    }
    print_message("variant walks: %ld positions, %ld legal moves made and unmade, %ld perft checks\n",
                  g_stats.positions, g_stats.moves_checked, g_stats.perfts);
    assert_int_equal(g_failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_alone_rules_cases),
        cmocka_unit_test(test_core_vs_simple_perft3),
        cmocka_unit_test(test_mirror_perft),
        cmocka_unit_test(test_walks_default),
        cmocka_unit_test(test_walks_variants),
    };
    return cmocka_run_group_tests(tests, load_cases, NULL);
}
