/* engine_id.c: an engine's identity, said and compared in one place
 * (engine_id.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "engine_id.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_proc.h"
#include "run_command.h"
#include "strbuf.h"
#include "tournament.h" /* TournamentEngine: what an entry of a tournament INI gives */
#include "tavreli_version.h" /* TAVRELI_VERSION, TAVRELI_RELEASE, TAVRELI_COMMIT (CMakeLists.txt) */

static const char *const KIND_NAMES[PLAYER_NKINDS] = {"in-process engine", "random mover", "separate program"};

const char *engine_id_kind_name(int kind)
{
    return kind >= 0 && kind < PLAYER_NKINDS ? KIND_NAMES[kind] : "unknown kind";
}

/* The first word ("name=value") in which two lists of words differ, as
 * "A where_a, B where_b" ("none" for a missing word). */
static void first_word_difference(const char *a, const char *a_where, const char *b, const char *b_where, char *out,
                                  size_t n)
{
    while (*a || *b) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, n, "%.*s %s, %.*s %s", la ? (int)(la > 60 ? 60 : la) : 4, la ? a : "none", a_where,
                     lb ? (int)(lb > 60 ? 60 : lb) : 4, lb ? b : "none", b_where);
            return;
        }
        a += la + (a[la] == ' ');
        b += lb + (b[lb] == ' ');
    }
    snprintf(out, n, "the same words");
}

/* Says a difference of two texts: "WHAT: 'A' WHERE_A, 'B' WHERE_B". */
static const char *say_text(char *why, size_t n, const char *what, const char *a, const char *a_where, const char *b,
                            const char *b_where)
{
    snprintf(why, n, "%s: '%.100s' %s, '%.100s' %s", what, a, a_where, b, b_where);
    return why;
}

static const char *say_int(char *why, size_t n, const char *what, long long a, const char *a_where, long long b,
                           const char *b_where)
{
    snprintf(why, n, "%s: %lld %s, %lld %s", what, a, a_where, b, b_where);
    return why;
}

const char *engine_id_difference(const StoredEngine *a, const char *a_where, const StoredEngine *b,
                                 const char *b_where, char *why, size_t n)
{
    char w[200];
    if (strcmp(a->name, b->name))
        return say_text(why, n, "another name", a->name, a_where, b->name, b_where);
    if (a->kind != b->kind)
        return say_text(why, n, "another kind of player", engine_id_kind_name(a->kind), a_where,
                        engine_id_kind_name(b->kind), b_where);
    if (strcmp(a->command, b->command))
        return say_text(why, n, "another command", a->command, a_where, b->command, b_where);
    /* a program: the file it ran, what it said it was */
    if (a->exe_sha256[0] && b->exe_sha256[0] && strcmp(a->exe_sha256, b->exe_sha256)) {
        snprintf(why, n, "another executable (%.200s): SHA-256 %.12s... (%lld bytes) %s, %.12s... (%lld bytes) %s",
                 b->exe_path, a->exe_sha256, (long long)a->exe_size, a_where, b->exe_sha256, (long long)b->exe_size,
                 b_where);
        return why;
    }
    if (a->id_name[0] && b->id_name[0] && strcmp(a->id_name, b->id_name))
        return say_text(why, n, "another id name", a->id_name, a_where, b->id_name, b_where);
    if (a->id_author[0] && b->id_author[0] && strcmp(a->id_author, b->id_author))
        return say_text(why, n, "another id author", a->id_author, a_where, b->id_author, b_where);
    if (a->commit[0] && b->commit[0] && strcmp(a->commit, b->commit))
        return say_text(why, n, "another build (commit)", a->commit, a_where, b->commit, b_where);
    if (a->bench >= 0 && b->bench >= 0 && a->bench != b->bench)
        return say_int(why, n, "another bench signature (nodes)", a->bench, a_where, b->bench, b_where);
    if (strcmp(a->options, b->options)) {
        first_word_difference(a->options, a_where, b->options, b_where, w, sizeof w);
        snprintf(why, n, "other options (%s)", w);
        return why;
    }
    if (a->options_in_effect[0] && b->options_in_effect[0] && strcmp(a->options_in_effect, b->options_in_effect)) {
        first_word_difference(a->options_in_effect, a_where, b->options_in_effect, b_where, w, sizeof w);
        snprintf(why, n, "other option values in effect, as the program declared them (%s)", w);
        return why;
    }
    if (a->depth != b->depth)
        return say_int(why, n, "another depth limit", a->depth, a_where, b->depth, b_where);
    if (a->nodes != b->nodes)
        return say_int(why, n, "another node limit", a->nodes, a_where, b->nodes, b_where);
    if (a->movetime_ms != b->movetime_ms)
        return say_int(why, n, "another movetime (ms)", a->movetime_ms, a_where, b->movetime_ms, b_where);
    if (strcmp(a->tc, b->tc))
        return say_text(why, n, "another time control", a->tc[0] ? a->tc : "none", a_where,
                        b->tc[0] ? b->tc : "none", b_where);
    if (a->timemargin_ms != b->timemargin_ms)
        return say_int(why, n, "another timemargin (ms)", a->timemargin_ms, a_where, b->timemargin_ms, b_where);
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        if (a->weights[i] != b->weights[i]) {
            char name[96], what[128];
            eval_weight_element_name(i, name, sizeof name);
            snprintf(what, sizeof what, "other weights (%s)", name);
            return say_int(why, n, what, a->weights[i], a_where, b->weights[i], b_where);
        }
    if (a->settings[0] && b->settings[0] && strcmp(a->settings, b->settings)) {
        first_word_difference(a->settings, a_where, b->settings, b_where, w, sizeof w);
        snprintf(why, n, "other search settings (%s)", w);
        return why;
    }
    return NULL;
}

bool engine_id_identical(const StoredEngine *a, const StoredEngine *b)
{
    char why[8];
    return !engine_id_difference(a, "", b, "", why, sizeof why) && a->kind != PLAYER_RANDOM &&
           a->movetime_ms == 0 && !a->tc[0] && (a->kind != PLAYER_ENGINE || (a->settings[0] && b->settings[0]));
}

bool engine_id_reproducible(const StoredEngine *e)
{
    return e->kind != PLAYER_PROCESS && e->movetime_ms <= 0 && !e->tc[0];
}

void engine_id_tag(const StoredEngine *e, char *buf, size_t n)
{
    if (e->commit[0])
        snprintf(buf, n, "%.18s", e->commit);
    else if (e->exe_sha256[0])
        snprintf(buf, n, "sha256:%.12s", e->exe_sha256);
    else if (n > 0)
        buf[0] = '\0';
}

/* The built-in engine's search settings as stored: "name=value ..." in
 * search.def order, booleans as yes/no (as an engine INI spells them). */
static void settings_text(const SearchSettings *s, char *buf, size_t n)
{
    size_t o = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int k = 0; k < SEARCH_NSETTINGS && o < n; k++) {
        const int v = search_setting_value(s, k);
        if (SEARCH_SETTING_INFO[k].type == SEARCH_SETTING_BOOL)
            o += (size_t)snprintf(buf + o, n - o, "%s%s=%s", k ? " " : "", SEARCH_SETTING_INFO[k].name,
                                  v ? "yes" : "no");
        else
            o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", k ? " " : "", SEARCH_SETTING_INFO[k].name, v);
    }
}

/* Fills e's version and commit with this tavreli build's (its git describe
 * and commit, "-dirty" for a modified tree; "" outside a git checkout). */
static void this_build(StoredEngine *e)
{
    snprintf(e->version, sizeof e->version, "%s", TAVRELI_VERSION);
    snprintf(e->commit, sizeof e->commit, "%s", TAVRELI_COMMIT);
}

void engine_id_uci_name(const char *name, char *buf, size_t n)
{
    if (TAVRELI_COMMIT[0])
        snprintf(buf, n, "tavreli %s (%s) %s", TAVRELI_RELEASE, TAVRELI_COMMIT, name);
    else
        snprintf(buf, n, "tavreli %s %s", TAVRELI_RELEASE, name);
}

/* A commit as this build writes it, 7 to 40 hex digits and "-dirty" for a
 * modified tree, at c and closed by ')': into buf. */
static bool commit_at(const char *c, char *buf, size_t n)
{
    size_t len = strspn(c, "0123456789abcdef");
    if (len < 7 || len > 40)
        return false;
    if (!strncmp(c + len, "-dirty", 6))
        len += 6;
    if (c[len] != ')' || len + 1 > n)
        return false;
    snprintf(buf, n, "%.*s", (int)len, c);
    return true;
}

bool engine_id_commit_of_name(const char *id_name, char *buf, size_t n)
{
    if (n > 0)
        buf[0] = '\0';
    if (strncmp(id_name, "tavreli ", 8) != 0)
        return false;
    const char *open = strchr(id_name + 8, '(');
    return open && commit_at(open + 1, buf, n);
}

void engine_id_version_line(char *buf, size_t n)
{
    snprintf(buf, n, "tavreli %s (commit %s)\nbuilt as %s from tree %s", TAVRELI_VERSION,
             TAVRELI_COMMIT[0] ? TAVRELI_COMMIT : "unknown", TAVRELI_BUILD_KIND[0] ? TAVRELI_BUILD_KIND : "unknown",
             TAVRELI_TREE[0] ? TAVRELI_TREE : "unknown");
}

bool engine_id_build_of_version(const char *text, char *kind, size_t kn, char *tree, size_t tn)
{
    if (kn > 0)
        kind[0] = '\0';
    if (tn > 0)
        tree[0] = '\0';
    const char *at = strstr(text, "\nbuilt as ");
    if (!at)
        return false;
    at += 10;
    const size_t klen = strcspn(at, " \n");
    if (strncmp(at + klen, " from tree ", 11) != 0)
        return false;
    const char *t = at + klen + 11;
    const size_t tlen = strspn(t, "0123456789abcdef");
    if (klen == 0 || klen >= kn || tlen < 40 || tlen >= tn || (t[tlen] != '\0' && t[tlen] != '\n'))
        return false;
    snprintf(kind, kn, "%.*s", (int)klen, at);
    snprintf(tree, tn, "%.*s", (int)tlen, t);
    return true;
}

bool engine_id_commit_of_version(const char *text, char *buf, size_t n)
{
    if (n > 0)
        buf[0] = '\0';
    const char *at = strncmp(text, "tavreli ", 8) ? NULL : strstr(text, " (commit ");
    return at && commit_at(at + 9, buf, n);
}

/* The program a command runs, as execvp finds it, into path (absolute,
 * symbolic links resolved). */
static TvStatus find_program(const char *prog, char *path, size_t n, TvError *err)
{
    char cand[PATH_MAX];
    if (strchr(prog, '/')) {
        if (!realpath(prog, cand))
            return tv_fail(err, TV_ERR_IO, "program '%s': %s", prog, strerror(errno));
        if ((size_t)snprintf(path, n, "%s", cand) >= n)
            return tv_fail(err, TV_ERR_ARG, "program '%s': its path is longer than %zu bytes", cand, n - 1);
        return TV_OK;
    }
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    for (const char *d = dirs; *d;) {
        size_t len = strcspn(d, ":");
        if ((size_t)snprintf(cand, sizeof cand, "%.*s/%s", (int)(len ? len : 1), len ? d : ".", prog) <
                sizeof cand &&
            access(cand, X_OK) == 0) {
            char real[PATH_MAX];
            struct stat sb;
            if (realpath(cand, real) && stat(real, &sb) == 0 && S_ISREG(sb.st_mode)) {
                if ((size_t)snprintf(path, n, "%s", real) >= n)
                    return tv_fail(err, TV_ERR_ARG, "program '%s': its path is longer than %zu bytes", real, n - 1);
                return TV_OK;
            }
        }
        d += len + (d[len] == ':');
    }
    return tv_fail(err, TV_ERR_IO, "program '%s' is not found along PATH", prog);
}

TvStatus engine_id_program(const char *command, StoredEngine *e, TvError *err)
{
    char words[2048];
    char *argv[64];
    if (engine_proc_split(command, words, sizeof words, argv, 64) <= 0)
        return tv_fail(err, TV_ERR_ARG, "command '%s' names no program", command);
    TvStatus st = find_program(argv[0], e->exe_path, sizeof e->exe_path, err);
    if (st != TV_OK)
        return st;
    int fd = open(e->exe_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tv_fail(err, TV_ERR_IO, "%s: cannot read it (to hash it): %s", e->exe_path, strerror(errno));
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    unsigned char buf[65536];
    int64_t size = 0;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0) {
            sha256_update(&ctx, (size_t)r, buf);
            size += r;
        }
    const int read_errno = errno;
    close(fd);
    if (r < 0)
        return tv_fail(err, TV_ERR_IO, "%s: cannot read it (to hash it): %s", e->exe_path, strerror(read_errno));
    unsigned char digest[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(e->exe_sha256 + 2 * i, sizeof e->exe_sha256 - 2 * (size_t)i, "%02x", digest[i]);
    e->exe_size = size;
    return TV_OK;
}

/* The node count in a bench's output: the last line that reads "nodes N"
 * or "N nodes" (as `tavreli bench search` ends, and as chess engines print
 * "Nodes searched: N"); -1 when no line does. */
static int64_t bench_nodes(const char *text)
{
    int64_t found = -1;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char l[256];
        snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l - 1 ? len : sizeof l - 1), line);
        for (char *c = l; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        char *at = strstr(l, "nodes");
        long long v;
        char *end;
        if (at) {
            const char *after = at + 5;
            while (*after == ' ' || *after == ':' || *after == '\t')
                after++;
            if (!strncmp(after, "searched", 8))
                for (after += 8; *after == ' ' || *after == ':' || *after == '\t';)
                    after++;
            errno = 0;
            v = strtoll(after, &end, 10);
            if (end != after && !errno && v >= 0 && (*end == '\0' || *end == ' ' || *end == '\r'))
                found = v;
            else if (at > l) { /* "N nodes" */
                const char *num = at - 1;
                while (num > l && *num == ' ')
                    num--;
                while (num > l && num[-1] >= '0' && num[-1] <= '9')
                    num--;
                errno = 0;
                v = strtoll(num, &end, 10);
                if (end != num && !errno && v >= 0 && (num == l || num[-1] == ' ') && *end == ' ')
                    found = v;
            }
        }
        line += len + (line[len] == '\n');
    }
    return found;
}

TvStatus engine_id_bench(const char *command, const char *dir, int64_t *nodes, TvError *err)
{
    *nodes = -1;
    char words[2048];
    char *argv[64];
    if (engine_proc_split(command, words, sizeof words, argv, 64) <= 0)
        return tv_fail(err, TV_ERR_ARG, "bench command '%s' names no program", command);
    CommandResult r;
    TvStatus st = run_command(argv, dir && *dir ? dir : NULL, ENGINE_ID_BENCH_TIMEOUT_MS, &r, err);
    if (st != TV_OK) {
        strbuf_free(&r.out);
        return st;
    }
    char tail[600];
    run_command_tail(strbuf_str(&r.out), 4, tail, sizeof tail);
    if (r.timed_out)
        st = tv_fail(err, TV_ERR_IO, "bench command '%s' did not end within %d s", command,
                     ENGINE_ID_BENCH_TIMEOUT_MS / 1000);
    else if (r.exit_status != 0)
        st = tv_fail(err, TV_ERR_IO, "bench command '%s' ended with status %d; it said: %s", command, r.exit_status,
                     tail);
    else if ((*nodes = bench_nodes(strbuf_str(&r.out))) < 0)
        st = tv_fail(err, TV_ERR_PARSE, "bench command '%s' printed no node count (a line 'nodes N'); it said: %s",
                     command, tail);
    strbuf_free(&r.out);
    return st;
}

TvStatus engine_id_tavreli_bench(const char *exe, int64_t *nodes, TvError *err)
{
    char command[PATH_MAX + 32];
    snprintf(command, sizeof command, "'%s' bench search", exe);
    return engine_id_bench(command, NULL, nodes, err);
}

/* ---- older stores in today's spelling ----------------------------------------------- */

/* The option.NAME lines of a stored tournament INI: [each]'s and each
 * engine's own (which wins over [each], as the tournament reader has it). */
typedef struct {
    StoredEngine *engines;
    int n;
    StrBuf *own; /* n lists "NAME=VALUE\n" */
    StrBuf each;
} OptionLines;

static int option_line(void *user, const char *section, const char *name, const char *value)
{
    OptionLines *o = user;
    if (strncmp(name, "option.", 7) != 0)
        return 1;
    StrBuf *dst = NULL;
    if (!strcmp(section, "each")) {
        dst = &o->each;
    } else if (!strncmp(section, "engine", 6) && (section[6] == ' ' || section[6] == '\t')) {
        const char *s = section + 6;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        for (int e = 0; e < o->n && !dst; e++)
            if (strlen(o->engines[e].name) == len && !strncmp(o->engines[e].name, s, len))
                dst = &o->own[e];
    }
    if (dst)
        strbuf_addf(dst, "%s=%s\n", name + 7, value);
    return 1;
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void engine_id_join_sorted(char **words, int n, char *buf, size_t size)
{
    qsort(words, (size_t)n, sizeof *words, by_text);
    size_t o = 0;
    if (size > 0)
        buf[0] = '\0';
    for (int k = 0; k < n && o < size; k++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s", k ? " " : "", words[k]);
}

/* "NAME=VALUE" lines (own first, then [each]'s of names not given) into
 * e->options, sorted, one space apart. */
static void set_options(StoredEngine *e, const char *own, const char *each)
{
    char *copy = malloc(strlen(own) + strlen(each) + 1);
    char *lines[2 * 64 + 2];
    int nl = 0;
    if (!copy)
        return;
    strcpy(copy, own);
    strcat(copy, each);
    const size_t own_len = strlen(own);
    for (char *s = copy, *nl_at; *s && nl < (int)(sizeof lines / sizeof *lines); s = nl_at + 1) {
        nl_at = strchr(s, '\n');
        if (!nl_at)
            break;
        *nl_at = '\0';
        bool given = false; /* an [each] line for a name the engine gives itself */
        size_t name_len = strcspn(s, "=");
        for (int k = 0; (size_t)(s - copy) >= own_len && k < nl && !given; k++)
            given = !strncmp(lines[k], s, name_len) && lines[k][name_len] == '=';
        if (!given)
            lines[nl++] = s;
    }
    engine_id_join_sorted((char **)lines, nl, e->options, sizeof e->options);
    free(copy);
}

/* Every text field ends within its array (a crafted store may fill one to
 * its last byte: HDF5 pads, it does not terminate). */
static void terminate(StoredEngine *e)
{
#define END(f) e->f[sizeof e->f - 1] = '\0'
    END(name), END(path), END(command), END(tc), END(settings), END(version), END(commit), END(exe_path),
        END(exe_sha256), END(id_name), END(id_author), END(options), END(options_in_effect);
#undef END
}

void engine_id_upgrade(StoredEngine *engines, int nengines, int schema, const char *tournament_ini)
{
    for (int e = 0; e < nengines; e++)
        terminate(&engines[e]);
    if (schema >= H5STORE_SCHEMA_VERSION)
        return;
    /* settings: booleans were 0/1 */
    for (int e = 0; e < nengines; e++) {
        char *s = engines[e].settings, out[sizeof engines[e].settings];
        size_t o = 0;
        if (!s[0])
            continue;
        for (const char *w = s; *w && o < sizeof out;) {
            size_t len = strcspn(w, " "), name_len = strcspn(w, "=");
            const char *value = w + name_len + 1;
            bool boolean = false;
            for (int k = 0; k < SEARCH_NSETTINGS && name_len < len; k++)
                if (strlen(SEARCH_SETTING_INFO[k].name) == name_len &&
                    !strncmp(SEARCH_SETTING_INFO[k].name, w, name_len))
                    boolean = SEARCH_SETTING_INFO[k].type == SEARCH_SETTING_BOOL;
            const size_t vlen = name_len < len ? len - name_len - 1 : 0;
            if (boolean && vlen == 1 && (*value == '0' || *value == '1'))
                o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s=%s", o ? " " : "", (int)name_len, w,
                                      *value == '1' ? "yes" : "no");
            else
                o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", o ? " " : "", (int)len, w);
            w += len + (w[len] == ' ');
        }
        if (o < sizeof out)
            memcpy(s, out, o + 1);
    }
    /* a program's options were only in the INI */
    OptionLines lines = {engines, nengines, calloc((size_t)(nengines > 0 ? nengines : 1), sizeof(StrBuf)), {0}};
    if (!lines.own)
        return;
    ini_parse_string(tournament_ini ? tournament_ini : "", option_line, &lines);
    for (int e = 0; e < nengines; e++) {
        if (engines[e].kind == PLAYER_PROCESS && !engines[e].options[0])
            set_options(&engines[e], lines.own[e].s ? lines.own[e].s : "", lines.each.s ? lines.each.s : "");
        strbuf_free(&lines.own[e]);
    }
    strbuf_free(&lines.each);
    free(lines.own);
}

void engine_id_of_entry(const TournamentEngine *te, StoredEngine *se)
{
    const EngineVersion *e = &te->engine;
    memset(se, 0, sizeof *se);
    se->exe_size = -1;
    se->bench = -1;
    snprintf(se->name, sizeof se->name, "%s", e->name);
    snprintf(se->path, sizeof se->path, "%.*s", (int)sizeof se->path - 1, te->path);
    se->depth = e->limits.depth;
    se->nodes = (int64_t)e->limits.nodes;
    se->movetime_ms = e->limits.movetime_ms;
    se->kind = (int8_t)te->kind;
    time_control_format(&te->tc, se->tc, sizeof se->tc);
    se->timemargin_ms = te->timemargin_ms;
    if (te->kind == PLAYER_ENGINE) { /* a program's weights and settings are its own: 0 and "" */
        memcpy(se->weights, e->params.w, sizeof se->weights);
        settings_text(&e->settings, se->settings, sizeof se->settings);
        this_build(se);
    }
    if (te->kind == PLAYER_PROCESS) {
        snprintf(se->command, sizeof se->command, "%.*s", (int)sizeof se->command - 1, te->command);
        char words[TOURNAMENT_MAX_OPTIONS][sizeof te->option_names[0] + sizeof te->option_values[0] + 1];
        char *sorted[TOURNAMENT_MAX_OPTIONS];
        for (int k = 0; k < te->noptions; k++) {
            snprintf(words[k], sizeof words[k], "%s=%s", te->option_names[k], te->option_values[k]);
            sorted[k] = words[k];
        }
        engine_id_join_sorted(sorted, te->noptions, se->options, sizeof se->options);
    }
}
