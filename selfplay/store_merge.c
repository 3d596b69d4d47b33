#define _POSIX_C_SOURCE 200809L
/* store_merge.c: merging HDF5 stores into one (the parts of an MPI run, or a
 * store left by a crash, which h5store_open_append repairs as a merge of one
 * input).  Streams: the inputs' /games rows are held whole, their moves and
 * positions are read a batch of games at a time. */
#include "store_internal.h"

#include "engine_id.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A game of an input: its index, the input and its row in the input's /games. */
typedef struct {
    int64_t index;
    int input;
    int64_t row;
} MergeRef;

/* qsort order: by game index, then input, then row (the first input wins). */
static int cmp_merge_ref(const void *a, const void *b)
{
    const MergeRef *x = a, *y = b;
    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    if (x->input != y->input)
        return (x->input > y->input) - (x->input < y->input);
    return (x->row > y->row) - (x->row < y->row);
}

#define MERGE_BATCH 512

/* One input of a merge: its games (read and checked by h5store_read) and
 * its open row datasets with the memory types of its schema version. */
typedef struct {
    StoreContents c; /* metadata and games; no moves or positions */
    hid_t file, ds[2], mt[2]; /* /moves, /positions */
} MergeInput;

/* Reads and checks each input's games, sorts them by index and writes them
 * in batches of MERGE_BATCH games to OUT.tmp, renamed over out_path.  With
 * `repair` (one input), the input's good rows are taken as a repair reads
 * them and its own INI stands (tournament_ini is not checked).  With `stop`
 * (may be NULL): once *stop is set (looked at while each input is read
 * and before each game is copied), OUT.tmp is removed, out_path and the
 * inputs stay as they were, and TV_OK is returned with *stopped set. */
static TvStatus merge_stores(const char *out_path, const char *const *inputs, int ninputs, const char *tournament_ini,
                             StoreRepair *repair, const volatile sig_atomic_t *stop, bool *stopped,
                             int64_t *ngames_out, TvError *err)
{
    TvStatus st = TV_OK;
    MergeInput *in = NULL;
    MergeRef *refs = NULL;
    StoredGame *bg = NULL;
    StoredMove *bm = NULL;
    StoredPosition *bp = NULL;
    H5Store *s = NULL;
    char *tmp = NULL;
    hid_t dapl = H5I_INVALID_HID;
    int lock_fd = -1;
    int64_t nrefs = 0, total = 0;
    store_quiet_hdf5();
    if (ngames_out)
        *ngames_out = 0;
    if (stopped)
        *stopped = false;
    if (ninputs < 1)
        return tv_fail(err, TV_ERR_ARG, "%s: nothing to merge", out_path);
    if ((st = store_lock_unless_live(out_path, &lock_fd, err)) != TV_OK)
        return st;
    if (!(in = calloc((size_t)ninputs, sizeof *in))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
        goto done;
    }
    for (int i = 0; i < ninputs; i++)
        in[i].file = in[i].ds[0] = in[i].ds[1] = in[i].mt[0] = in[i].mt[1] = H5I_INVALID_HID;
    if ((dapl = store_dapl_cached()) < 0) {
        st = store_h5_fail(err, TV_ERR_IO, out_path, "cannot set up the dataset access");
        goto done;
    }
    /* Each input: metadata and games, checked; its rows stay on disk.  (A
     * stop cuts the reading of an input short too.) */
    for (int i = 0; i < ninputs; i++) {
        if (stop && *stop)
            break;
        if ((st = store_read_games(inputs[i], false, false, repair, true, stop, &in[i].c, err)) != TV_OK) {
            if (stop && *stop) { /* stopped, not damaged */
                st = TV_OK;
                break;
            }
            goto done;
        }
        if (!repair && (st = store_check_config(inputs[i], in[i].c.tournament_ini, tournament_ini, err)) != TV_OK)
            goto done;
        char why[600] = "";
        if (in[0].c.nengines != in[i].c.nengines)
            snprintf(why, sizeof why, "%d engines there, %d here", in[0].c.nengines, in[i].c.nengines);
        for (int e = 0; e < in[0].c.nengines && !why[0] && in[0].c.nengines == in[i].c.nengines; e++)
            engine_id_difference(&in[0].c.engines[e], "there", &in[i].c.engines[e], "here", why, sizeof why);
        if (why[0]) {
            st = tv_fail(err, TV_ERR_ARG,
                         "%s and %s hold different engine versions (%s); use --force to start a new store",
                         inputs[0], inputs[i], why);
            goto done;
        }
        if ((st = store_open_read(inputs[i], &in[i].file, err)) != TV_OK)
            goto done;
        if ((in[i].ds[0] = H5Dopen2(in[i].file, "moves", dapl)) < 0 ||
            (in[i].ds[1] = H5Dopen2(in[i].file, "positions", dapl)) < 0 ||
            (in[i].mt[0] = store_mem_type_for(in[i].ds[0], DS_MOVES)) < 0 ||
            (in[i].mt[1] = store_mem_type_for(in[i].ds[1], DS_POSITIONS)) < 0) {
            st = store_h5_fail(err, TV_ERR_IO, inputs[i], "cannot open /moves and /positions");
            goto done;
        }
        total += in[i].c.ngames;
    }
    if (stop && *stop) { /* nothing written yet */
        if (stopped)
            *stopped = true;
        goto done;
    }
    if (!(refs = malloc(sizeof *refs * (size_t)(total ? total : 1)))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory for %lld games", out_path, (long long)total);
        goto done;
    }
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < in[i].c.ngames; j++)
            refs[nrefs++] = (MergeRef){in[i].c.games[j].index, i, j};
    qsort(refs, (size_t)nrefs, sizeof *refs, cmp_merge_ref);
    if (!(tmp = store_tmp_path(out_path))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
        goto done;
    }
    st = store_build(tmp, out_path, in[0].c.engines, in[0].c.nengines, in[0].c.tournament_ini, in[0].c.options,
                     in[0].c.program_version, &s, err);
    if (st != TV_OK)
        goto done;
    /* Batches of whole games, each index once, in ascending index, their
     * rows read from the inputs game by game. */
    int64_t written = 0, k = 0;
    while (k < nrefs && st == TV_OK) {
        int nb = 0;
        int64_t nm = 0, np = 0, cap_m = 0, cap_p = 0;
        for (int64_t j = k; j < nrefs && nb < MERGE_BATCH; j++) {
            if (j > 0 && refs[j].index == refs[j - 1].index)
                continue; /* a game that two inputs hold (a merge cut short): the first one */
            const StoredGame *g = &in[refs[j].input].c.games[refs[j].row];
            cap_m += g->move_count;
            cap_p += g->position_count;
            nb++;
        }
        StoredGame *g2 = realloc(bg, sizeof *bg * (size_t)(nb ? nb : 1));
        StoredMove *m2 = g2 ? realloc(bm, sizeof *bm * (size_t)(cap_m ? cap_m : 1)) : NULL;
        if (g2)
            bg = g2;
        if (m2)
            bm = m2;
        StoredPosition *p2 = m2 ? realloc(bp, sizeof *bp * (size_t)(cap_p ? cap_p : 1)) : NULL;
        if (!p2) {
            st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
            break;
        }
        bp = p2;
        nb = 0;
        for (; k < nrefs && nb < MERGE_BATCH; k++) {
            if (stop && *stop)
                break; /* the whole batch is dropped below, with OUT.tmp */
            if (k > 0 && refs[k].index == refs[k - 1].index)
                continue;
            const MergeInput *src = &in[refs[k].input];
            const StoredGame *g = &src->c.games[refs[k].row];
            store_prefill(DS_MOVES, &bm[nm], g->move_count);
            store_prefill(DS_POSITIONS, &bp[np], g->position_count);
            if (!store_read_rows(src->ds[0], src->mt[0], g->move_offset, g->move_count, &bm[nm]) ||
                !store_read_rows(src->ds[1], src->mt[1], g->position_offset, g->position_count, &bp[np])) {
                st = store_h5_fail(err, TV_ERR_IO, inputs[refs[k].input], "cannot read a game's moves and positions");
                break;
            }
            /* Their values: a repair leaves out a game with a bad one, a merge refuses it. */
            char why[400];
            if (store_game_rows_problem(g, &bm[nm], &bp[np], true, why, sizeof why)) {
                if (!repair) {
                    st = tv_fail(err, TV_ERR_PARSE,
                                 "%s: game %lld: %s; the store is damaged ('tavreli repair %s' copies its good "
                                 "games into a new store)",
                                 inputs[refs[k].input], (long long)g->index, why, inputs[refs[k].input]);
                    break;
                }
                repair->counts->kept--;
                repair->counts->bad++;
                if (repair->dropped)
                    repair->dropped(repair->rows[refs[k].row], g->index, why, repair->user);
                continue;
            }
            bg[nb++] = *g;
            nm += g->move_count;
            np += g->position_count;
        }
        if (stop && *stop)
            break;
        if (st == TV_OK)
            st = h5store_append(s, bg, nb, bm, bp, err);
        written += nb;
    }
    if (st == TV_OK && stop && *stop) { /* a signal: OUT.tmp goes (done:), nothing else changes */
        if (stopped)
            *stopped = true;
        written = 0;
        goto done;
    }
    if (st != TV_OK)
        goto done;
    if (!store_release(s)) {
        s = NULL;
        st = store_h5_fail(err, TV_ERR_IO, out_path, "cannot close the merged store");
        goto done;
    }
    s = NULL;
    if (rename(tmp, out_path) != 0) {
        st = tv_fail(err, TV_ERR_IO, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
        goto done;
    }
    /* An SPRT decision recorded in an input stays with the games, and so
     * does every session any input recorded. */
    for (int i = 0; i < ninputs; i++)
        if (in[i].c.sprt && in[i].c.sprt_result) {
            const char *names[2] = {"sprt", "sprt_result"};
            const char *values[2] = {in[i].c.sprt, in[i].c.sprt_result};
            st = h5store_set_attributes(out_path, names, values, 2, err);
            break;
        }
    for (int i = 0; i < ninputs && st == TV_OK; i++)
        if (in[i].c.sessions && in[i].c.sessions[0])
            st = h5store_add_lines(out_path, "sessions", in[i].c.sessions, err);
    if (ngames_out)
        *ngames_out = written;
done:
    if (s) {
        store_release(s);
        remove(tmp);
    }
    if (lock_fd >= 0)
        close(lock_fd);
    free(tmp);
    free(bg);
    free(bm);
    free(bp);
    free(refs);
    if (in)
        for (int i = 0; i < ninputs; i++) {
            store_close_id(&in[i].mt[0], H5Tclose);
            store_close_id(&in[i].mt[1], H5Tclose);
            store_close_id(&in[i].ds[0], H5Dclose);
            store_close_id(&in[i].ds[1], H5Dclose);
            store_close_id(&in[i].file, H5Fclose);
            h5store_contents_free(&in[i].c);
        }
    free(in);
    if (repair) {
        free(repair->rows);
        repair->rows = NULL;
    }
    if (dapl >= 0)
        H5Pclose(dapl);
    return st;
}

TvStatus h5store_merge(const char *out_path, const char *const *inputs, int ninputs, const char *tournament_ini,
                       int64_t *ngames_out, TvError *err)
{
    return merge_stores(out_path, inputs, ninputs, tournament_ini, NULL, NULL, NULL, ngames_out, err);
}

TvStatus h5store_merge_stoppable(const char *out_path, const char *const *inputs, int ninputs,
                                 const char *tournament_ini, const volatile sig_atomic_t *stop, bool *stopped,
                                 int64_t *ngames_out, TvError *err)
{
    return merge_stores(out_path, inputs, ninputs, tournament_ini, NULL, stop, stopped, ngames_out, err);
}

TvStatus h5store_repair(const char *in, const char *out_path, bool force, StoreRowFn dropped, void *user,
                        StoreRepairCounts *counts, TvError *err)
{
    memset(counts, 0, sizeof *counts);
    if (!strcmp(in, out_path))
        return tv_fail(err, TV_ERR_ARG, "%s: a repair writes a new store: give another output path", in);
    struct stat sb;
    if (lstat(out_path, &sb) == 0) {
        if (!force)
            return tv_fail(err, TV_ERR_IO, "%s already exists: choose another output, or --force to replace it",
                           out_path);
        if (!S_ISREG(sb.st_mode))
            return tv_fail(err, TV_ERR_IO, "%s exists and is not a regular file: it is not replaced", out_path);
    }
    const char *inputs[1] = {in};
    StoreRepair repair = {dropped, user, counts, NULL};
    return merge_stores(out_path, inputs, 1, NULL, &repair, NULL, NULL, NULL, err);
}
