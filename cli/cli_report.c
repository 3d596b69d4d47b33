/* cli_report.c: `tavreli report`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char REPORT_HELP[] =
    "usage: tavreli report FILE.h5 [FILE.h5 ...] [--tuning-log LOG] [--simulations N] -o DIR\n"
    "\n"
    "Writes DIR/report.md and DIR/report.html (open it in a browser; the plots are\n"
    "PNG files next to it, drawn by gnuplot) from the games of one or more\n"
    "self-play stores: ratings with 95% intervals, likelihood of superiority,\n"
    "per-pairing results, how games ended, game lengths, the SPRT decision and\n"
    "LLR path when the tournament ran one, and with --tuning-log the loss curve\n"
    "and the weights that moved most. --simulations N takes the rating intervals\n"
    "from N simulated replays of the same schedule instead of the covariance.\n";

int cli_report(int argc, char **argv)
{
    const char *outdir = NULL, *log = NULL;
    const char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0, rc = CLI_OK, simulations = 0;
    if (!files)
        return CLI_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(REPORT_HELP, stdout);
            goto done;
        }
        if (!strcmp(a, "--simulations") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 100000) {
                cli_error("report: --simulations must be from 1 to 100000, not '%s'", argv[i]);
                rc = CLI_USAGE;
                goto done;
            }
            simulations = (int)v;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out") || !strcmp(a, "--tuning-log")) && i + 1 < argc) {
            if (a[1] == 'o' || a[2] == 'o')
                outdir = argv[++i];
            else
                log = argv[++i];
        } else if (a[0] == '-') {
            cli_error("report: unknown or incomplete flag '%s' (see 'tavreli report --help')", a);
            rc = CLI_USAGE;
            goto done;
        } else
            files[nfiles++] = a;
    }
    if (!nfiles || !outdir) {
        cli_error("report: expected FILE.h5 ... -o DIR (see 'tavreli report --help')");
        rc = CLI_USAGE;
        goto done;
    }
    TvError err;
    if (report_write_sim(files, nfiles, log, outdir, simulations, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
        goto done;
    }
    size_t len = strlen(outdir);
    printf("%.*s/report.html\n", (int)(len > 1 && outdir[len - 1] == '/' ? len - 1 : len), outdir);
done:
    free(files);
    return rc;
}

/* ---- sprt ------------------------------------------------------------------------ */

#include "ratings.h"

static const char SPRT_HELP[] =
    "usage: tavreli sprt --penta N0,N1,N2,N3,N4 [--elo0 E0] [--elo1 E1] [--alpha A] [--beta B]\n"
    "\n"
    "fishtest's generalised SPRT on pentanomial counts (opening pairs scoring 0,\n"
    "0.5, 1, 1.5 and 2 points), bounds in normalized Elo (default elo0 0, elo1 5,\n"
    "alpha 0.05, beta 0.05). Prints the LLR, its bounds and the decision.\n";

int cli_sprt(int argc, char **argv)
{
    int64_t penta[5];
    bool have_penta = false;
    double v[4] = {0, 5, 0.05, 0.05};
    static const char *const names[4] = {"--elo0", "--elo1", "--alpha", "--beta"};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(SPRT_HELP, stdout);
            return CLI_OK;
        }
        if (i + 1 >= argc) {
            cli_error("sprt: '%s' needs a value or is unknown (see 'tavreli sprt --help')", argv[i]);
            return CLI_USAGE;
        }
        const char *val = argv[++i];
        if (!strcmp(argv[i - 1], "--penta")) {
            long long n[5];
            char tail;
            if (sscanf(val, "%lld,%lld,%lld,%lld,%lld%c", &n[0], &n[1], &n[2], &n[3], &n[4], &tail) != 5) {
                cli_error("sprt: --penta needs five counts separated by commas, not '%s'", val);
                return CLI_USAGE;
            }
            for (int k = 0; k < 5; k++) {
                if (n[k] < 0) {
                    cli_error("sprt: --penta counts cannot be negative ('%s')", val);
                    return CLI_USAGE;
                }
                penta[k] = n[k];
            }
            have_penta = true;
            continue;
        }
        int k = 0;
        while (k < 4 && strcmp(argv[i - 1], names[k]))
            k++;
        char *end;
        double x = strtod(val, &end);
        if (k == 4 || *end || !*val || (k >= 2 && !(x > 0 && x < 0.5))) {
            cli_error("sprt: bad argument '%s %s' (see 'tavreli sprt --help')", argv[i - 1], val);
            return CLI_USAGE;
        }
        v[k] = x;
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
    double llr = sprt_llr_pentanomial(penta, v[0], v[1]);
    printf("LLR %.8f bounds [%.6f, %.6f] %s\n", llr, lo, hi, sprt_decision_name(sprt_decide(llr, lo, hi)));
    return CLI_OK;
}
