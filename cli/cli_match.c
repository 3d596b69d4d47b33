/* cli_match.c: `tavreli match`, a tournament given on the command line as
 * cutechess-cli and fastchess take one (-engine cmd=... -each tc=...
 * -rounds N ...).  A thin front end: the flags become a tournament INI
 * (written beside the store, printed with --print-ini), which
 * `tavreli selfplay` then plays, resumes, stores and rates like any other;
 * -pgnout/-tgnout is `tavreli export --tgn` after it.  docs/match.md maps
 * every flag of the two programs to tavreli's key. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "status.h"
#include "strbuf.h"

static const char MATCH_HELP[] =
    "usage: tavreli match -engine KEY=VALUE... -engine KEY=VALUE... [-each KEY=VALUE...]\n"
    "                     [-games 2 -rounds N] [-repeat] [-concurrency N] [-tournament round-robin|gauntlet]\n"
    "                     [-openings file=F format=tgn|tfen order=sequential|random plies=N start=N]\n"
    "                     [-draw movenumber=N movecount=N score=CP] [-resign movecount=N score=CP twosided=true]\n"
    "                     [-maxmoves N] [-sprt elo0=E elo1=E alpha=A beta=B model=normalized|logistic]\n"
    "                     [-rules NAME=VALUE...] [-event NAME] [-srand N] [-recover] [-log] [-debug]\n"
    "                     [-pgnout FILE | -tgnout FILE] [-out FILE.h5] [-resume | -force] [-quiet]\n"
    "                     [--print-ini] [--dry-run]\n"
    "\n"
    "Plays a match or tournament given as cutechess-cli and fastchess take one.\n"
    "The flags become a tournament INI (docs/tournaments.md), written beside the\n"
    "store as OUT.ini and played by 'tavreli selfplay': every game is stored in\n"
    "OUT.h5 (default results/NAME.h5, NAME from -event, else 'match'), the\n"
    "standings, Elo and SPRT are printed, and the same command with -resume\n"
    "plays only the missing games (with more -rounds: the new ones).\n"
    "\n"
    "  -engine, -each  cmd=PROGRAM args=\"ARGS\" name=NAME dir=DIR option.X=V\n"
    "                  tc=40/60+0.6|60+0.6|inf st=SECONDS depth=N nodes=N\n"
    "                  timemargin=MS proto=uci stderr=FILE; or path=ENGINE.ini for\n"
    "                  the built-in engine (an engine INI of configs/engines/)\n"
    "  -games 2 -rounds N  N opening pairs per pairing (tavreli plays each\n"
    "                  opening twice, colours swapped: -games must be even, and\n"
    "                  -repeat is always on)\n"
    "  -concurrency N  games at once (threads)\n"
    "  -openings       a book: TGN records (each its moves, at most plies=N of\n"
    "                  them) or TFEN lines; without it, random balanced openings\n"
    "  -sprt           stop when the test decides (two engines); the bounds are\n"
    "                  normalized Elo unless model=logistic (cutechess-cli's Elo)\n"
    "  -draw, -resign, -maxmoves  adjudication (moves, not plies)\n"
    "  -rules          rule options (slide_over_own=yes, enpassant=any, ending=capture)\n"
    "  -log, -debug    each program's protocol log beside the store\n"
    "  -pgnout, -tgnout  the games as TGN records after the run\n"
    "  --print-ini     print the INI and stop (keep it: tavreli selfplay plays it)\n"
    "  --dry-run       write nothing; start each program as the run would\n"
    "\n"
    "A flag or key of cutechess-cli or fastchess that has no meaning here is\n"
    "refused with the reason and what to use instead (docs/match.md), an unknown\n"
    "one with the nearest known.\n"
    "\n"
    "Examples:\n"
    "  tavreli match -engine cmd=build/tavreli args=uci name=new option.lmr=yes \\\n"
    "                -engine cmd=build/tavreli args=uci name=old option.lmr=no \\\n"
    "                -each tc=10+0.1 -games 2 -rounds 500 -repeat -concurrency 2 \\\n"
    "                -sprt elo0=0 elo1=5 model=logistic -pgnout results/match.tgn\n"
    "  tavreli match -engine path=configs/engines/default.ini name=a -engine \\\n"
    "                path=configs/engines/handset.ini name=b -each nodes=20000 -rounds 50\n";

/* ---- the words of a flag family ---------------------------------------------- */

/* A flag of either program that tavreli does not take, and why. */
typedef struct {
    const char *flag;
    const char *why;
} Refused;

static const Refused REFUSED_FLAGS[] = {
    {"pgnin", "openings are given with -openings file=BOOK.tgn format=tgn (Tavreli's records are TGN)"},
    {"epdin", "positions are given with -openings file=FILE format=tfen (Tavreli's position notation)"},
    {"noswap", "tavreli plays every opening with both colours (an opening pair)"},
    {"reverse", "tavreli plays every opening with both colours (an opening pair)"},
    {"bookmode", "a TGN book's records are read whole; plies= cuts them"},
    {"wait", "tavreli starts the next game at once"},
    {"variant", "Tavreli has one game; its rule options are -rules NAME=VALUE"},
    {"ratinginterval", "the progress line (stderr) gives every pairing's Elo every 10 s, and the standings follow "
                       "the run"},
    {"livepgnout", "the store holds every game as it finishes; tavreli export --tgn writes them"},
    {"site", "a store keeps the host and time of each run (its sessions)"},
    {"autosave", "the store is written as games finish and -resume continues it"},
    {"config", "tavreli's own configuration is the INI this command writes (--print-ini)"},
    {"crc32", "a store's games are compared with tavreli export --digest"},
    {"report", "tavreli report writes the report of a store"},
    {"output", "the progress line and summary are tavreli's own"},
    {"engines", "engines are given with -engine (a JSON engine list is not read)"},
    {"tb", "Tavreli has no tablebases"},
    {"tbpieces", "Tavreli has no tablebases"},
    {"tbignore50", "Tavreli has no tablebases"},
    {"tbadjudicate", "Tavreli has no tablebases"},
    {"epdout", "the store keeps every position of every game (tavreli export, docs/store.md)"},
    {"seeds", "a gauntlet's first engine plays every other (-tournament gauntlet); there are no seeds"},
    {"outcomeinterval", "the progress line gives the counts every 10 s"},
    {"scoreinterval", "the progress line gives the counts every 10 s"},
    {"autosaveinterval", "the store is written as games finish and -resume continues it"},
    {"quick", "give -each tc=... -rounds N (and -sprt) yourself"},
    {"use-affinity", "threads are -concurrency; tavreli does not pin them to cores"},
    {"force-concurrency", "tavreli warns when threads outnumber the cores and plays on"},
    {"testEnv", "not needed: tavreli's own runs are its tests"},
    {"show-latency", "the store keeps each move's time and clock (docs/store.md)"},
    {"startup-ms", "a program's start limit is the engine key start_timeout (seconds) of a tournament INI: write "
                   "the INI with --print-ini and add it"},
    {"ucinewgame-ms", "a program must answer isready within the protocol's handshake limit (docs/protocol.md)"},
    {"ping-ms", "a program must answer isready within the protocol's handshake limit (docs/protocol.md)"},
    {"version", "tavreli --version names the build"},
    {NULL, NULL},
};

static const char *const KNOWN_FLAGS[] = {
    "engine", "each", "games", "rounds", "repeat", "concurrency", "tournament", "openings", "draw", "resign",
    "maxmoves", "sprt", "rules", "event", "srand", "seed", "recover", "log", "debug", "pgnout", "tgnout", "out",
    "resume", "force", "quiet", "print-ini", "dry-run", NULL,
};

/* " (did you mean X?)" for the nearest of words, or "". */
static const char *nearest(const char *w, const char *const *words, char *buf, size_t n, const char *lead)
{
    int best = 99;
    const char *near = NULL;
    for (int i = 0; words[i]; i++) {
        int d = cli_edit_distance(w, strlen(w), words[i], strlen(words[i]));
        if (d < best) {
            best = d;
            near = words[i];
        }
    }
    const int limit = strlen(w) / 3 > 2 ? (int)(strlen(w) / 3) : 2;
    if (near && best <= limit)
        snprintf(buf, n, " (did you mean %s%s?)", lead, near);
    else
        buf[0] = 0;
    return buf;
}

/* ---- the INI being built ------------------------------------------------------ */

#define MAX_ENGINES 64

typedef struct {
    StrBuf tournament, openings, adjudication, sprt, rules, each;
    StrBuf engine[MAX_ENGINES];
    char names[MAX_ENGINES][64];
    int nengines;
    long games, rounds;
    bool have_games, sprt_model_given, sprt_given;
    const char *event, *out, *pgnout;
    bool log, resume, force, quiet, print_ini, dry_run;
    char cwd[PATH_MAX];
} Match;

static void match_free(Match *m)
{
    strbuf_free(&m->tournament);
    strbuf_free(&m->openings);
    strbuf_free(&m->adjudication);
    strbuf_free(&m->sprt);
    strbuf_free(&m->rules);
    strbuf_free(&m->each);
    for (int i = 0; i < MAX_ENGINES; i++) /* the one being read when a word was refused too */
        strbuf_free(&m->engine[i]);
}

/* A path of the command line as the INI (in the store's folder) must give
 * it: relative paths with a '/' (and those of files: always) made absolute
 * from the working directory. */
static void abs_path(const Match *m, const char *p, bool file, char *buf, size_t n)
{
    int w = p[0] == '/' || (!file && !strchr(p, '/')) ? snprintf(buf, n, "%s", p)
                                                        : snprintf(buf, n, "%s/%s", m->cwd, p);
    if (w < 0 || (size_t)w >= n)
        buf[0] = 0; /* too long: the reader then says the path is empty */
}

/* A whole number in [lo, hi] from text; false when it is not one. */
static bool whole(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool truthy(const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
        *out = true;
    else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
        *out = false;
    else
        return false;
    return true;
}

static const char *const ENGINE_KEYS[] = {"cmd",   "args",       "arg",   "name",   "dir",  "tc",      "st", "depth",
                                          "nodes", "timemargin", "proto", "stderr", "path", "restart", NULL};

/* One KEY=VALUE of -engine (name allowed) or -each into b; *cmd and *args
 * collect the command.  False after saying why. */
static bool engine_word(Match *m, const char *flag, const char *key, const char *v, StrBuf *b, char *name,
                        char *cmd, char *args)
{
    char path[PATH_MAX + 512];
    long x;
    if (!strncmp(key, "option.", 7)) {
        strbuf_addf(b, "%s = %s\n", key, v);
        return true;
    }
    if (!strcmp(key, "name")) {
        if (!name) {
            cli_error("match: -each name=%s: each engine gives its own name (-engine name=...)", v);
            return false;
        }
        snprintf(name, 64, "%s", v);
        return true;
    }
    if (!strcmp(key, "cmd")) {
        abs_path(m, v, false, cmd, PATH_MAX + 512);
        return true;
    }
    if (!strcmp(key, "args")) {
        snprintf(args, 1024, "%s", v);
        return true;
    }
    if (!strcmp(key, "arg")) { /* cutechess: one argument a key, repeatable */
        size_t len = strlen(args);
        snprintf(args + len, 1024 - len, "%s%s", len ? " " : "", v);
        return true;
    }
    if (!strcmp(key, "dir") || !strcmp(key, "path") || !strcmp(key, "stderr")) {
        abs_path(m, v, true, path, sizeof path);
        strbuf_addf(b, "%s = %s\n", key, path);
        return true;
    }
    if (!strcmp(key, "tc") || !strcmp(key, "timemargin") || !strcmp(key, "depth") || !strcmp(key, "nodes")) {
        strbuf_addf(b, "%s = %s\n", key, v);
        return true;
    }
    if (!strcmp(key, "st")) { /* seconds a move */
        char *end;
        double s = strtod(v, &end);
        if (!*v || *end || !(s > 0 && s <= 86400)) {
            cli_error("match: %s st=%s: a move's time in seconds, above 0 (st=0.5)", flag, v);
            return false;
        }
        strbuf_addf(b, "movetime = %.0f\n", s * 1000);
        return true;
    }
    if (!strcmp(key, "proto")) {
        if (strcmp(v, "uci")) {
            cli_error("match: %s proto=%s: tavreli speaks one protocol, UCI-shaped (docs/protocol.md): proto=uci", flag,
                      v);
            return false;
        }
        return true;
    }
    if (!strcmp(key, "restart")) {
        if (strcmp(v, "auto") && strcmp(v, "off")) {
            cli_error("match: %s restart=%s: tavreli keeps a program for the games of its thread and starts it again "
                      "only when it ends (restart=auto)",
                      flag, v);
            return false;
        }
        (void)x;
        return true;
    }
    static const Refused refused[] = {
        {"conf", "an engine is given here with cmd=... (the engines JSON file is not read)"},
        {"initstr", "options are set with option.NAME=VALUE"},
        {"whitepov", "scores are read from the side to move, as UCI says"},
        {"ponder", "tavreli does not ponder: engines think on their own time only"},
        {"trust", "tavreli ends every game by the rules and its adjudication, never by an engine's claim"},
        {"tscale", "the clock runs as given; a loaded machine shows in the referee's counts"},
        {"book", "openings come from -openings (a TGN book)"},
        {"bookdepth", "a book's moves are cut with -openings plies=N"},
        {NULL, NULL},
    };
    for (int i = 0; refused[i].flag; i++)
        if (!strcmp(key, refused[i].flag)) {
            cli_error("match: %s %s=: not taken here: %s (docs/match.md)", flag, key, refused[i].why);
            return false;
        }
    char near[96];
    cli_error("match: %s: unknown key '%s'%s (keys: cmd, args, arg, name, dir, option.NAME, tc, st, depth, nodes, "
              "timemargin, proto, stderr, path, restart)",
              flag, key, nearest(key, ENGINE_KEYS, near, sizeof near, ""));
    return false;
}

/* The KEY=VALUE words of one flag family, from argv[*i + 1] on, until the
 * next word that starts with '-' and holds no '='. */
static int family_end(int argc, char **argv, int i)
{
    int j = i + 1;
    while (j < argc && !(argv[j][0] == '-' && !strchr(argv[j], '=')))
        j++;
    return j;
}

/* Splits "KEY=VALUE" into key (buf) and value; false when it is not one. */
static bool split_word(const char *flag, const char *word, char *key, size_t n, const char **value)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word || (size_t)(eq - word) >= n) {
        cli_error("match: %s: expected KEY=VALUE, not '%s'", flag, word);
        return false;
    }
    snprintf(key, n, "%.*s", (int)(eq - word), word);
    *value = eq + 1;
    return true;
}

static bool engine_family(Match *m, const char *flag, char **words, int nwords)
{
    const bool each = !strcmp(flag, "-each");
    if (!each && m->nengines >= MAX_ENGINES) {
        cli_error("match: more than %d -engine", MAX_ENGINES);
        return false;
    }
    StrBuf *b = each ? &m->each : &m->engine[m->nengines];
    char name[64] = "", cmd[PATH_MAX + 512] = "", args[1024] = "";
    for (int k = 0; k < nwords; k++) {
        char key[64];
        const char *v;
        if (!split_word(flag, words[k], key, sizeof key, &v) ||
            !engine_word(m, flag, key, v, b, each ? NULL : name, cmd, args))
            return false;
    }
    if (*cmd)
        strbuf_addf(b, "command = %s%s%s\n", cmd, *args ? " " : "", args);
    else if (*args) {
        cli_error("match: %s args=%s without cmd=", flag, args);
        return false;
    }
    if (each)
        return true;
    if (!*name)
        snprintf(name, sizeof name, "engine%d", m->nengines + 1);
    for (int i = 0; i < m->nengines; i++)
        if (!strcmp(m->names[i], name)) {
            cli_error("match: two engines are named '%s': give each its own name=", name);
            return false;
        }
    snprintf(m->names[m->nengines], sizeof m->names[0], "%s", name);
    m->nengines++;
    return true;
}

static bool openings_family(Match *m, char **words, int nwords)
{
    static const char *const KEYS[] = {"file", "format", "order", "plies", "start", "policy", NULL};
    for (int k = 0; k < nwords; k++) {
        char key[64], path[PATH_MAX + 512];
        const char *v;
        if (!split_word("-openings", words[k], key, sizeof key, &v))
            return false;
        if (!strcmp(key, "file")) {
            abs_path(m, v, true, path, sizeof path);
            strbuf_addf(&m->openings, "file = %s\n", path);
        } else if (!strcmp(key, "format")) {
            if (!strcmp(v, "pgn") || !strcmp(v, "epd")) {
                cli_error("match: -openings format=%s: Tavreli's books are TGN records (format=tgn) or TFEN lines "
                          "(format=tfen)",
                          v);
                return false;
            }
            strbuf_addf(&m->openings, "format = %s\n", v);
        } else if (!strcmp(key, "order") || !strcmp(key, "plies") || !strcmp(key, "start"))
            strbuf_addf(&m->openings, "%s = %s\n", key, v);
        else if (!strcmp(key, "policy")) {
            if (strcmp(v, "round")) {
                cli_error("match: -openings policy=%s: tavreli's policy is 'round' (every pairing of a round plays "
                          "that round's opening, both colours)",
                          v);
                return false;
            }
        } else {
            char near[96];
            cli_error("match: -openings: unknown key '%s'%s (keys: file, format, order, plies, start, policy)", key,
                      nearest(key, KEYS, near, sizeof near, ""));
            return false;
        }
    }
    return true;
}

/* -draw and -resign. */
static bool adjudication_family(Match *m, const char *flag, char **words, int nwords)
{
    const bool draw = !strcmp(flag, "-draw");
    static const char *const DRAW_KEYS[] = {"movenumber", "movecount", "score", NULL};
    static const char *const RESIGN_KEYS[] = {"movecount", "score", "twosided", NULL};
    for (int k = 0; k < nwords; k++) {
        char key[64];
        const char *v;
        long x;
        bool b;
        if (!split_word(flag, words[k], key, sizeof key, &v))
            return false;
        if (draw && !strcmp(key, "movenumber") && whole(v, 0, 5000, &x))
            strbuf_addf(&m->adjudication, "draw_after_ply = %ld\n", 2 * x);
        else if (!strcmp(key, "movecount") && whole(v, draw ? 0 : 1, 1000, &x))
            strbuf_addf(&m->adjudication, "%s = %ld\n", draw ? "draw_moves" : "resign_moves", x);
        else if (!strcmp(key, "score") && whole(v, 0, draw ? 10000 : 30000, &x))
            strbuf_addf(&m->adjudication, "%s = %ld\n", draw ? "draw_score" : "resign_score", x);
        else if (!draw && !strcmp(key, "twosided") && truthy(v, &b)) {
            if (!b) {
                cli_error("match: -resign twosided=false: tavreli adjudicates a resignation only when both engines' "
                          "scores agree (twosided=true)");
                return false;
            }
        } else {
            const char *const *keys = draw ? DRAW_KEYS : RESIGN_KEYS;
            bool known = false;
            for (int i = 0; keys[i]; i++)
                known |= !strcmp(keys[i], key);
            char near[96];
            if (known)
                cli_error("match: %s %s=%s: not a valid value (whole numbers; twosided=true)", flag, key, v);
            else
                cli_error("match: %s: unknown key '%s'%s", flag, key, nearest(key, keys, near, sizeof near, ""));
            return false;
        }
    }
    return true;
}

static bool sprt_family(Match *m, char **words, int nwords)
{
    static const char *const KEYS[] = {"elo0", "elo1", "alpha", "beta", "model", NULL};
    m->sprt_given = true;
    for (int k = 0; k < nwords; k++) {
        char key[64];
        const char *v;
        if (!split_word("-sprt", words[k], key, sizeof key, &v))
            return false;
        bool known = false;
        for (int i = 0; KEYS[i]; i++)
            known |= !strcmp(KEYS[i], key);
        if (!known) {
            char near[96];
            cli_error("match: -sprt: unknown key '%s'%s (keys: elo0, elo1, alpha, beta, model)", key,
                      nearest(key, KEYS, near, sizeof near, ""));
            return false;
        }
        m->sprt_model_given |= !strcmp(key, "model");
        strbuf_addf(&m->sprt, "%s = %s\n", key, v);
    }
    return true;
}

/* One value after a flag (-games 2); NULL after saying it is missing. */
static const char *one_value(const char *flag, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_error("match: %s needs a value", flag);
        return NULL;
    }
    return argv[++*i];
}

/* Reads the flags into m; CLI_OK, or CLI_USAGE after saying why. */
static int parse(Match *m, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            cli_error("match: unexpected word '%s' (flags start with '-'; see '%s match --help')", a, cli_self());
            return CLI_USAGE;
        }
        const char *f = a + (a[1] == '-' ? 2 : 1); /* -flag and --flag alike */
        const int end = family_end(argc, argv, i);
        char **words = argv + i + 1;
        const int nwords = end - i - 1;
        bool ok = true;
        long x;
        const char *v;
        if (!strcmp(f, "engine") || !strcmp(f, "each"))
            ok = engine_family(m, a[1] == '-' ? a + 1 : a, words, nwords), i = end - 1;
        else if (!strcmp(f, "openings"))
            ok = openings_family(m, words, nwords), i = end - 1;
        else if (!strcmp(f, "draw") || !strcmp(f, "resign"))
            ok = adjudication_family(m, !strcmp(f, "draw") ? "-draw" : "-resign", words, nwords), i = end - 1;
        else if (!strcmp(f, "sprt"))
            ok = sprt_family(m, words, nwords), i = end - 1;
        else if (!strcmp(f, "rules")) {
            for (int k = 0; k < nwords && ok; k++) {
                char key[64];
                if ((ok = split_word("-rules", words[k], key, sizeof key, &v)))
                    strbuf_addf(&m->rules, "%s = %s\n", key, v);
            }
            i = end - 1;
        } else if (!strcmp(f, "repeat")) {
            if (nwords == 1) { /* fastchess: -repeat 2 */
                i++;
                if (!whole(words[0], 0, 1000, &x) || x != 2) {
                    cli_error("match: -repeat %s: tavreli plays each opening exactly twice, colours swapped "
                              "(-repeat, or -repeat 2)",
                              words[0]);
                    return CLI_USAGE;
                }
            } else if (nwords > 1) {
                cli_error("match: -repeat takes at most one value (2)");
                return CLI_USAGE;
            }
        } else if (!strcmp(f, "recover")) {
            /* always: a program that fails as a game begins is started again ([tournament] game_attempts) */
        } else if (!strcmp(f, "log") || !strcmp(f, "debug"))
            m->log = true;
        else if (!strcmp(f, "resume"))
            m->resume = true;
        else if (!strcmp(f, "force"))
            m->force = true;
        else if (!strcmp(f, "quiet"))
            m->quiet = true;
        else if (!strcmp(f, "print-ini"))
            m->print_ini = true;
        else if (!strcmp(f, "dry-run"))
            m->dry_run = true;
        else if (!strcmp(f, "games") || !strcmp(f, "rounds") || !strcmp(f, "concurrency") || !strcmp(f, "maxmoves") ||
                 !strcmp(f, "srand") || !strcmp(f, "seed")) {
            if (!(v = one_value(a, argc, argv, &i)))
                return CLI_USAGE;
            const bool seed = !strcmp(f, "srand") || !strcmp(f, "seed");
            if (!whole(v, seed ? 0 : 1, seed ? LONG_MAX : 100000000, &x)) {
                cli_error("match: %s %s: expected a whole number%s", a, v, seed ? "" : " from 1");
                return CLI_USAGE;
            }
            if (!strcmp(f, "games")) {
                m->games = x;
                m->have_games = true;
            } else if (!strcmp(f, "rounds"))
                m->rounds = x;
            else if (!strcmp(f, "concurrency"))
                strbuf_addf(&m->tournament, "threads = %ld\n", x);
            else if (!strcmp(f, "maxmoves"))
                strbuf_addf(&m->adjudication, "max_plies = %ld\n", 2 * x);
            else
                strbuf_addf(&m->tournament, "seed = %ld\n", x);
        } else if (!strcmp(f, "tournament")) {
            if (!(v = one_value(a, argc, argv, &i)))
                return CLI_USAGE;
            if (!strcmp(v, "round-robin") || !strcmp(v, "roundrobin"))
                strbuf_addf(&m->tournament, "format = round-robin\n");
            else if (!strcmp(v, "gauntlet"))
                strbuf_addf(&m->tournament, "format = gauntlet\n");
            else {
                cli_error("match: -tournament %s: round-robin or gauntlet (the first engine against each other)", v);
                return CLI_USAGE;
            }
        } else if (!strcmp(f, "event")) {
            if (!(m->event = one_value(a, argc, argv, &i)))
                return CLI_USAGE;
        } else if (!strcmp(f, "out")) {
            if (!(m->out = one_value(a, argc, argv, &i)))
                return CLI_USAGE;
        } else if (!strcmp(f, "pgnout") || !strcmp(f, "tgnout")) {
            if (!(m->pgnout = one_value(a, argc, argv, &i)))
                return CLI_USAGE;
            /* cutechess: -pgnout FILE [min] [fi]: the words after are not taken */
            while (i + 1 < argc && (!strcmp(argv[i + 1], "min") || !strcmp(argv[i + 1], "fi")))
                i++;
        } else {
            for (int k = 0; REFUSED_FLAGS[k].flag; k++)
                if (!strcmp(f, REFUSED_FLAGS[k].flag)) {
                    cli_error("match: %s is not taken here: %s (docs/match.md)", a, REFUSED_FLAGS[k].why);
                    return CLI_USAGE;
                }
            char near[96];
            cli_error("match: unknown flag '%s'%s (see '%s match --help')", a,
                      nearest(f, KNOWN_FLAGS, near, sizeof near, "-"), cli_self());
            return CLI_USAGE;
        }
        if (!ok)
            return CLI_USAGE;
    }
    if (m->nengines < 2) {
        cli_error("match: needs two -engine or more (each: -engine cmd=PROGRAM args=... name=NAME, or "
                  "path=ENGINE.ini)");
        return CLI_USAGE;
    }
    if (m->have_games && m->games % 2) {
        cli_error("match: -games %ld: tavreli plays opening pairs (each opening with both colours), so -games must be "
                  "even (-games 2 -rounds N: N pairs)",
                  m->games);
        return CLI_USAGE;
    }
    if (m->resume && m->force) {
        cli_error("match: -resume and -force contradict each other");
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The INI text of m (heap) into *ini. */
static char *ini_text(const Match *m, const char *name, const char *out_base)
{
    StrBuf b = {0};
    strbuf_addf(&b, "; written by 'tavreli match' from its command line (docs/match.md);\n"
                    "; 'tavreli selfplay THIS.ini --out %s.h5' plays it too\n",
                out_base);
    const long per_round = m->have_games ? m->games / 2 : 1;
    strbuf_addf(&b, "[tournament]\nname = %s\npairs = %ld\n%s", name, (m->rounds > 0 ? m->rounds : 1) * per_round,
                m->tournament.s ? m->tournament.s : "");
    if (m->rules.s)
        strbuf_addf(&b, "[rules]\n%s", m->rules.s);
    if (m->openings.s)
        strbuf_addf(&b, "[openings]\n%s", m->openings.s);
    if (m->adjudication.s)
        strbuf_addf(&b, "[adjudication]\n%s", m->adjudication.s);
    if (m->sprt.s)
        strbuf_addf(&b, "[sprt]\n%s", m->sprt.s);
    else if (m->sprt_given)
        strbuf_addf(&b, "[sprt]\nelo0 = 0\n");
    if (m->each.s)
        strbuf_addf(&b, "[each]\n%s", m->each.s);
    for (int i = 0; i < m->nengines; i++) {
        strbuf_addf(&b, "[engine %s]\n%s", m->names[i], m->engine[i].s ? m->engine[i].s : "");
        const bool program = (m->engine[i].s && strstr(m->engine[i].s, "command = ")) ||
                             (!(m->engine[i].s && strstr(m->engine[i].s, "path = ")) && m->each.s &&
                              strstr(m->each.s, "command = "));
        if (m->log && program) /* a protocol log is a program's */
            strbuf_addf(&b, "log = %s.%s.protocol.log\n", out_base, m->names[i]);
    }
    return strbuf_take(&b);
}

static int run_match(const CliCommand *cmd, int argc, char **argv)
{
    (void)cmd;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-help") || !strcmp(argv[i], "-h")) {
            fputs(MATCH_HELP, stdout);
            return CLI_OK;
        }
    Match m;
    memset(&m, 0, sizeof m);
    if (!getcwd(m.cwd, sizeof m.cwd)) {
        cli_error("match: cannot read the working directory: %s", strerror(errno));
        return CLI_FAIL;
    }
    int rc = parse(&m, argc, argv);
    if (rc != CLI_OK) {
        match_free(&m);
        return rc;
    }
    const char *name = m.event ? m.event : "match";
    char out[PATH_MAX + 96], base[PATH_MAX + 96], ini[PATH_MAX + 104];
    if (m.out)
        abs_path(&m, m.out, true, out, sizeof out);
    else if (snprintf(out, sizeof out, "%s/results/%.64s.h5", m.cwd, name) >= (int)sizeof out)
        out[0] = 0;
    size_t len = strlen(out);
    snprintf(base, sizeof base, "%.*s", (int)(len > 3 && !strcmp(out + len - 3, ".h5") ? len - 3 : len), out);
    snprintf(ini, sizeof ini, "%s.ini", base);
    char *text = ini_text(&m, name, base);
    const bool note_model = m.sprt_given && !m.sprt_model_given;
    match_free(&m);
    if (!text) {
        cli_error("match: out of memory");
        return CLI_FAIL;
    }
    if (note_model)
        fprintf(stderr, "note: -sprt bounds are taken as normalized Elo (tavreli's and fastchess's default); "
                        "cutechess-cli's are logistic: add model=logistic to mean those\n");
    if (m.print_ini) {
        fputs(text, stdout);
        free(text);
        return CLI_OK;
    }
    TvError err;
    if (m.dry_run) { /* nothing written: the INI goes to a temporary file, removed after */
        snprintf(ini, sizeof ini, "%s/tavreli-match-XXXXXX", cli_temp_root());
        int fd = mkstemp(ini);
        if (fd < 0) {
            cli_error("match: cannot make a temporary file in %s: %s", cli_temp_root(), strerror(errno));
            free(text);
            return CLI_FAIL;
        }
        close(fd);
    } else if (!m.out && mkdir("results", 0777) != 0 && errno != EEXIST) {
        cli_error("match: cannot make the folder 'results' for %s: %s (give -out FILE.h5)", out, strerror(errno));
        free(text);
        return CLI_FAIL;
    } else {
        char dir[sizeof out];
        snprintf(dir, sizeof dir, "%s", out);
        char *slash = strrchr(dir, '/');
        struct stat sb;
        if (slash && slash != dir)
            *slash = 0;
        if (slash && slash != dir && stat(dir, &sb) != 0) {
            cli_error("%s: its folder %s does not exist (make it, or give another -out)", out, dir);
            free(text);
            return CLI_FAIL;
        }
    }
    if (tv_atomic_write(ini, "tournament INI", text, strlen(text), &err) != TV_OK) {
        cli_error("%s", err.msg);
        free(text);
        if (m.dry_run)
            unlink(ini);
        return CLI_FAIL;
    }
    free(text);
    /* the run: tavreli selfplay on the INI, with what passes through */
    char *sargv[12];
    int sargc = 0;
    sargv[sargc++] = "selfplay";
    sargv[sargc++] = ini;
    sargv[sargc++] = "--out";
    sargv[sargc++] = out;
    if (m.resume)
        sargv[sargc++] = "--resume";
    if (m.force)
        sargv[sargc++] = "--force";
    if (m.quiet)
        sargv[sargc++] = "--quiet";
    if (m.dry_run)
        sargv[sargc++] = "--dry-run";
    sargv[sargc] = NULL;
    rc = CLI_SELFPLAY.run(&CLI_SELFPLAY, sargc, sargv);
    if (m.dry_run)
        unlink(ini);
    if (rc != CLI_OK || !m.pgnout || m.dry_run)
        return rc;
    char tgn[PATH_MAX + 512];
    abs_path(&m, m.pgnout, true, tgn, sizeof tgn);
    char *eargv[] = {"export", out, "--tgn", tgn, NULL};
    return CLI_EXPORT.run(&CLI_EXPORT, 4, eargv);
}

const CliCommand CLI_MATCH = {"match", MATCH_HELP, NULL, run_match};
