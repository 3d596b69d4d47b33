/* cli_tune.c: `tavreli tune` and `tavreli bench tune` (tuner/tune.h does
 * the work). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tune.h"

static const char TUNE_HELP[] =
    "usage: tavreli tune --data FILE.h5 [FILE.h5 ...] --engine START.ini --out NEW.ini\n"
    "                    [--groups GROUP,...] [--holdout F] [--seed S] [--l2 LAMBDA]\n"
    "                    [--bootstrap N] [--max-iter N] [--log FILE]\n"
    "\n"
    "Fits the evaluation weights to the results of stored games (Texel tuning):\n"
    "every stored position is resolved to its quiescence leaf with the START\n"
    "engine, and the weights minimise the mean squared error between the result\n"
    "(1, 0.5, 0 for the side to move) and sigmoid(K * eval), K fitted first.\n"
    "\n"
    "  --groups     fit only these groups of weights.def (material, tower,\n"
    "               combatant, mobility, wizard, centre; default: all)\n"
    "  --holdout F  fraction of the games held out to measure the fit (0.1)\n"
    "  --seed S     seed of the split and the bootstrap (1)\n"
    "  --l2 LAMBDA  add LAMBDA * sum (w - w_start)^2 to the loss (0)\n"
    "  --bootstrap N  N refits on games resampled with replacement (0)\n"
    "  --max-iter N iteration limit of the minimiser (500)\n"
    "  --log FILE   the tuning log (default: NEW.tuning.log next to NEW.ini),\n"
    "               for 'tavreli report --tuning-log'\n"
    "\n"
    "Writes NEW.ini (the START engine with the fitted weights rounded, and the\n"
    "fit as comments: losses, and per weight 'name: start -> new +- se').\n";

static const char BENCH_TUNE_HELP[] =
    "usage: tavreli bench tune [--positions N] [--base N] [--seed S]\n"
    "\n"
    "Times the tuner on N synthetic positions (1000000): the feature vectors of\n"
    "BASE (5000) random-walk positions, resolved, replicated with labels drawn\n"
    "from the model. Prints loss + gradient positions per second, bytes per\n"
    "position in memory, and the time of a full fit of all weights.\n";

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
        cli_error("tune: %s must be a number from %g to %g, not '%s'", opt, lo, hi, s);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_u64(const char *opt, const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-') {
        cli_error("tune: %s must be a whole number from %llu to %llu, not '%s'", opt, lo, hi, s);
        return 0;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < lo || v > hi) {
        cli_error("tune: %s must be a whole number from %llu to %llu, not '%s'", opt, lo, hi, s);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_tune(int argc, char **argv)
{
    TuneArgs a;
    tune_args_default(&a);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files)
        return CLI_FAIL;
    int nfiles = 0, rc = CLI_OK;
    a.msg = stdout;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        unsigned long long u;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(TUNE_HELP, stdout);
            goto done;
        }
        if (!strcmp(o, "--data")) {
            while (i + 1 < argc && argv[i + 1][0] != '-')
                files[nfiles++] = argv[++i];
            continue;
        }
        if (i + 1 >= argc) {
            cli_error("tune: unknown or incomplete option '%s' (see 'tavreli tune --help')", o);
            rc = CLI_USAGE;
            goto done;
        }
        const char *v = argv[++i];
        if (!strcmp(o, "--engine"))
            a.engine = v;
        else if (!strcmp(o, "--out"))
            a.out = v;
        else if (!strcmp(o, "--log"))
            a.log = v;
        else if (!strcmp(o, "--groups"))
            a.groups = v;
        else if (!strcmp(o, "--holdout")) {
            if (!parse_double(o, v, 0, 0.9, &a.holdout))
                rc = CLI_USAGE;
        } else if (!strcmp(o, "--l2")) {
            if (!parse_double(o, v, 0, 1e6, &a.l2))
                rc = CLI_USAGE;
        } else if (!strcmp(o, "--seed")) {
            if (parse_u64(o, v, 0, ~0ULL, &u))
                a.seed = u;
            else
                rc = CLI_USAGE;
        } else if (!strcmp(o, "--bootstrap")) {
            if (parse_u64(o, v, 0, 100000, &u))
                a.bootstrap = (int)u;
            else
                rc = CLI_USAGE;
        } else if (!strcmp(o, "--max-iter")) {
            if (parse_u64(o, v, 1, 100000, &u))
                a.max_iter = (int)u;
            else
                rc = CLI_USAGE;
        } else {
            cli_error("tune: unknown option '%s' (see 'tavreli tune --help')", o);
            rc = CLI_USAGE;
        }
        if (rc != CLI_OK)
            goto done;
    }
    if (!nfiles || !a.engine || !a.out) {
        cli_error("tune: expected --data FILE.h5 [FILE.h5 ...] --engine START.ini --out NEW.ini "
                  "(see 'tavreli tune --help')");
        rc = CLI_USAGE;
        goto done;
    }
    a.files = files;
    a.nfiles = nfiles;
    TvError err;
    if (tune_run(&a, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
    }
done:
    free(files);
    return rc;
}

/* argv[0] is "bench", argv[1] "tune". */
int cli_bench_tune(int argc, char **argv)
{
    unsigned long long n = 1000000, base = 5000, seed = 1;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(BENCH_TUNE_HELP, stdout);
            return CLI_OK;
        }
        if (i + 1 < argc && !strcmp(o, "--positions")) {
            if (!parse_u64(o, argv[++i], 1, 1000000000ULL, &n))
                return CLI_USAGE;
        } else if (i + 1 < argc && !strcmp(o, "--base")) {
            if (!parse_u64(o, argv[++i], 1, 10000000ULL, &base))
                return CLI_USAGE;
        } else if (i + 1 < argc && !strcmp(o, "--seed")) {
            if (!parse_u64(o, argv[++i], 0, ~0ULL, &seed))
                return CLI_USAGE;
        } else {
            cli_error("bench tune: unknown or incomplete option '%s' (see 'tavreli bench tune --help')", o);
            return CLI_USAGE;
        }
    }
    TuneBench b;
    TvError err;
    if (tune_bench((int64_t)n, (int)base, seed, &b, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    printf("positions          %lld (features of %llu random-walk positions, replicated)\n", (long long)b.positions,
           base);
    printf("memory             %.1f bytes/position\n", b.bytes_per_position);
    printf("loss + gradient    %.1f M positions/s (%d threads)\n", b.loss_grad_pps / 1e6, b.threads);
    printf("full fit           %.2f s, %d iterations, loss %.6f -> %.6f\n", b.fit_seconds, b.fit_iterations,
           b.fit_loss0, b.fit_loss1);
    return CLI_OK;
}
