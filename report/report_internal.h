/* report_internal.h: what the report's stages share (internal to report/).
 * report_data.c reads the stores and computes the statistics (stages 1 and
 * 2 of report.c), report_build.c draws the plots and builds the document
 * (stages 3 and 4); report.c runs them. */
#ifndef TAVRELI_REPORT_INTERNAL_H
#define TAVRELI_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "h5store.h"
#include "outcome.h"
#include "ratings.h"
#include "report_doc.h"
#include "status.h"
#include "tune_log.h"

#define TOP_WEIGHTS 15
/* The referee's terminations (outcome.h: illegal_move, time_forfeit,
 * engine_died, engine_stalled), each a game its engine lost without playing
 * it out. */
#define NREFEREE (TERM_ENGINE_STALLED - TERM_ILLEGAL_MOVE + 1)
/* REFEREE_NOTE_SHARE (selfplay/outcome.h): the share of an engine's games lost
 * by the referee above which the report notes that its figures rest on them. */
#define NTERM (TERM_COUNT + 1) /* the Termination values, and one more for anything else */

/* A weight of the tuning log and how far it moved, for the ranking. */
typedef struct {
    const TuneLogWeight *w;
    double move; /* new - start */
    double key;  /* |move| / stderr when ranked by z, else |move| */
} RankedWeight;

/* ---- the SPRT of one store -------------------------------------------------------------- */

typedef struct {
    int file;              /* index in the file list */
    double elo0, elo1, alpha, beta, lower, upper;
    SprtModel model;       /* the bounds' Elo model */
    char *result;          /* the stored decision (heap, may be NULL) */
    int a, b;              /* the store's engines 0 and 1, as players */
    int64_t npairs;
    int64_t penta[5];
    double llr;
    double *path_games, *path_llr; /* npairs + 1 points, starting at (0, 0) */
    double minllr, maxllr;
} SprtInfo;

/* ---- the report ------------------------------------------------------------------------ */

typedef struct {
    char name[64];
    const StoredEngine *eng; /* in the first store that has it */
    int file;                /* that store */
    char versions[400];      /* a second version of a name: how it differs from the first ("" otherwise) */
    int64_t games;
    double points;
    int64_t referee_lost[NREFEREE]; /* games it lost by each referee termination */
    int rated; /* index in the ratings (-1: no games against another player) */
} ReportPlayer;

typedef struct {
    int a, b; /* players, a < b */
    int64_t games;
    int64_t adjudicated; /* games ended by adjudication (ply limit, resignation, draw) */
    int64_t not_played_out; /* ... by the ply limit or a draw adjudication: results play did not decide
                               (a resignation both engines' scores agree on is how most games end) */
    bool identical;      /* the two engines are the same version under two names */
    PairingStats ps;
    double *elo, *err95; /* games: a's Elo and its 95% half-width after each game, as played */
} Pairing;

typedef struct {
    const char *const *files;
    int nfiles;
    StoreContents *c; /* nfiles */
    bool c_given;     /* c was read by the caller (report_live_json_contents): not read, not freed */
    int nplayers;
    ReportPlayer *players;
    int64_t ngames;       /* all games, each once */
    const StoredGame **kept; /* ngames: the games counted (a game two stores hold, once) */
    int *kept_white, *kept_black; /* ngames: their players */
    int64_t nduplicates;  /* games left out: held by an earlier store too */
    bool mix_rules;       /* stores of other rule options may be rated together */
    int64_t nself;        /* games of an engine against itself (not rated) */
    RatedGame *rg;        /* rated games, players as rating indices */
    int64_t nrg;
    int nrated;
    int *rated_player;    /* nrated: rating index -> player */
    Ratings r;
    bool have_r;
    int *order;           /* nrated rating indices, best first */
    Pairing *pairings;
    int npairings;
    int64_t term[NTERM][3]; /* termination x (White won, drawn, Black won) */
    int *plies;           /* ngames, sorted */
    int64_t *decisive_by_bin, *drawn_by_bin;
    int nbins, binw;
    SprtInfo *sprt;
    int nsprt;
    TuneLog tl;
    bool have_tl;
    bool tl_have_hold;     /* some iteration has a hold-out loss */
    bool tl_by_z;          /* weights ranked by |move| / stderr (every stderr > 0), else by |move| */
    RankedWeight *tl_rank; /* tl.nweights, the biggest movers first */
    const char *tuning_path;
    int simulations; /* > 0: intervals from simulated replays */
    const char *baseline_name; /* --baseline (NULL: the first engine) */
    bool sprt_from_ini; /* a store without the "sprt" attribute (a run still playing) takes its
                           SPRT from its tournament INI's [sprt] section */
    int baseline;    /* its player */
} Report;

/* Stage 1: read the stores and collect the games (report_data.c). */
TvStatus report_collect(Report *R, TvError *err);

/* Stage 2: the ratings, the pairings, terminations, lengths, SPRT paths and
 * the tuning log's ranking (report_data.c). */
TvStatus report_compute(Report *R, TvError *err);

/* Frees what the stages allocated (report.c). */
void report_free(Report *R);

/* Stage 3: the plot data, the script, gnuplot (report_build.c). */
TvStatus report_plots(const Report *R, const char *outdir, TvError *err);

/* Stage 4: the document (report_build.c). */
void report_build_doc(const Report *R, Doc *D);

/* The report's first lines, which answer "is the first engine stronger?"
 * as cutechess and fastchess print a match: the first engine (the
 * baseline) against each engine it met, from their games against each
 * other, with the verdict of an SPRT between them; one line each ("A vs
 * B: +X ± Y Elo (nElo ...), LOS ..., N games (+W =D -L); SPRT [e0, e1]:
 * verdict\n"), appended to out. */
void report_headlines(const Report *R, StrBuf *out);



#endif
