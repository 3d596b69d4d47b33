/* cli_report.c: `tavreli report`. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ladder.h"
#include "report.h"
#include "spsa_report.h"
#include "train.h"

static const char REPORT_HELP[] =
    "usage: tavreli report FILE.h5 [FILE.h5 ...] [--tuning-log LOG] [--simulations N] [--mix-rules]\n"
    "                      [--baseline NAME] -o|--out DIR\n"
    "       tavreli report TRAINING-DIR [-o|--out DIR]\n"
    "\n"
    "Writes DIR/report.md and DIR/report.html (open it in a browser; the plots are\n"
    "PNG files next to it, drawn by gnuplot) from the games of one or more\n"
    "self-play stores: a headline table of every engine's Elo difference against\n"
    "a baseline (--baseline NAME, default the first engine) with its interval and\n"
    "LOS; what was played (each engine's kind, command and options or engine INI,\n"
    "limits and clock; openings, rules, the program version, dates, whether the\n"
    "games are reproducible); ratings with 95% intervals, likelihood of\n"
    "superiority, per-pairing results, how games ended (with the games each engine\n"
    "lost on time, by a crash, a stall or an illegal move), game lengths, the SPRT\n"
    "decision and LLR path when the tournament ran one, and with --tuning-log the\n"
    "loss curve and the weights that moved most. --simulations N takes the rating\n"
    "intervals from N simulated replays of the same schedule instead of the\n"
    "covariance. Prints DIR/report.html, then the report's first line: the\n"
    "baseline against the first engine it met (Elo, nElo, LOS, W/D/L, SPRT).\n"
    "\n"
    "The stores may hold different engine sets (v1-v2 in one, v2-v3 in another):\n"
    "engines are matched by name, and one name must be one version (the same\n"
    "program and options, limits and clock, weights and search settings). A game\n"
    "held by two stores (the same tournament and game index) counts once. Stores\n"
    "played under other rule options are refused unless --mix-rules is given.\n"
    "\n"
    "Given the folder of a 'tavreli train' run, writes the Elo ladder of its\n"
    "accepted generations against generation 0 with 95% intervals (ladder.md,\n"
    "report.html, elo.png) into DIR (default TRAINING-DIR/report): each\n"
    "confirmed generation from its confirmation games against generation 0,\n"
    "the step over the previous best beside it, each rung saying how it was\n"
    "measured.\n"
    "Given the folder of a 'tavreli spsa' run, writes the trajectory of each\n"
    "parameter (normalised to its range), the final values with the spread of\n"
    "their last 10% of iterations and the verification SPRT into DIR (default\n"
    "SPSA-DIR/report), with the usual report of the verification games in\n"
    "DIR/verify.\n\n"
    "Examples:\n"
    "  tavreli report results/quick.h5 -o results/quick-report\n"
    "  tavreli report results/ship-train\n";

typedef struct {
    const char *out, *tuning_log, *baseline;
    long simulations;
    bool mix_rules;
} ReportArgs;

static const CliFlag REPORT_FLAGS[] = {
    {"out", 'o', CLI_STRING, offsetof(ReportArgs, out), 0, 0},
    {"tuning-log", 0, CLI_STRING, offsetof(ReportArgs, tuning_log), 0, 0},
    {"simulations", 0, CLI_LONG, offsetof(ReportArgs, simulations), 1, 100000},
    {"mix-rules", 0, CLI_BOOL, offsetof(ReportArgs, mix_rules), 0, 0},
    {"baseline", 0, CLI_STRING, offsetof(ReportArgs, baseline), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_report(const CliCommand *cmd, int argc, char **argv)
{
    ReportArgs a = {0};
    const char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0;
    if (!files)
        return CLI_FAIL;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, (char **)files, &nfiles);
    if (rc >= 0) {
        free(files);
        return rc;
    }
    rc = CLI_OK;
    const char *outdir = a.out, *log = a.tuning_log;
    const int simulations = (int)a.simulations;
    if (nfiles == 1 && train_is_dir(files[0])) {
        char def[1100];
        if (!outdir) {
            snprintf(def, sizeof def, "%s/report", files[0]);
            outdir = def;
        }
        TvError err;
        TrainRung *rungs;
        int nr;
        TrainLadderInfo info;
        if (train_ladder_info(files[0], &rungs, &nr, &info, &err) != TV_OK) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
            goto done;
        }
        if (ladder_report_write(files[0], rungs, nr, &info, outdir, &err) != TV_OK) {
            cli_error("%s", err.msg);
            free(rungs);
            rc = CLI_FAIL;
            goto done;
        }
        cli_print_ladder(rungs, nr);
        free(rungs);
        printf("%s/report.html\n", outdir);
        goto done;
    }
    if (nfiles == 1 && spsa_is_dir(files[0])) { /* an SPSA run's folder (report/spsa_report.h) */
        char def[1100];
        snprintf(def, sizeof def, "%s/report", files[0]);
        TvError err;
        if (spsa_report(files[0], outdir ? outdir : def, &err) != TV_OK) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
        } else
            printf("%s/report.html\n", outdir ? outdir : def);
        goto done;
    }
    if (!nfiles || !outdir) {
        cli_error("report: expected FILE.h5 ... -o DIR (see 'tavreli report --help')");
        rc = CLI_USAGE;
        goto done;
    }
    TvError err;
    const ReportOptions opt = {.simulations = simulations, .mix_rules = a.mix_rules, .baseline = a.baseline};
    ReportSummary sum;
    if (report_write_opts(files, nfiles, log, outdir, &opt, &sum, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
        goto done;
    }
    if (sum.torn_rows > 0)
        cli_warning("%lld /games rows of appends a crash cut short are left out (see the report)",
                    (long long)sum.torn_rows);
    if (sum.duplicates > 0)
        cli_warning("%lld games held by more than one store are counted once", (long long)sum.duplicates);
    size_t len = strlen(outdir);
    printf("%.*s/report.html\n", (int)(len > 1 && outdir[len - 1] == '/' ? len - 1 : len), outdir);
    if (sum.headline[0])
        printf("%s\n", sum.headline);
done:
    free(files);
    return rc;
}

const CliCommand CLI_REPORT = {"report", REPORT_HELP, REPORT_FLAGS, run_report};

/* ---- sprt ------------------------------------------------------------------------ */

#include "stats.h"
#include "status.h"

/* Counts beyond this (10^15 pairs) are typing slips, not tournaments. */
#define SPRT_MAX_COUNT 1000000000000000LL

static const char SPRT_HELP[] =
    "usage: tavreli sprt --penta N0,N1,N2,N3,N4 [--elo0 E0] [--elo1 E1] [--alpha A] [--beta B]\n"
    "                    [--model normalized|logistic]\n"
    "\n"
    "fishtest's generalised SPRT on pentanomial counts (opening pairs scoring 0,\n"
    "0.5, 1, 1.5 and 2 points), bounds in normalized Elo (default elo0 0, elo1 5,\n"
    "alpha 0.05, beta 0.05), or with --model logistic in logistic Elo (as\n"
    "cutechess-cli's elo0/elo1). Prints the LLR, its bounds, the decision, and the\n"
    "bounds in the other model at these counts' per-pair deviation.\n"
    "\n"
    "Example:\n"
    "  tavreli sprt --penta 10,50,100,60,12 --elo0 0 --elo1 5 --model logistic\n";

typedef struct {
    const char *penta;
    double elo0, elo1, alpha, beta;
    const char *model;
} SprtArgs;

static const CliFlag SPRT_FLAGS[] = {
    {"penta", 0, CLI_STRING, offsetof(SprtArgs, penta), 0, 0},
    {"elo0", 0, CLI_DOUBLE, offsetof(SprtArgs, elo0), -1e6, 1e6},
    {"elo1", 0, CLI_DOUBLE, offsetof(SprtArgs, elo1), -1e6, 1e6},
    {"alpha", 0, CLI_DOUBLE_OPEN, offsetof(SprtArgs, alpha), 0, 0.5},
    {"beta", 0, CLI_DOUBLE_OPEN, offsetof(SprtArgs, beta), 0, 0.5},
    {"model", 0, CLI_STRING, offsetof(SprtArgs, model), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_sprt(const CliCommand *cmd, int argc, char **argv)
{
    SprtSettings d;
    sprt_settings_default(&d);
    SprtArgs a = {.elo0 = d.elo0, .elo1 = d.elo1, .alpha = d.alpha, .beta = d.beta};
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    int64_t penta[5];
    const bool have_penta = a.penta != NULL;
    if (have_penta) {
        char shown[160];
        tv_escape(a.penta, shown, sizeof shown);
        const char *p = a.penta;
        for (int k = 0; k < 5; k++) {
            char *end;
            errno = 0;
            long long v = *p == '-' || *p == '+' ? -1 : strtoll(p, &end, 10);
            if (v < 0 || end == p || errno || v > SPRT_MAX_COUNT || (k < 4 ? *end != ',' : *end != 0)) {
                cli_error("sprt: --penta needs five whole numbers from 0 to %lld separated by commas, not '%s'",
                          (long long)SPRT_MAX_COUNT, shown);
                return CLI_USAGE;
            }
            penta[k] = v;
            p = end + (k < 4);
        }
    }
    const double v[4] = {a.elo0, a.elo1, a.alpha, a.beta};
    SprtModel model = SPRT_NORMALIZED;
    if (a.model && !strcmp(a.model, "logistic"))
        model = SPRT_LOGISTIC;
    else if (a.model && strcmp(a.model, "normalized")) {
        char shown[80];
        tv_escape(a.model, shown, sizeof shown);
        cli_error("sprt: --model must be normalized or logistic, not '%s'", shown);
        return CLI_USAGE;
    }
    if (!have_penta) {
        cli_error("sprt: --penta N0,N1,N2,N3,N4 is required");
        return CLI_USAGE;
    }
    if (!(v[0] < v[1])) {
        cli_error("sprt: needs elo0 < elo1");
        return CLI_USAGE;
    }
    double lo, hi;
    sprt_bounds(v[2], v[3], &lo, &hi);
    const SprtSettings set = {.elo0 = v[0], .elo1 = v[1], .alpha = v[2], .beta = v[3], .model = model};
    double llr = sprt_llr(penta, &set);
    if (!isfinite(llr)) {
        cli_error("sprt: these counts and bounds give no finite LLR (elo0 %g, elo1 %g)", v[0], v[1]);
        return CLI_FAIL;
    }
    printf("LLR %.8f bounds [%.6f, %.6f] %s\n", llr, lo, hi, sprt_decision_name(sprt_decide(llr, lo, hi)));
    const double o0 = sprt_other_model(v[0], model, penta), o1 = sprt_other_model(v[1], model, penta);
    if (isfinite(o0) && isfinite(o1))
        printf("elo0 %g, elo1 %g %s Elo are [%.2f, %.2f] %s Elo at these counts' per-pair deviation\n", v[0], v[1],
               sprt_model_name(model), o0, o1, sprt_model_name(model == SPRT_LOGISTIC ? SPRT_NORMALIZED : SPRT_LOGISTIC));
    return CLI_OK;
}

const CliCommand CLI_SPRT = {"sprt", SPRT_HELP, SPRT_FLAGS, run_sprt};
