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
