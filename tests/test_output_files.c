#define _POSIX_C_SOURCE 200809L
/* test_output_files.c: the files the project writes (issue 22).
 *
 *  - core/atomic_file: a commit replaces the file whole; an abort leaves the
 *    old one and no temporary file; publishing without replace refuses an
 *    existing path (the store creation race) and keeps the old file;
 *  - engine_write wraps long comments (the tuner's NO IMPROVEMENT line
 *    was 240 characters): every line within the INI reader's limit, and
 *    engine_read reads the file back;
 *  - a TGN export of a store whose engine names hold a line break, or fill
 *    their field without a terminating NUL, reads back, the names escaped;
 *  - report.md escapes HTML as report.html does;
 *  - the JSON of `tavreli serve` (core/strbuf.h): quotes, backslashes,
 *    control bytes and '<' escaped, bytes that are not UTF-8 replaced,
 *    numbers that are not finite written as null. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomic_file.h"
#include "strbuf.h"
#include "engine.h"
#include "export.h"
#include "record.h"
#include "report_doc.h"
#include "runner.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tavreli-outputs-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd);
}

static char *slurp(const char *path)
{
    char *text;
    TvError err;
    assert_int_equal(tv_read_file(path, "file", &text, NULL, &err), TV_OK);
    return text;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Files in tmpdir whose name holds ".tmp". */
static int temp_files(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c '\\.tmp' >%s.count", tmpdir, tmpdir);
    if (system(cmd) < 0)
        return -1;
    snprintf(cmd, sizeof cmd, "%s.count", tmpdir);
    char *t = slurp(cmd);
    int n = atoi(t);
    free(t);
    remove(cmd);
    return n;
}

static void test_atomic_commit_and_abort(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/a.txt", tmpdir);
    spit(path, "old\n");
    TvAtomicFile a;
    TvError err;
    assert_int_equal(tv_atomic_open(&a, path, "test file", &err), TV_OK);
    fputs("half of a new", a.f);
    tv_atomic_abort(&a);
    char *t = slurp(path);
    assert_string_equal(t, "old\n");
    free(t);
    assert_int_equal(temp_files(), 0);
    assert_int_equal(tv_atomic_open(&a, path, "test file", &err), TV_OK);
    fputs("new\n", a.f);
    assert_int_equal(tv_atomic_commit(&a, &err), TV_OK);
    t = slurp(path);
    assert_string_equal(t, "new\n");
    free(t);
    assert_int_equal(temp_files(), 0);
    /* a symbolic link: the file it names gets the new text, the link stays */
    char link_path[128];
    snprintf(link_path, sizeof link_path, "%s/link.txt", tmpdir);
    assert_int_equal(symlink("a.txt", link_path), 0);
    assert_int_equal(tv_atomic_write(link_path, "test file", "via link\n", 9, &err), TV_OK);
    struct stat lsb;
    assert_int_equal(lstat(link_path, &lsb), 0);
    assert_true(S_ISLNK(lsb.st_mode));
    t = slurp(path);
    assert_string_equal(t, "via link\n");
    free(t);
    assert_int_equal(temp_files(), 0);
    /* a directory at the path: the error names the path, no temporary file */
    snprintf(path, sizeof path, "%s/adir", tmpdir);
    assert_int_equal(mkdir(path, 0777), 0);
    assert_int_equal(tv_atomic_open(&a, path, "test file", &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "adir: cannot write the test file"));
    assert_null(strstr(err.msg, ".tmp"));
    assert_int_equal(temp_files(), 0);
}

static void test_publish_no_replace(void **state)
{
    (void)state;
    char path[128], tmp[TV_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/p.h5", tmpdir);
    TvError err;
    assert_int_equal(tv_temp_beside(path, "store", tmp, sizeof tmp, &err), TV_OK);
    spit(tmp, "first\n");
    int why;
    assert_int_equal(tv_publish(tmp, path, false, &why, &err), TV_OK);
    assert_int_not_equal(access(tmp, F_OK), 0);
    /* a second creator of the same path loses and is told so */
    assert_int_equal(tv_temp_beside(path, "store", tmp, sizeof tmp, &err), TV_OK);
    spit(tmp, "second\n");
    assert_int_equal(tv_publish(tmp, path, false, &why, &err), TV_ERR_IO);
    assert_int_equal(why, EEXIST);
    assert_non_null(strstr(err.msg, "already exists"));
    char *t = slurp(path);
    assert_string_equal(t, "first\n");
    free(t);
    /* with replace it takes the place */
    assert_int_equal(tv_publish(tmp, path, true, &why, &err), TV_OK);
    t = slurp(path);
    assert_string_equal(t, "second\n");
    free(t);
    assert_int_equal(temp_files(), 0);
}

static void test_engine_comment_wrapped(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/e.ini", tmpdir);
    /* a 240-character sentence (the tuner's NO IMPROVEMENT comment), a
     * 230-character word (a path) and an empty line */
    char comment[1024];
    int n = snprintf(comment, sizeof comment, "NO IMPROVEMENT:");
    for (int i = 0; n < 240; i++)
        n += snprintf(comment + n, sizeof comment - (size_t)n, " word%d", i);
    n += snprintf(comment + n, sizeof comment - (size_t)n, "\n\n/");
    for (int i = 0; i < 230; i++)
        comment[n++] = 'p';
    comment[n] = 0;
    EngineVersion e, back;
    engine_default(&e);
    TvError err;
    assert_int_equal(engine_write(path, &e, comment, &err), TV_OK);
    char *text = slurp(path);
    int line = 1;
    for (char *s = text; *s; line++) {
        size_t len = strcspn(s, "\n");
        if (len > TV_INI_LINE_MAX)
            fail_msg("line %d has %zu characters", line, len);
        s += len + (s[len] == '\n');
    }
    /* the words are all there, in order */
    assert_non_null(strstr(text, "# NO IMPROVEMENT: word0 word1"));
    free(text);
    if (engine_read(path, &back, &err) != TV_OK)
        fail_msg("engine_read of engine_write's file: %s", err.msg);
    assert_memory_equal(&back.params, &e.params, sizeof e.params);
}

/* Plays 4 games at depth 1 into tmpdir/t.h5 and reads them. */
static void play_small(StoreContents *c)
{
    Tournament t;
    tournament_defaults(&t, "outputs");
    t.text = "[tournament]\nname = outputs\n";
    t.nengines = 2;
    t.pairs = 2;
    t.seed = 3;
    t.threads = 1;
    t.adjudication.max_plies = 30;
    for (int i = 0; i < 2; i++) {
        engine_default(&t.engines[i].engine);
        t.engines[i].engine.limits = (SearchLimits){1, 0, 0};
        snprintf(t.engines[i].engine.name, sizeof t.engines[i].engine.name, "e%d", i);
        snprintf(t.engines[i].path, sizeof t.engines[i].path, "(built in)");
    }
    char path[128];
    snprintf(path, sizeof path, "%s/t.h5", tmpdir);
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = path;
    ro.force = true;
    RunStats rs;
    TvError err;
    assert_int_equal(runner_run(&ro, &rs, &err), TV_OK);
    run_stats_free(&rs);
    assert_int_equal(h5store_read(path, true, true, c, &err), TV_OK);
}

static const char *tag(const GameRecord *g, const char *key)
{
    for (int k = 0; k < g->ntags; k++)
        if (!strcmp(g->tags[k].key, key))
            return g->tags[k].value;
    return NULL;
}

static void test_tgn_names_escaped(void **state)
{
    (void)state;
    StoreContents c;
    play_small(&c);
    assert_true(c.nengines == 2 && c.ngames == 4);
    snprintf(c.engines[0].name, sizeof c.engines[0].name, "evil\n[Result \"0-1\"]");
    memset(c.engines[1].name, 'x', sizeof c.engines[1].name); /* no terminating NUL */
    char path[128];
    snprintf(path, sizeof path, "%s/names.tgn", tmpdir);
    TvError err;
    assert_int_equal(export_tgn(&c, "t.h5", path, &err), TV_OK);
    RecordList list;
    if (records_read_file(path, &list, &err) != TV_OK)
        fail_msg("the export does not read back: %s", err.msg);
    assert_int_equal(list.count, 4);
    char xs[sizeof c.engines[1].name + 1];
    memset(xs, 'x', sizeof c.engines[1].name);
    xs[sizeof c.engines[1].name] = 0;
    for (int i = 0; i < list.count; i++) {
        const GameRecord *g = &list.games[i];
        const char *w = tag(g, "White"), *b = tag(g, "Black");
        assert_non_null(w);
        assert_non_null(b);
        const char *e0 = !strcmp(w, xs) ? b : w, *e1 = e0 == w ? b : w;
        assert_string_equal(e0, "evil\\x0A[Result \"0-1\"]");
        assert_string_equal(e1, xs);
        ReplayResult res;
        assert_int_equal(replay_record(g, TV_PARSE_STRICT, &res, &err), TV_OK);
        replay_result_free(&res);
    }
    records_free(&list);
    h5store_contents_free(&c);
}

/* An output never replaces an input or a store (issue 34: 'tune --out
 * s.h5' with s.h5 its data removed the store, exit 0): an HDF5 file at the
 * path is refused by every writer (tv_atomic_open), a path that names one of
 * the inputs (the same file, through a link too) by tv_output_check; a
 * replaced file keeps its mode (0600 became 0644); a dangling link is written
 * through, not replaced by a file. */
static void test_output_never_an_input(void **state)
{
    (void)state;
    char store[128], ini[128], link_path[128], other[128];
    snprintf(store, sizeof store, "%s/s.h5", tmpdir);
    snprintf(ini, sizeof ini, "%s/start.ini", tmpdir);
    snprintf(link_path, sizeof link_path, "%s/same.ini", tmpdir);
    snprintf(other, sizeof other, "%s/new.ini", tmpdir);
    spit(store, "\211HDF\r\n\032\n and the rest of a store");
    spit(ini, "[weights]\n");
    assert_int_equal(symlink("start.ini", link_path), 0);
    TvAtomicFile a;
    TvError err;
    assert_int_equal(tv_atomic_open(&a, store, "engine file", &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "s.h5 is an HDF5 file (a store?): the engine file would replace it"));
    assert_int_equal(temp_files(), 0);
    char *t = slurp(store);
    assert_int_equal(memcmp(t, "\211HDF", 4), 0);
    free(t);
    const char *inputs[2] = {store, ini};
    assert_int_equal(tv_output_check(link_path, inputs, 2, "engine file", &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "same.ini is the same file as the input"));
    assert_non_null(strstr(err.msg, "start.ini"));
    assert_int_equal(tv_output_check(ini, inputs, 2, "engine file", &err), TV_ERR_ARG);
    assert_int_equal(tv_output_check(other, inputs, 2, "engine file", &err), TV_OK); /* not there yet */
    /* the mode of the file replaced stays */
    assert_int_equal(chmod(ini, 0600), 0);
    assert_int_equal(tv_atomic_write(ini, "engine file", "new\n", 4, &err), TV_OK);
    struct stat sb;
    assert_int_equal(stat(ini, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    /* a dangling link: the file it names is made, the link stays */
    char dangling[128], named[128];
    snprintf(dangling, sizeof dangling, "%s/dangling.ini", tmpdir);
    snprintf(named, sizeof named, "%s/made.ini", tmpdir);
    assert_int_equal(symlink("made.ini", dangling), 0);
    assert_int_equal(tv_atomic_write(dangling, "engine file", "made\n", 5, &err), TV_OK);
    assert_int_equal(lstat(dangling, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    t = slurp(named);
    assert_string_equal(t, "made\n");
    free(t);
    assert_int_equal(temp_files(), 0);
    remove(dangling);
    remove(named);
    remove(link_path);
    remove(ini);
    remove(store);
}

/* One run per output: a process holding PATH.lock keeps another from
 * taking it (the loser's message names the holder's pid); once it lets go
 * the lock file is gone and another takes it.  A temporary file left by a
 * dead writer is removed by the next holder. */
/* An output in a folder that is not there: the message names the folder,
 * not the lock file (issue 36: 'cannot make the lock X.lock of X: No such
 * file or directory'); a path through a file says that. */
static void test_output_missing_folder(void **state)
{
    (void)state;
    char out[200], through[200], file[160];
    snprintf(out, sizeof out, "%s/no-such-folder/x.h5", tmpdir);
    TvLock *l = NULL;
    TvError err;
    assert_int_equal(tv_lock_output(out, "wait", NULL, NULL, &l, &err), TV_ERR_IO);
    assert_null(l);
    char want[600];
    snprintf(want, sizeof want, "%s: its folder %s/no-such-folder does not exist (make it, or give another path)", out,
             tmpdir);
    assert_string_equal(err.msg, want);
    snprintf(file, sizeof file, "%s/plain", tmpdir);
    spit(file, "x");
    snprintf(through, sizeof through, "%s/x.h5", file);
    assert_int_equal(tv_lock_output(through, "wait", NULL, NULL, &l, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "is not a folder (give another path)"));
    remove(file);
}

static void test_output_lock(void **state)
{
    (void)state;
    char out[128], stale[160];
    snprintf(out, sizeof out, "%s/new.ini", tmpdir);
    /* pid 2^22 + 1 is above Linux's pid_max: no such process */
    snprintf(stale, sizeof stale, "%s.tmp-4194305-0", out);
    spit(stale, "half of a file");
    int ready[2], done[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        TvLock *l;
        TvError e;
        char c = tv_lock_output(out, "wait", NULL, NULL, &l, &e) == TV_OK ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
            _exit(2);
        tv_unlock_output(l);
        _exit(0);
    }
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(c, 'y');
    assert_int_equal(access(stale, F_OK), -1); /* removed by the holder */
    TvLock *l = NULL;
    TvError err;
    assert_int_equal(tv_lock_output(out, "wait until it ends", NULL, NULL, &l, &err), TV_ERR_IO);
    char want[96];
    snprintf(want, sizeof want, "new.ini is in use by another run (pid %ld on ", (long)child);
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, "new.ini.lock): wait until it ends"));
    assert_int_equal(write(done[1], "x", 1), 1);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char lockfile[160];
    snprintf(lockfile, sizeof lockfile, "%s.lock", out);
    assert_int_equal(access(lockfile, F_OK), -1); /* let go: removed */
    assert_int_equal(tv_lock_output(out, "wait", NULL, NULL, &l, &err), TV_OK);
    tv_unlock_output(l);
    for (int k = 0; k < 2; k++) {
        close(ready[k]);
        close(done[k]);
    }
}

/* Outputs that belong together (issue 34): a kill between NEW.ini and its
 * tuning log left a new INI beside the old log.  A group whose second
 * rename fails (a folder in the way) keeps its journal; the next holder of
 * the lock completes it. */
static void test_commit_group(void **state)
{
    (void)state;
    char ini[128], log[128], ti[160], tl[160], journal[160];
    snprintf(ini, sizeof ini, "%s/g.ini", tmpdir);
    snprintf(log, sizeof log, "%s/g.log", tmpdir);
    snprintf(ti, sizeof ti, "%s.tmp-1", ini);
    snprintf(tl, sizeof tl, "%s.tmp-1", log);
    snprintf(journal, sizeof journal, "%s.commit", ini);
    spit(ini, "old ini");
    spit(ti, "new ini");
    spit(tl, "new log");
    assert_int_equal(mkdir(log, 0777), 0); /* the second rename fails */
    const char *tmps[2] = {ti, tl}, *targets[2] = {ini, log};
    TvError err;
    assert_int_equal(tv_commit_group(ini, tmps, targets, 2, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "g.log"));
    assert_int_equal(access(journal, F_OK), 0); /* left for the next run */
    assert_int_equal(rmdir(log), 0);
    TvLock *l = NULL;
    assert_int_equal(tv_lock_output(ini, "wait", NULL, NULL, &l, &err), TV_OK);
    char *a = slurp(ini), *b = slurp(log);
    assert_string_equal(a, "new ini");
    assert_string_equal(b, "new log"); /* completed: the group is whole */
    free(a);
    free(b);
    assert_int_equal(access(journal, F_OK), -1);
    assert_int_equal(access(tl, F_OK), -1);
    tv_unlock_output(l);
    /* a whole group: no journal left */
    spit(ti, "newer ini");
    spit(tl, "newer log");
    assert_int_equal(tv_commit_group(ini, tmps, targets, 2, &err), TV_OK);
    a = slurp(ini);
    b = slurp(log);
    assert_string_equal(a, "newer ini");
    assert_string_equal(b, "newer log");
    free(a);
    free(b);
    assert_int_equal(access(journal, F_OK), -1);
}

/* A report folder replaced as a group: the stage's files move in, the
 * stage a killed run left is removed, an abort leaves the old files and a
 * message names the folder. */
static void test_stage(void **state)
{
    (void)state;
    char dir[128], p[TV_PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/rep", tmpdir);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(p, sizeof p, "%s/report.html", dir);
    spit(p, "old html");
    snprintf(p, sizeof p, "%s/mine.txt", dir);
    spit(p, "the user's"); /* not the report's: stays */
    snprintf(p, sizeof p, "%s/.stage-4194305-0", dir); /* no such pid */
    assert_int_equal(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/.stage-4194305-0/elo.png", dir);
    spit(p, "");
    TvStage s;
    TvError err;
    assert_int_equal(tv_stage_open(&s, dir, "output directory", &err), TV_OK);
    snprintf(p, sizeof p, "%s/.stage-4194305-0", dir);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof p, "%s/report.html", s.stage);
    spit(p, "new html");
    snprintf(p, sizeof p, "%s/elo.png", s.stage);
    spit(p, "png");
    /* an abort: the old files, the message names the folder */
    tv_fail(&err, TV_ERR_IO, "gnuplot failed on %s/plots.gp (see %s/gnuplot.log)", s.stage, s.stage);
    tv_stage_abort(&s, NULL, &err);
    char want[2 * TV_PATH_MAX + 128];
    snprintf(want, sizeof want, "gnuplot failed on %s/plots.gp (see %s/gnuplot.log)", dir, dir);
    assert_string_equal(err.msg, want);
    snprintf(p, sizeof p, "%s/report.html", dir);
    char *t = slurp(p);
    assert_string_equal(t, "old html");
    free(t);
    snprintf(p, sizeof p, "%s/elo.png", dir);
    assert_int_equal(access(p, F_OK), -1);
    /* a commit */
    assert_int_equal(tv_stage_open(&s, dir, "output directory", &err), TV_OK);
    snprintf(p, sizeof p, "%s/report.html", s.stage);
    spit(p, "new html");
    snprintf(p, sizeof p, "%s/elo.png", s.stage);
    spit(p, "png");
    const char *last[] = {"report.html", NULL};
    assert_int_equal(tv_stage_commit(&s, last, &err), TV_OK);
    snprintf(p, sizeof p, "%s/report.html", dir);
    t = slurp(p);
    assert_string_equal(t, "new html");
    free(t);
    snprintf(p, sizeof p, "%s/mine.txt", dir);
    t = slurp(p);
    assert_string_equal(t, "the user's");
    free(t);
    snprintf(p, sizeof p, "%s/elo.png", dir);
    assert_int_equal(access(p, F_OK), 0);
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 3); /* report.html, elo.png, mine.txt: no stage, no journal */
    snprintf(p, sizeof p, "%s.commit", dir);
    assert_int_equal(access(p, F_OK), -1);
    /* a group whose renames began (report.html cannot replace a folder in
     * the way): the stage stays with the journal, and the next holder of the
     * folder's lock completes it (before, the failure removed the stage and
     * the journal named files gone) */
    assert_int_equal(tv_stage_open(&s, dir, "output directory", &err), TV_OK);
    snprintf(p, sizeof p, "%s/elo.png", s.stage);
    spit(p, "png 2");
    snprintf(p, sizeof p, "%s/report.html", s.stage);
    spit(p, "html 2");
    snprintf(p, sizeof p, "%s/report.html", dir);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkdir(p, 0777), 0);
    assert_int_equal(tv_stage_commit(&s, last, &err), TV_ERR_IO);
    assert_int_equal(rmdir(p), 0);
    TvLock *l = NULL;
    assert_int_equal(tv_lock_output(dir, "wait", NULL, NULL, &l, &err), TV_OK);
    t = slurp(p);
    assert_string_equal(t, "html 2");
    free(t);
    snprintf(p, sizeof p, "%s/elo.png", dir);
    t = slurp(p);
    assert_string_equal(t, "png 2");
    free(t);
    tv_unlock_output(l);
}

static void test_report_md_escapes_html(void **state)
{
    (void)state;
    Doc d = {0};
    doc_h1(&d, "Report on <b>");
    doc_para(&d, "engine <script>alert(1)</script> & co");
    doc_table(&d, "lr");
    doc_cell(&d, "engine");
    doc_cell(&d, "elo");
    doc_cell(&d, "<img src=x onerror=y>|x");
    doc_cell(&d, "1");
    doc_cell(&d, "> +34");
    doc_cell(&d, "< -34");
    doc_para(&d, "&lt; is an entity, &#62; too");
    doc_para(&d, "H0 nElo <= 0 against H1 nElo >= 5, 3 < 4 -> done & 1<2");
    doc_para(&d, "> +183 Elo");
    doc_para(&d, "run `tavreli train --confirm <DIR>` or see [verify/report.html](verify/report.html) [not](a link) `");
    doc_para(&d, "store bad\377name.h5, cut \xC3, overlong \xC0\xAF, \xE2\x82\xAC kept"); /* not UTF-8 */
    assert_false(d.oom);
    StrBuf md = {0};
    doc_render_md(&d, &md);
    const char *s = strbuf_str(&md);
    /* what could begin a tag or an entity is written as an entity ... */
    assert_non_null(strstr(s, "# Report on &lt;b>"));
    assert_non_null(strstr(s, "engine &lt;script>alert(1)&lt;/script> & co"));
    assert_non_null(strstr(s, "| &lt;img src=x onerror=y>\\|x | 1 |"));
    assert_non_null(strstr(s, "&amp;lt; is an entity, &amp;#62; too"));
    /* ... and nothing else: a bound, a comparison, an arrow read as typed
     * (report.md showed "&gt; +34" and "&lt; -34") */
    assert_non_null(strstr(s, "| > +34 | < -34 |"));
    assert_non_null(strstr(s, "H0 nElo <= 0 against H1 nElo >= 5, 3 < 4 -> done & 1<2"));
    /* a line that would begin a block quote keeps its '>' as text */
    assert_non_null(strstr(s, "\n\\> +183 Elo"));
    /* bytes that are not UTF-8 are written as \xNN: report.md stays UTF-8
     * whatever a file name holds (issue 34) */
    assert_non_null(strstr(s, "store bad\\xFFname.h5, cut \\xC3, overlong \\xC0\\xAF, \xE2\x82\xAC kept"));
    for (const char *c = s; (c = strchr(c, '<')); c++) /* no '<' that a Markdown viewer takes for a tag */
        assert_false(isalpha((unsigned char)c[1]) || c[1] == '/' || c[1] == '!' || c[1] == '?');
    /* the two inline forms stay Markdown in report.md, and are HTML in
     * report.html (the train page showed raw backticks, the SPSA page named
     * verify/report.html as text) */
    assert_non_null(strstr(s, "run `tavreli train --confirm &lt;DIR>` or see [verify/report.html](verify/report.html)"));
    StrBuf html = {0};
    TvError err;
    assert_int_equal(doc_render_html(&d, tmpdir, &html, &err), TV_OK);
    const char *h = strbuf_str(&html);
    assert_non_null(strstr(h, "<p>run <code>tavreli train --confirm &lt;DIR&gt;</code> or see "
                              "<a href=\"verify/report.html\">verify/report.html</a> [not](a link) `</p>"));
    strbuf_free(&html);
    strbuf_free(&md);
    doc_free(&d);
}

static void test_json_strings(void **state)
{
    (void)state;
    StrBuf b = {0};
    strbuf_add_json_string(&b, "a\"b\\c\n\t\x01</script>");
    assert_string_equal(strbuf_str(&b), "\"a\\\"b\\\\c\\n\\t\\u0001\\u003c/script>\"");
    strbuf_free(&b);
    /* UTF-8 kept; a stray continuation byte, an overlong form and a cut sequence replaced */
    strbuf_add_json_string(&b, "\xc2\xb1 \x80 \xc0\xaf \xe2\x82");
    assert_string_equal(strbuf_str(&b), "\"\xc2\xb1 \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\"");
    strbuf_free(&b);
    strbuf_add_json_string(&b, NULL);
    strbuf_add(&b, " ");
    strbuf_add_json_number(&b, 0.0 / 0.0, 6);
    strbuf_add(&b, " ");
    strbuf_add_json_number(&b, 1.0 / 0.0, 6);
    strbuf_add(&b, " ");
    strbuf_add_json_number(&b, 42, 6);
    strbuf_add(&b, " ");
    strbuf_add_json_number(&b, -2.944439, 4);
    assert_string_equal(strbuf_str(&b), "null null null 42 -2.944");
    strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_commit_and_abort),
        cmocka_unit_test(test_publish_no_replace),
        cmocka_unit_test(test_engine_comment_wrapped),
        cmocka_unit_test(test_tgn_names_escaped),
        cmocka_unit_test(test_json_strings),
        cmocka_unit_test(test_report_md_escapes_html),
        cmocka_unit_test(test_output_never_an_input),
        cmocka_unit_test(test_output_lock),
        cmocka_unit_test(test_output_missing_folder),
        cmocka_unit_test(test_commit_group),
        cmocka_unit_test(test_stage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
