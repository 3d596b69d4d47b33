#define _XOPEN_SOURCE 700 /* realpath */
/* test_reliability.c: damaged stores against every command that reads one.
 *
 * A 30-game store is played, and copies of it are damaged the ways a disk,
 * a crash or a careless hand does it:
 *   - one /games row made bad (move_count -1; an index pointing past the
 *     datasets) and a game index held by two rows (written with HDF5,
 *     behind the store's writer);
 *   - the last rows of an append never written (what a crash leaves);
 *   - one bit flipped, at many offsets spread over the file;
 *   - the file cut short, at many lengths.
 * On each copy, every command that reads a store runs: export --digest,
 * verify, report, tune and selfplay --resume.  Each must give the correct
 * games (export: the reference digest; verify: no problem; report: the
 * reference game count; tune: the reference position count; resume: a store
 * whose digest is the reference's, read back after it said so) or refuse
 * with a clear message ("error: ..." on stderr, a non-zero exit).  A
 * command that dies of a signal (or a sanitizer report) is a crash, one that
 * runs past a minute a hang, and a success with other games a wrong
 * answer.  A crash's torn tail may be left out only when the command says
 * so.  The test prints the figures: tried, correct, clear errors, crashes,
 * hangs, wrong answers; it fails on any crash, hang or wrong answer.
 *
 * usage: test_reliability PATH/TO/tavreli SOURCE_DIR [FLIPS] [CUTS]
 * (defaults 24 and 8; TAVRELI_RELIABILITY_FLIPS and _CUTS override them). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "run_files.h"

static const char *tv, *src;
static char dir[256];

typedef struct {
    int tried, correct, refused, crashes, hangs, wrong;
} Figures;

static Figures fig;

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* ---- the damage ----------------------------------------------------------------------- */

static bool set_member(const char *path, const char *ds_name, hsize_t row, const char *member, int64_t value)
{
    bool ok = false;
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t ds = f >= 0 ? H5Dopen2(f, ds_name, H5P_DEFAULT) : -1;
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
    if (ds >= 0 && t >= 0 && H5Tinsert(t, member, 0, H5T_NATIVE_INT64) >= 0) {
        hid_t fs = H5Dget_space(ds), ms;
        hsize_t one = 1;
        if (fs >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &row, NULL, &one, NULL) >= 0 &&
            (ms = H5Screate_simple(1, &one, NULL)) >= 0) {
            ok = H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, &value) >= 0;
            H5Sclose(ms);
        }
        if (fs >= 0)
            H5Sclose(fs);
    }
    if (t >= 0)
        H5Tclose(t);
    if (ds >= 0)
        H5Dclose(ds);
    if (f >= 0)
        H5Fclose(f);
    return ok;
}

static void flip_bit(const char *path, long offset, int bit)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    int c;
    if (!fseek(f, offset, SEEK_SET) && (c = fgetc(f)) != EOF && !fseek(f, offset, SEEK_SET))
        fputc(c ^ (1 << bit), f);
    fclose(f);
}

/* ---- the commands on one damaged copy --------------------------------------------------- */

static char ref_digest_path[320], ref_digest[1 << 16];
static long ref_positions;

/* True when the command's stdout or stderr says that rows were left out. */
static bool disclosed(const char *out, const char *err)
{
    char *o = slurp_file(out), *e = slurp_file(err);
    bool yes = strstr(o, "left out") || strstr(e, "left out");
    free(o);
    free(e);
    return yes;
}

/* True when every line of d is a line of ref. */
static bool lines_of(const char *d, const char *ref)
{
    for (const char *p = d; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);
        bool found = false;
        for (const char *q = ref; *q && !found;) {
            const char *qe = strchr(q, '\n');
            size_t m = qe ? (size_t)(qe - q + 1) : strlen(q);
            found = m == n && !strncmp(p, q, n);
            q += m;
        }
        if (!found)
            return false;
        p += n;
    }
    return true;
}

/* The outcome of one command: a refusal, a crash, a hang, or a success
 * that `good` judges. */
static void judge(const char *family, const char *cmd, int rc, const char *errpath, bool good, const char *detail)
{
    fig.tried++;
    char *err = slurp_file(errpath);
    bool sanitizer = strstr(err, "Sanitizer") || strstr(err, "runtime error:");
    const char *what;
    if (rc == -1) {
        fig.hangs++;
        what = "HANG";
    } else if (rc >= 128 || rc == -2 || sanitizer) {
        fig.crashes++;
        what = "CRASH";
    } else if (rc != 0) {
        if (strncmp(err, "error: ", 7) == 0 || strstr(err, "\nerror: ")) {
            fig.refused++;
            what = NULL;
        } else {
            fig.wrong++; /* a failure without a message */
            what = "FAILED WITHOUT A MESSAGE";
        }
    } else if (good) {
        fig.correct++;
        what = NULL;
    } else {
        fig.wrong++;
        what = "WRONG ANSWER";
    }
    if (what)
        printf("%s: %s: %s (exit %d) %s\n%.600s\n", family, cmd, what, rc, detail ? detail : "", err);
    free(err);
}

static void commands(const char *family, const char *store, const char *ini)
{
    char out[320], err[320], dig[320], rep[320], tuned[320], resumed[320];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(dig, sizeof dig, "%s/d.txt", dir);
    snprintf(rep, sizeof rep, "%s/rep", dir);
    snprintf(tuned, sizeof tuned, "%s/tuned.ini", dir);
    snprintf(resumed, sizeof resumed, "%s/resumed.h5", dir);
    char engine[400];
    snprintf(engine, sizeof engine, "%s/configs/engines/default.ini", src);

    /* export --digest: the reference games; fewer only when it says that
     * rows were left out, and then only reference games */
    char *a1[] = {(char *)tv, "export", (char *)store, "--digest", dig, NULL};
    remove(dig);
    int rc = run_files(a1, out, err, 60);
    char *d = slurp_file(dig);
    bool good = !strcmp(d, ref_digest) || (disclosed(out, err) && lines_of(d, ref_digest));
    judge(family, "export --digest", rc, err, good, NULL);
    free(d);

    /* verify */
    char *a2[] = {(char *)tv, "verify", (char *)store, NULL};
    rc = run_files(a2, out, err, 60);
    char *o = slurp_file(out);
    good = strstr(o, "30 games replayed, 0 with problems") ||
           (disclosed(out, err) && strstr(o, " games replayed, 0 with problems"));
    judge(family, "verify", rc, err, good, o);
    free(o);

    /* report */
    char *a3[] = {(char *)tv, "report", (char *)store, "-o", rep, NULL};
    rc = run_files(a3, out, err, 60);
    char md[400];
    snprintf(md, sizeof md, "%s/report.md", rep);
    char *r = slurp_file(md);
    good = strstr(r, "30 games from 1 store") ||
           (disclosed(out, err) && strstr(r, "are left out") && strstr(r, " games from 1 store"));
    judge(family, "report", rc, err, good, NULL);
    free(r);

    /* tune: the reference positions (fewer only when said) */
    char *a4[] = {(char *)tv, "tune", "--data", (char *)store, "--engine", engine, "--out", tuned,
                  "--groups", "material", "--max-iter", "3", NULL};
    rc = run_files(a4, out, err, 120);
    o = slurp_file(out);
    char *pos = strstr(o, "positions: ");
    long n = pos ? atol(pos + 11) : -1;
    judge(family, "tune", rc, err, n == ref_positions || (disclosed(out, err) && n > 0 && n < ref_positions), NULL);
    free(o);

    /* selfplay --resume: if it says it is done, the store it leaves holds the
     * reference games (read back here) */
    copy_file(store, resumed);
    char *a5[] = {(char *)tv, "selfplay", (char *)ini, "--out", resumed, "--resume", "--quiet", NULL};
    rc = run_files(a5, out, err, 120);
    o = slurp_file(out);
    bool complete = strstr(o, "30 of 30 planned") != NULL;
    good = false;
    if (complete) {
        char *a6[] = {(char *)tv, "export", resumed, "--digest", dig, NULL};
        char out2[340], err2[340];
        snprintf(out2, sizeof out2, "%s/out2.txt", dir);
        snprintf(err2, sizeof err2, "%s/err2.txt", dir);
        remove(dig);
        int rc2 = run_files(a6, out2, err2, 60);
        d = slurp_file(dig);
        good = rc2 == 0 && !strcmp(d, ref_digest);
        free(d);
    }
    judge(family, "selfplay --resume", rc, err, good, complete ? "claimed 30 of 30" : "did not claim completion");
    free(o);
    remove(resumed);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_reliability PATH/TO/tavreli SOURCE_DIR [FLIPS] [CUTS]\n");
        return 2;
    }
    static char tv_abs[4096], src_abs[4096];
    if (!realpath(argv[1], tv_abs) || !realpath(argv[2], src_abs)) {
        fprintf(stderr, "cannot find %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    tv = tv_abs;
    src = src_abs;
    const char *ef = getenv("TAVRELI_RELIABILITY_FLIPS"), *ec = getenv("TAVRELI_RELIABILITY_CUTS");
    int flips = ef ? atoi(ef) : argc > 3 ? atoi(argv[3]) : 24;
    int cuts = ec ? atoi(ec) : argc > 4 ? atoi(argv[4]) : 8;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(dir, sizeof dir, "/tmp/tavreli-reliability-XXXXXX");
    if (!mkdtemp(dir))
        return 2;

    /* the reference store: 30 games at depth 1 */
    char ini[320], eng[320], ref[320], out[320], err[320];
    snprintf(ini, sizeof ini, "%s/t.ini", dir);
    snprintf(eng, sizeof eng, "%s/configs/engines/default.ini", src);
    snprintf(ref, sizeof ref, "%s/ref.h5", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    FILE *f = fopen(ini, "w");
    if (!f)
        return 2;
    fprintf(f, "[tournament]\nname = damage\npairs = 15\nseed = 5\n[openings]\nplies = 4\nbalance_depth = 0\n"
               "[adjudication]\nmax_plies = 60\n[engine a]\npath = %s\ndepth = 1\n[engine b]\npath = %s\n"
               "depth = 2\n",
            eng, eng);
    fclose(f);
    char *a0[] = {(char *)tv, "selfplay", ini, "--out", ref, "--quiet", NULL};
    if (run_files(a0, out, err, 300) != 0) {
        fprintf(stderr, "the reference run failed\n");
        return 1;
    }
    snprintf(ref_digest_path, sizeof ref_digest_path, "%s/ref.dig", dir);
    char *a1[] = {(char *)tv, "export", ref, "--digest", ref_digest_path, NULL};
    if (run_files(a1, out, err, 60) != 0)
        return 1;
    char *d = slurp_file(ref_digest_path);
    snprintf(ref_digest, sizeof ref_digest, "%s", d);
    free(d);
    char tuned[340];
    snprintf(tuned, sizeof tuned, "%s/ref-tuned.ini", dir);
    char *a3[] = {(char *)tv, "tune", "--data", ref, "--engine", eng, "--out", tuned, "--groups", "material",
                  "--max-iter", "3", NULL};
    if (run_files(a3, out, err, 120) != 0)
        return 1;
    char *o = slurp_file(out), *p = strstr(o, "positions: ");
    ref_positions = p ? atol(p + 11) : -1;
    free(o);

    char bad[340];
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);

    /* one bad row, a duplicated index, a row pointing past the datasets */
    copy_file(ref, bad);
    set_member(bad, "games", 3, "move_count", -1);
    commands("bad row (move_count -1)", bad, ini);
    copy_file(ref, bad);
    set_member(bad, "games", 7, "index", 2);
    commands("duplicated game index", bad, ini);
    copy_file(ref, bad);
    set_member(bad, "games", 12, "move_offset", 1 << 30);
    commands("row pointing past the datasets", bad, ini);
    /* a crash's torn tail: the last two rows never written */
    copy_file(ref, bad);
    for (int r = 28; r < 30; r++) {
        set_member(bad, "games", r, "index", -1);
        set_member(bad, "games", r, "move_count", -1);
        set_member(bad, "games", r, "position_count", -1);
    }
    commands("torn tail of a crash", bad, ini);

    /* one bit flipped at offsets spread over the file */
    long size = file_size(ref);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < flips; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        long off = (long)((size * (i + 0.5)) / flips) + (long)(x % 97) - 48;
        off = off < 0 ? 0 : off >= size ? size - 1 : off;
        copy_file(ref, bad);
        flip_bit(bad, off, (int)(x >> 40) % 8);
        char family[64];
        snprintf(family, sizeof family, "bit flipped at byte %ld", off);
        commands(family, bad, ini);
    }
    /* the file cut short */
    for (int i = 1; i <= cuts; i++) {
        copy_file(ref, bad);
        long len = size * i / (cuts + 1);
        if (truncate(bad, len) != 0)
            continue;
        char family[64];
        snprintf(family, sizeof family, "cut at %ld of %ld bytes", len, size);
        commands(family, bad, ini);
    }

    printf("reliability: %d command runs on damaged stores: %d correct, %d clear errors, %d crashes, %d hangs, "
           "%d wrong answers\n",
           fig.tried, fig.correct, fig.refused, fig.crashes, fig.hangs, fig.wrong);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return fig.crashes || fig.hangs || fig.wrong ? 1 : 0;
}
