/* build_cache.c: builds of git revisions, each made once (build_cache.h). */
#define _GNU_SOURCE /* realpath, flock */
#include "build_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "engine_id.h"
#include "run_command.h"

/* The compiler's last lines quoted in the error of a failed build. */
#define BUILD_ERROR_LINES 12

/* The build type of every build here, and so the kind (`tavreli --version`'s
 * "built as KIND") an executable already built must have to stand for one:
 * a Debug or sanitized build plays slower, and its games would not compare. */
#define BUILD_TYPE "Release"

/* Runs argv; its output into out (the caller frees it), TV_OK only for
 * exit status 0; else an error "WHAT failed (status S): LAST LINES". */
static TvStatus run_ok(char *const argv[], const char *dir, const char *what, StrBuf *out, TvError *err)
{
    CommandResult r;
    TvStatus st = run_command(argv, dir, 0, &r, err);
    if (st != TV_OK) {
        strbuf_free(&r.out);
        return st;
    }
    if (r.exit_status != 0) {
        char tail[1500];
        run_command_tail(strbuf_str(&r.out), 4, tail, sizeof tail);
        strbuf_free(&r.out);
        return tv_fail(err, TV_ERR_IO, "%s failed (status %d): %s", what, r.exit_status, tail);
    }
    if (out)
        *out = r.out;
    else
        strbuf_free(&r.out);
    return TV_OK;
}

/* The output of a git command in repo, its last newline removed. */
static TvStatus git(const char *repo, const char *what, char *buf, size_t n, TvError *err, const char *a1,
                    const char *a2, const char *a3, const char *a4)
{
    char *argv[] = {"git", "-C", (char *)repo, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    StrBuf out = {0};
    TvStatus st = run_ok(argv, NULL, what, &out, err);
    if (st == TV_OK) {
        snprintf(buf, n, "%s", strbuf_str(&out));
        buf[strcspn(buf, "\n")] = '\0';
    }
    strbuf_free(&out);
    return st;
}

TvStatus build_cache_resolve(const char *dir, const char *rev, BuildRev *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    out->claimed_bench = -1;
    TvError e;
    if (git(dir, "git rev-parse --show-toplevel", out->repo, sizeof out->repo, &e, "rev-parse", "--show-toplevel",
            NULL, NULL) != TV_OK)
        return tv_fail(err, TV_ERR_ARG, "%s is not in a git checkout (compare builds commits of one): %s", dir,
                       e.msg);
    out->worktree = !rev || !*rev;
    snprintf(out->given, sizeof out->given, "%s", out->worktree ? "" : rev);
    char spec[160];
    snprintf(spec, sizeof spec, "%s^{commit}", out->worktree ? "HEAD" : rev);
    if (!out->worktree && rev[0] == '-')
        return tv_fail(err, TV_ERR_ARG, "'%s' is not a revision (it looks like a flag)", rev);
    if (git(out->repo, "git rev-parse", out->commit, sizeof out->commit, &e, "rev-parse", "--verify", "--quiet",
            spec) != TV_OK || strlen(out->commit) != 40)
        return tv_fail(err, TV_ERR_ARG, "'%s' is not a commit of the repository %s (git rev-parse --verify found none)",
                       out->worktree ? "HEAD" : rev, out->repo);
    if (out->worktree) {
        char status[64];
        if (git(out->repo, "git status", status, sizeof status, err, "status", "--porcelain", "--untracked-files=no",
                NULL) != TV_OK)
            return err->status;
        out->dirty = status[0] != '\0';
    }
    snprintf(out->label, sizeof out->label, "%.12s%s", out->commit, out->dirty ? "-dirty" : "");
    if (git(out->repo, "git log", out->subject, sizeof out->subject, err, "log", "-1", "--format=%s", out->commit) !=
        TV_OK)
        return err->status;
    /* "Bench: N" in the message, as Stockfish's commits carry their signature */
    char *argv[] = {"git", "-C", out->repo, "log", "-1", "--format=%B", out->commit, NULL};
    StrBuf body = {0};
    if (run_ok(argv, NULL, "git log", &body, err) != TV_OK)
        return err->status;
    for (const char *line = strbuf_str(&body); *line;) {
        long long v;
        char tail;
        if (sscanf(line, "Bench: %lld%c", &v, &tail) >= 1 && v >= 0)
            out->claimed_bench = v;
        line += strcspn(line, "\n");
        line += *line == '\n';
    }
    strbuf_free(&body);
    return TV_OK;
}

/* CACHE/timing/WHAT.txt, WHAT's blanks as '-' */
static void timing_path(const char *cache_dir, const char *what, char *buf, size_t n)
{
    char w[64];
    snprintf(w, sizeof w, "%s", what);
    for (char *c = w; *c; c++)
        if (*c == ' ' || *c == '/')
            *c = '-';
    snprintf(buf, n, "%.900s/timing/%s.txt", cache_dir, w);
}

typedef struct {
    double seconds;
    long long games;
} Timing;

static int timing_key(void *user, const char *section, const char *name, const char *value)
{
    Timing *t = user;
    (void)section;
    if (!strcmp(name, "seconds_per_game"))
        t->seconds = strtod(value, NULL);
    else if (!strcmp(name, "games"))
        t->games = strtoll(value, NULL, 10);
    return 1;
}

bool build_cache_game_seconds(const char *cache_dir, const char *what, double *seconds, long long *games)
{
    char path[BUILD_PATH_MAX];
    timing_path(cache_dir, what, path, sizeof path);
    Timing t = {0, 0};
    if (ini_parse(path, timing_key, &t) != 0 || t.games <= 0 || !(t.seconds > 0))
        return false;
    *seconds = t.seconds;
    *games = t.games;
    return true;
}

void build_cache_note_game_seconds(const char *cache_dir, const char *what, double seconds, long long games)
{
    if (games <= 0 || !(seconds > 0))
        return;
    double old_s;
    long long old_n;
    if (build_cache_game_seconds(cache_dir, what, &old_s, &old_n)) {
        seconds = (old_s * (double)old_n + seconds * (double)games) / (double)(old_n + games);
        games += old_n;
    }
    char dir[BUILD_PATH_MAX], path[BUILD_PATH_MAX];
    snprintf(dir, sizeof dir, "%.900s/timing", cache_dir);
    TvError e;
    if (tv_make_dirs(dir, "timing folder", &e) != TV_OK)
        return;
    timing_path(cache_dir, what, path, sizeof path);
    TvAtomicFile a;
    if (tv_atomic_open(&a, path, "timing record", &e) != TV_OK)
        return;
    fprintf(a.f,
            "# the wall seconds a game of tavreli compare took per game thread at %s, over its games\n"
            "[timing]\nseconds_per_game = %.3f\ngames = %lld\n",
            what, seconds, games);
    tv_atomic_commit(&a, &e);
}

void build_cache_default_dir(const char *repo, char *buf, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, n, "%s/tavreli/builds", xdg);
    else if (home && home[0] == '/')
        snprintf(buf, n, "%s/.cache/tavreli/builds", home);
    else
        snprintf(buf, n, "%s/.tavreli-builds", repo);
}

/* The record of a built commit, CACHE/COMMIT/build.txt. */
typedef struct {
    char commit[48], exe_sha256[65];
    long long bench;
} Record;

static int record_key(void *user, const char *section, const char *name, const char *value)
{
    Record *r = user;
    (void)section;
    if (!strcmp(name, "commit"))
        snprintf(r->commit, sizeof r->commit, "%s", value);
    else if (!strcmp(name, "exe_sha256"))
        snprintf(r->exe_sha256, sizeof r->exe_sha256, "%s", value);
    else if (!strcmp(name, "bench"))
        r->bench = strtoll(value, NULL, 10);
    return 1;
}

static TvStatus record_write(const char *path, const BuildRev *r, const StoredEngine *id, const BuiltRev *b,
                             TvError *err)
{
    TvAtomicFile a;
    TvStatus st = tv_atomic_open(&a, path, "build record", err);
    if (st != TV_OK)
        return st;
    fprintf(a.f,
            "# the build of one commit by tavreli compare (selfplay/build_cache.c); a reuse checks the\n"
            "# executable's hash and bench signature against these lines\n"
            "[build]\ncommit = %s\nsubject = %s\nexe = %s\nexe_sha256 = %s\nbench = %lld\nseconds = %.1f\n",
            r->commit, r->subject, b->exe, id->exe_sha256, (long long)b->bench, b->seconds);
    return tv_atomic_commit(&a, err);
}

/* Builds the tavreli target of src in build: configure once, then build. */
static TvStatus cmake_build(const char *src, const char *build, int jobs, const char *log, TvError *err)
{
    char jobs_text[16];
    snprintf(jobs_text, sizeof jobs_text, "%d", jobs > 0 ? jobs : (int)sysconf(_SC_NPROCESSORS_ONLN));
    char cache[BUILD_PATH_MAX + 32];
    snprintf(cache, sizeof cache, "%s/CMakeCache.txt", build);
    char *configure[] = {"cmake", "-S", (char *)src, "-B", (char *)build, "-DCMAKE_BUILD_TYPE=" BUILD_TYPE, NULL};
    char *make[] = {"cmake", "--build", (char *)build, "--target", "tavreli", "-j", jobs_text, NULL};
    char *const *steps[2] = {configure, make};
    StrBuf whole = {0};
    TvStatus st = TV_OK;
    for (int k = access(cache, F_OK) == 0 ? 1 : 0; k < 2 && st == TV_OK; k++) {
        CommandResult r;
        st = run_command(steps[k], NULL, 0, &r, err);
        if (st != TV_OK) {
            strbuf_free(&r.out);
            break;
        }
        strbuf_add(&whole, strbuf_str(&r.out));
        if (r.exit_status != 0) {
            char tail[3000];
            run_command_tail(strbuf_str(&r.out), BUILD_ERROR_LINES, tail, sizeof tail);
            st = tv_fail(err, TV_ERR_IO, "%s failed (status %d; the whole log: %s); its last lines:\n%s",
                         k == 0 ? "configuring the build (cmake)" : "the build (cmake --build --target tavreli)",
                         r.exit_status, log, tail);
            if (k == 0)
                unlink(cache); /* configure again next time */
        }
        strbuf_free(&r.out);
    }
    FILE *f = fopen(log, "w");
    if (f) {
        fputs(strbuf_str(&whole), f);
        fclose(f);
    }
    strbuf_free(&whole);
    return st;
}

/* What a tavreli executable's --version says of itself: its commit
 * (engine_id_commit_of_version; "" when it names none) and, when it says
 * them, its kind and tree (engine_id_build_of_version; else ""). */
typedef struct {
    char commit[48], kind[64], tree[48];
} SaidBuild;

static TvStatus said_build(const char *exe, SaidBuild *said, TvError *err)
{
    char *argv[] = {(char *)exe, "--version", NULL};
    StrBuf out = {0};
    memset(said, 0, sizeof *said);
    TvStatus st = run_ok(argv, NULL, "tavreli --version", &out, err);
    if (st == TV_OK) {
        engine_id_commit_of_version(strbuf_str(&out), said->commit, sizeof said->commit);
        engine_id_build_of_version(strbuf_str(&out), said->kind, sizeof said->kind, said->tree, sizeof said->tree);
    }
    strbuf_free(&out);
    return st;
}

/* The git tree r's build is made from: a commit's own tree; for a working
 * tree with changes, the tree its tracked files make now, as its own
 * cmake/tavreli_tree.cmake computes it (the one definition, which the build
 * also records); "" when the checkout has no such script. */
static TvStatus revision_tree(const BuildRev *r, char *buf, size_t n, TvError *err)
{
    buf[0] = '\0';
    if (!r->dirty) {
        char spec[64];
        snprintf(spec, sizeof spec, "%s^{tree}", r->commit);
        return git(r->repo, "git rev-parse COMMIT^{tree}", buf, n, err, "rev-parse", "--verify", spec, NULL);
    }
    char script[BUILD_PATH_MAX + 32], src_def[BUILD_PATH_MAX + 8];
    snprintf(script, sizeof script, "%s/cmake/tavreli_tree.cmake", r->repo);
    if (access(script, R_OK) != 0)
        return TV_OK;
    snprintf(src_def, sizeof src_def, "-DSRC=%s", r->repo);
    char *argv[] = {"cmake", src_def, "-P", script, NULL};
    StrBuf out = {0};
    TvStatus st = run_ok(argv, NULL, "cmake -P cmake/tavreli_tree.cmake", &out, err);
    if (st == TV_OK && !strncmp(strbuf_str(&out), "tree ", 5)) {
        snprintf(buf, n, "%s", strbuf_str(&out) + 5);
        buf[strcspn(buf, "\n")] = '\0';
    }
    strbuf_free(&out);
    return st;
}

/* Whether exe, a tavreli already built, is r's build as this cache would
 * make it: its --version names r's commit ("-dirty" as r is), its kind is
 * BUILD_TYPE and its tree is r's.  When it names r's commit but is not
 * that build, why says so. */
static TvStatus prebuilt_is(const char *exe, const BuildRev *r, bool *same, SaidBuild *said, char *why, size_t wn,
                            TvError *err)
{
    *same = false;
    why[0] = '\0';
    TvStatus st = said_build(exe, said, err);
    if (st != TV_OK || strcmp(said->commit, r->label))
        return st;
    char tree[64];
    if ((st = revision_tree(r, tree, sizeof tree, err)) != TV_OK)
        return st;
    if (strcmp(said->kind, BUILD_TYPE))
        snprintf(why, wn, "%s is a build of %s, but %s%s (the builds here are " BUILD_TYPE "): building it", exe,
                 r->label, said->kind[0] ? "built as " : "older than 'tavreli --version' naming its kind",
                 said->kind);
    else if (!tree[0] || strcmp(said->tree, tree))
        snprintf(why, wn, "%s is a build of %s, but of another state of its files (tree %.12s, now %.12s): building it",
                 exe, r->label, said->tree[0] ? said->tree : "unknown", tree[0] ? tree : "unknown");
    else
        *same = true;
    return TV_OK;
}

/* The checks of every build, made now, reused or given: it names the commit
 * it was built for, and its bench signature agrees with its record
 * (recorded >= 0) and its commit message's "Bench: N". */
static TvStatus check_build(const BuildRev *r, const SaidBuild *said, long long recorded, const char *record,
                            BuiltRev *out, TvError *err)
{
    snprintf(out->said_commit, sizeof out->said_commit, "%s", said->commit);
    if (out->said_commit[0]) {
        const size_t k = strcspn(out->said_commit, "-");
        const bool says_dirty = strstr(out->said_commit, "-dirty") != NULL;
        if (k < 7 || strncmp(out->said_commit, r->commit, k) || says_dirty != r->dirty)
            return tv_fail(err, TV_ERR_ARG,
                           "the build of %s says it is commit %s (its --version): it is not the commit it was built "
                           "for; remove %s to build it again",
                           r->label, out->said_commit, out->folder);
    }
    TvStatus st = engine_id_tavreli_bench(out->exe, &out->bench, err);
    if (st != TV_OK)
        return st;
    if (recorded >= 0 && recorded != out->bench)
        return tv_fail(err, TV_ERR_ARG,
                       "the cached build of %s gives bench signature %lld, and %lld when it was built (%s): it is "
                       "not the build of that commit; remove %s to build it again",
                       r->label, (long long)out->bench, recorded, record, out->folder);
    if (r->claimed_bench >= 0 && !r->dirty && r->claimed_bench != out->bench)
        return tv_fail(err, TV_ERR_ARG,
                       "the build of %s gives bench signature %lld, and the commit's message says 'Bench: %lld': the "
                       "build is not the commit it claims, or the message is wrong",
                       r->label, (long long)out->bench, (long long)r->claimed_bench);
    return TV_OK;
}

/* cache_dir, made when missing, as an absolute path in real (PATH_MAX). */
static TvStatus cache_folder(const char *cache_dir, char *real, TvError *err)
{
    TvStatus st = tv_make_dirs(cache_dir, "cache folder", err);
    if (st != TV_OK)
        return st;
    if (!realpath(cache_dir, real))
        return tv_fail(err, TV_ERR_IO, "cannot resolve the cache folder %s: %s", cache_dir, strerror(errno));
    if (strlen(real) > 900)
        return tv_fail(err, TV_ERR_LIMIT, "the cache folder %.100s... is too long (900 bytes at most)", real);
    return TV_OK;
}

/* An executable already built, copied into the cache (folder/tavreli, in
 * a folder named by its tree): the copy plays, so that rebuilding or
 * removing the original during the run, or before its --resume, changes
 * nothing.  A copy made before is kept (the same files, built the same
 * way: the first copy stands, as a cached build does). */
static TvStatus copy_prebuilt(const char *from, const char *folder, const char *exe, TvError *err)
{
    TvStatus st = tv_make_dirs(folder, "build folder", err);
    if (st != TV_OK || access(exe, X_OK) == 0)
        return st;
    FILE *in = fopen(from, "rb");
    if (!in)
        return tv_fail(err, TV_ERR_IO, "cannot read %s: %s", from, strerror(errno));
    TvAtomicFile a;
    if ((st = tv_atomic_open(&a, exe, "copy of the build", err)) != TV_OK) {
        fclose(in);
        return st;
    }
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, a.f) != n)
            break;
    const bool read_error = ferror(in) != 0;
    fclose(in);
    if (read_error || fchmod(fileno(a.f), 0755) != 0) {
        tv_atomic_abort(&a);
        return tv_fail(err, TV_ERR_IO, "cannot copy %s to %s: %s", from, exe, strerror(errno));
    }
    return tv_atomic_commit(&a, err);
}

TvStatus build_cache_get(const char *cache_dir, const BuildRev *r, const char *prebuilt, int jobs, BuildNote note,
                         void *user, BuiltRev *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    TvStatus st;
    SaidBuild said;
    char real_cache[PATH_MAX];
    if (prebuilt && *prebuilt) {
        bool same;
        char why[BUILD_PATH_MAX + 200];
        if ((st = prebuilt_is(prebuilt, r, &same, &said, why, sizeof why, err)) != TV_OK)
            return st;
        if (why[0] && note)
            note(why, user);
        if (same) {
            if ((st = cache_folder(cache_dir, real_cache, err)) != TV_OK)
                return st;
            snprintf(out->folder, sizeof out->folder, "%.900s/tree-%.12s", real_cache, said.tree);
            snprintf(out->exe, sizeof out->exe, "%.1000s/tavreli", out->folder);
            if ((st = copy_prebuilt(prebuilt, out->folder, out->exe, err)) != TV_OK)
                return st;
            out->reused = out->prebuilt = true;
            return check_build(r, &said, -1, NULL, out, err);
        }
    }
    if ((st = cache_folder(cache_dir, real_cache, err)) != TV_OK)
        return st;
    if (r->worktree && r->dirty) {
        /* one folder per checkout: a hash of its path */
        const uint64_t h = tv_hash_bytes(1469598103934665603ULL, r->repo, strlen(r->repo));
        snprintf(out->folder, sizeof out->folder, "%.900s/worktree-%016llx", real_cache, (unsigned long long)h);
    } else
        snprintf(out->folder, sizeof out->folder, "%.900s/%.12s", real_cache, r->commit); /* the record holds all 40 */
    if ((st = tv_make_dirs(out->folder, "build folder", err)) != TV_OK)
        return st;
    char lock_path[BUILD_PATH_MAX + 16], record[BUILD_PATH_MAX + 16], log[BUILD_PATH_MAX + 16],
        build[BUILD_PATH_MAX + 16], src[BUILD_PATH_MAX + 16], text[BUILD_PATH_MAX * 2 + 200];
    snprintf(lock_path, sizeof lock_path, "%s/.lock", out->folder);
    snprintf(record, sizeof record, "%s/build.txt", out->folder);
    snprintf(log, sizeof log, "%s/build.log", out->folder);
    snprintf(build, sizeof build, "%s/build", out->folder);
    snprintf(src, sizeof src, "%s/src", out->folder);
    snprintf(out->exe, sizeof out->exe, "%.1000s/tavreli", build);
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock < 0)
        return tv_fail(err, TV_ERR_IO, "cannot open %s: %s", lock_path, strerror(errno));
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        snprintf(text, sizeof text, "waiting for another process building %s in %s", r->label, out->folder);
        if (note)
            note(text, user);
        while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {
        }
    }
    StoredEngine id;
    memset(&id, 0, sizeof id);
    TvError e;
    Record rec = {.bench = -1};
    const bool commit_build = !(r->worktree && r->dirty);
    if (commit_build && access(record, F_OK) == 0 && access(out->exe, X_OK) == 0) {
        /* built before: the record says what it was */
        if (ini_parse(record, record_key, &rec) != 0 || strcmp(rec.commit, r->commit))
            st = tv_fail(err, TV_ERR_PARSE, "%s is not a record of commit %s: remove %s to build it again", record,
                         r->commit, out->folder);
        else if ((st = engine_id_program(out->exe, &id, err)) == TV_OK && strcmp(id.exe_sha256, rec.exe_sha256))
            st = tv_fail(err, TV_ERR_ARG,
                         "the cached build of %s (%s) has changed since it was built (SHA-256 %.12s..., %.12s... in "
                         "%s): remove %s to build it again",
                         r->label, out->exe, id.exe_sha256, rec.exe_sha256, record, out->folder);
        out->reused = true;
    } else {
        const double t0 = tv_now_seconds();
        snprintf(text, sizeof text, "building %s (%.80s) in %s", r->label, r->subject, out->folder);
        if (note)
            note(text, user);
        unlink(record);
        if (commit_build && access(src, F_OK) != 0) {
            char tmp_src[BUILD_PATH_MAX + 32];
            snprintf(tmp_src, sizeof tmp_src, "%s/src.tmp-%ld", out->folder, (long)getpid());
            char *clone[] = {"git", "clone", "--quiet", "--shared", "--no-checkout", (char *)r->repo, tmp_src, NULL};
            char *checkout[] = {"git", "-C", tmp_src, "checkout", "--quiet", "--detach", (char *)r->commit, NULL};
            if ((st = run_ok(clone, NULL, "git clone --shared", NULL, err)) == TV_OK &&
                (st = run_ok(checkout, NULL, "git checkout", NULL, err)) == TV_OK && rename(tmp_src, src) != 0)
                st = tv_fail(err, TV_ERR_IO, "cannot rename %s to %s: %s", tmp_src, src, strerror(errno));
            if (st != TV_OK) {
                char *rm[] = {"rm", "-rf", tmp_src, NULL};
                run_ok(rm, NULL, "rm", NULL, &e);
            }
        }
        if (st == TV_OK)
            st = cmake_build(commit_build ? src : r->repo, build, jobs, log, err);
        if (st == TV_OK && access(out->exe, X_OK) != 0)
            st = tv_fail(err, TV_ERR_IO, "the build of %s made no executable %s (the whole log: %s)", r->label,
                         out->exe, log);
        if (st == TV_OK)
            st = engine_id_program(out->exe, &id, err);
        out->seconds = tv_now_seconds() - t0;
    }
    /* what the build says it is, and its signature */
    if (st == TV_OK && (st = said_build(out->exe, &said, err)) == TV_OK)
        st = check_build(r, &said, out->reused ? rec.bench : -1, record, out, err);
    if (st == TV_OK && commit_build && !out->reused)
        st = record_write(record, r, &id, out, err);
    flock(lock, LOCK_UN);
    close(lock);
    return st;
}
