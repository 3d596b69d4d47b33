#define _XOPEN_SOURCE 700 /* nftw */
/* cli_args.c: the one argument parser of the front ends (getopt_long over a
 * command's flag table), and the messages they share.  See cli.h. */
#include "cli.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "option.h"
#include "record.h"
#include "status.h"
#include "tfen.h"

#define MAX_FLAGS 40

const CliFlag CLI_NO_FLAGS[] = {{NULL, 0, 0, 0, 0, 0}};

/* Prints "LEAD: MESSAGE" with the message escaped (tv_escape): a file name
 * or a value echoed from the command line that is not UTF-8, or holds
 * control bytes, is shown as \xNN, never sent raw to the terminal. */
static void print_escaped(const char *lead, const char *fmt, va_list ap)
{
    char raw[2048], shown[4 * 2048];
    vsnprintf(raw, sizeof raw, fmt, ap);
    fprintf(stderr, "%s: %s\n", lead, tv_escape(raw, shown, sizeof shown));
}

/* Prints the usage lines of a command's help (up to its first blank line)
 * with "usage: " replaced by lead, continuation lines kept aligned. */
void cli_print_synopsis(FILE *out, const char *help, const char *lead_text)
{
    const char *const lead = "usage: ";
    const size_t llen = strlen(lead_text);
    for (const char *s = help; *s && *s != '\n';) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        if (!strncmp(s, lead, strlen(lead))) {
            s += strlen(lead);
            len -= strlen(lead);
            fputs(lead_text, out);
        } else { /* a continuation: aligned under the first line's words */
            size_t blanks = strspn(s, " ");
            size_t cut = blanks < strlen(lead) ? blanks : strlen(lead);
            s += cut;
            len -= cut;
            fprintf(out, "%*s", (int)llen, "");
        }
        fprintf(out, "%.*s\n", (int)len, s);
        s += len;
        if (*s == '\n')
            s++;
    }
}

void cli_print_bench_usage(FILE *out, const char *first, const char *lead)
{
    int n;
    bool said = false;
    const CliCommand *const *cmds = cli_commands(&n);
    for (int k = 0; k < n; k++)
        if (!strncmp(cmds[k]->name, "bench ", 6)) {
            cli_print_synopsis(out, cmds[k]->help, said ? lead : first);
            said = true;
        }
}

/* The one global of the front end: what main was run as (cli_self). */
static char g_self[1024] = "tavreli";

bool cli_apply_engine_options(const char *cmd, const CliEngineOptions *o, EngineVersion *e)
{
    for (int i = 0; i < o->n; i++) {
        const char *eq = strchr(o->text[i], '=');
        char name[128], shown[200];
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->text[i]), o->text[i]);
        TvError err;
        if (option_set_text(e, name, eq + 1, &err) != TV_OK) {
            cli_error("%s: --option '%s': %s", cmd, tv_escape(o->text[i], shown, sizeof shown), err.msg);
            return false;
        }
    }
    return true;
}

void cli_set_self(const char *argv0)
{
    if (argv0 && strchr(argv0, '/') && strlen(argv0) < sizeof g_self)
        snprintf(g_self, sizeof g_self, "%s", argv0);
}

const char *cli_self(void) { return g_self; }

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_escaped("error", fmt, ap);
    va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_escaped("warning", fmt, ap);
    va_end(ap);
}

void cli_join_words(char **words, int n, char *buf, size_t size)
{
    buf[0] = 0;
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", words[i]);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
}

const char *cli_cell(const char *s, int width, bool right, char *buf, size_t n)
{
    int cols = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        cols += (*c & 0xC0) != 0x80; /* a character's first byte */
    const int pad = width > cols ? width - cols : 0;
    snprintf(buf, n, "%*s%s%*s", right ? pad : 0, "", s, right ? 0 : pad, "");
    return buf;
}

bool cli_load_engine(const char *path, EngineVersion *e)
{
    if (!path) {
        engine_default(e);
        return true;
    }
    TvError err;
    if (engine_read(path, e, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return false;
    }
    return true;
}

bool cli_read_position(char **words, int n, Position *p)
{
    char tfen[1024];
    cli_join_words(words, n, tfen, sizeof tfen);
    TvError err;
    if (tfen_read_arg(tfen, p, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return false;
    }
    return true;
}

const char *cli_one_arg(const CliCommand *cmd, char **pos, int npos, const char *what)
{
    if (npos == 1)
        return pos[0];
    char shown[160];
    if (npos == 0)
        cli_error("%s: expected %s (see 'tavreli %s --help')", cmd->name, what, cmd->name);
    else
        cli_error("%s: one %s only ('%s' is extra)", cmd->name, what, tv_escape(pos[1], shown, sizeof shown));
    return NULL;
}

/* Stores one flag's value; false (after a message) when it is not valid. */
int cli_edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
    int row[64];
    if (na >= 63 || nb >= 63)
        return 99;
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* " (did you mean --NAME?)" for the command's flag nearest to the unknown
 * word (a distance of at most a third of its length, 2 at least), or the
 * word a rule option takes now; "" when none is near. */
static void nearest_flag(const CliCommand *cmd, const char *what, char *buf, size_t n)
{
    buf[0] = 0;
    const char *name = what;
    while (*name == '-')
        name++;
    size_t len = strcspn(name, "=");
    bool rules = false;
    for (int i = 0; cmd->flags && cmd->flags[i].name; i++)
        rules |= cmd->flags[i].kind == CLI_RULE_OPTION;
    if (rules && len == 6 && !strncmp(name, "option", 6)) {
        snprintf(buf, n, " (a rule option is --rule NAME=VALUE; --option sets an engine's option, in analyse and "
                         "play)");
        return;
    }
    int best = 99;
    const char *near = NULL;
    for (int i = 0; cmd->flags && cmd->flags[i].name; i++) {
        int d = cli_edit_distance(name, len, cmd->flags[i].name, strlen(cmd->flags[i].name));
        if (d < best) {
            best = d;
            near = cmd->flags[i].name;
        }
    }
    const int limit = len / 3 > 2 ? (int)(len / 3) : 2;
    if (near && best <= limit)
        snprintf(buf, n, " (did you mean --%s?)", near);
}

static bool store_value(const CliCommand *cmd, const CliFlag *f, const char *v, void *args)
{
    char *dst = (char *)args + f->offset;
    char shown[160];
    tv_escape(v ? v : "", shown, sizeof shown);
    switch (f->kind) {
    case CLI_BOOL:
        *(bool *)dst = true;
        return true;
    case CLI_STRING:
        *(const char **)dst = v;
        return true;
    case CLI_LONG:
    case CLI_U64: {
        char *end;
        errno = 0;
        bool neg = strchr(v, '-') != NULL;
        unsigned long long u = neg ? 0 : strtoull(v, &end, 10);
        long long s = neg ? strtoll(v, &end, 10) : 0;
        double x = neg ? (double)s : (double)u;
        if (!*v || *end || errno || (f->kind == CLI_U64 && neg) || x < f->lo || x > f->hi ||
            (f->kind == CLI_LONG && !neg && u > (unsigned long long)INT64_MAX)) {
            cli_error("%s: --%s must be a whole number from %.0f to %.0f, not '%s'", cmd->name, f->name, f->lo,
                      f->hi, shown);
            return false;
        }
        if (f->kind == CLI_LONG)
            *(long *)dst = neg ? (long)s : (long)u;
        else
            *(unsigned long long *)dst = u;
        return true;
    }
    case CLI_DOUBLE:
    case CLI_DOUBLE_OPEN: {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        const bool open = f->kind == CLI_DOUBLE_OPEN;
        if (!*v || *end || errno || !isfinite(x) || (open ? x <= f->lo || x >= f->hi : x < f->lo || x > f->hi)) {
            cli_error(open ? "%s: --%s must be a number above %g and below %g, not '%s'"
                           : "%s: --%s must be a number from %g to %g, not '%s'",
                      cmd->name, f->name, f->lo, f->hi, shown);
            return false;
        }
        *(double *)dst = x;
        return true;
    }
    case CLI_ENGINE_OPTION: {
        CliEngineOptions *o = (CliEngineOptions *)dst;
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) {
            cli_error("%s: --%s '%s': expected NAME=VALUE (for example lmr=no; the names: 'tavreli weights' and "
                      "docs/engines.md)",
                      cmd->name, f->name, shown);
            return false;
        }
        if (o->n >= CLI_MAX_ENGINE_OPTIONS) {
            cli_error("%s: more than %d --%s", cmd->name, CLI_MAX_ENGINE_OPTIONS, f->name);
            return false;
        }
        o->text[o->n++] = v;
        return true;
    }
    case CLI_RULE_OPTION: {
        const char *eq = strchr(v, '=');
        char name[64];
        if (!eq || (size_t)(eq - v) >= sizeof name) {
            cli_error("%s: --%s '%s': expected NAME=VALUE (for example slide_over_own=yes)", cmd->name, f->name,
                      shown);
            return false;
        }
        memcpy(name, v, (size_t)(eq - v));
        name[eq - v] = 0;
        TvError err;
        if (rule_options_set((Options *)dst, name, eq + 1, &err) != TV_OK) {
            cli_error("%s: --%s '%s': %s", cmd->name, f->name, shown, err.msg);
            return false;
        }
        return true;
    }
    }
    return false;
}

CliParse cli_parse(const CliCommand *cmd, int argc, char **argv, void *args, char **pos, int *npos)
{
    struct option longopts[MAX_FLAGS + 2];
    char shortopts[3 * MAX_FLAGS + 8];
    size_t ns = 0;
    int n = 0;
    /* '-': positional arguments come back in order as code 1; ':': a
     * missing value is reported as ':' rather than '?'. */
    shortopts[ns++] = '-';
    shortopts[ns++] = ':';
    shortopts[ns++] = 'h';
    for (; cmd->flags && cmd->flags[n].name; n++) {
        const CliFlag *f = &cmd->flags[n];
        longopts[n] = (struct option){f->name, f->kind == CLI_BOOL ? no_argument : required_argument, NULL, 256 + n};
        if (f->short_name) {
            shortopts[ns++] = f->short_name;
            if (f->kind != CLI_BOOL)
                shortopts[ns++] = ':';
        }
    }
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    shortopts[ns] = 0;

    if (npos)
        *npos = 0;
    optind = 0; /* glibc: a full re-initialisation (a command may parse twice) */
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c == -1)
            break;
        if (c == 'h') {
            fputs(cmd->help, stdout);
            return CLI_PARSE_HELP;
        }
        if (c == 1) {
            if (!pos) {
                char shown[160];
                cli_error("%s: unexpected argument '%s' (see 'tavreli %s --help')", cmd->name,
                          tv_escape(optarg, shown, sizeof shown), cmd->name);
                return CLI_PARSE_ERROR;
            }
            pos[(*npos)++] = optarg;
            continue;
        }
        const CliFlag *f = NULL;
        if (c >= 256)
            f = &cmd->flags[c - 256];
        else if (c != '?' && c != ':')
            for (int i = 0; cmd->flags[i].name && !f; i++)
                if (cmd->flags[i].short_name == c)
                    f = &cmd->flags[i];
        if (!f) {
            char shown[160];
            const char *what = argv[optind - 1];
            const char *eq = strchr(what, '=');
            bool valued_bool = false;
            for (int i = 0; eq && cmd->flags[i].name; i++)
                valued_bool |= cmd->flags[i].kind == CLI_BOOL && !strncmp(what, "--", 2) &&
                               strlen(cmd->flags[i].name) == (size_t)(eq - what - 2) &&
                               !strncmp(what + 2, cmd->flags[i].name, (size_t)(eq - what - 2));
            if (c == ':')
                cli_error("%s: %s needs a value (see 'tavreli %s --help')", cmd->name,
                          tv_escape(what, shown, sizeof shown), cmd->name);
            else if (valued_bool)
                cli_error("%s: %.*s takes no value ('%s')", cmd->name, (int)(eq - what), what,
                          tv_escape(what, shown, sizeof shown));
            else {
                char near[160];
                nearest_flag(cmd, what, near, sizeof near);
                cli_error("%s: unknown flag '%s'%s (see '%s %s --help')", cmd->name,
                          tv_escape(what, shown, sizeof shown), near, cli_self(), cmd->name);
            }
            return CLI_PARSE_ERROR;
        }
        if (!store_value(cmd, f, optarg, args))
            return CLI_PARSE_ERROR;
    }
    /* After "--", getopt leaves the rest in argv[optind..]. */
    for (int i = optind; i < argc; i++) {
        if (!pos) {
            char shown[160];
            cli_error("%s: unexpected argument '%s' (see 'tavreli %s --help')", cmd->name,
                      tv_escape(argv[i], shown, sizeof shown), cmd->name);
            return CLI_PARSE_ERROR;
        }
        pos[(*npos)++] = argv[i];
    }
    return CLI_PARSED;
}

int cli_parse_or_exit(const CliCommand *cmd, int argc, char **argv, void *args, char **pos, int *npos)
{
    switch (cli_parse(cmd, argc, argv, args, pos, npos)) {
    case CLI_PARSED: return -1;
    case CLI_PARSE_HELP: return CLI_OK;
    case CLI_PARSE_ERROR: break;
    }
    return CLI_USAGE;
}

const char *cli_temp_root(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

bool cli_temp_dir(const char *what, char *buf, size_t n)
{
    if ((size_t)snprintf(buf, n, "%s/tavreli-%s-XXXXXX", cli_temp_root(), what) >= n) {
        errno = ENAMETOOLONG;
        return false;
    }
    return mkdtemp(buf) != NULL;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path); /* go on: what cannot be removed is reported below */
    return 0;
}

void cli_remove_temp_dir(const char *dir, const char *who)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    if (access(dir, F_OK) == 0)
        cli_warning("%s: %s was not removed", who, dir);
}
