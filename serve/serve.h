/* serve.h: `tavreli serve`, a small read-only HTTP server over a folder of
 * runs (results/ by default): the runs list, each run's standings and SPRT
 * as they grow, its games, and a game viewer that draws the towers.  The
 * pages are the project's own (serve/assets/, built into the program); the
 * data comes from the stores through report/'s model (report_live.h), so a
 * page says what `tavreli report` says.  docs/serve.md gives the pages, the
 * JSON and the safety rules.
 *
 * Built on GNU libmicrohttpd (Debian's libmicrohttpd-dev): a C library made
 * for embedding exactly this kind of server, with its own bounded thread
 * pool, connection limit, per-connection memory limit and timeouts, so the
 * limits under many clients are its tested options rather than code of
 * ours. */
#ifndef TAVRELI_SERVE_H
#define TAVRELI_SERVE_H

#include <stdbool.h>

#include "status.h"
#include "strbuf.h"

typedef struct {
    const char *dir;      /* the folder of runs */
    const char *bind;     /* the address to listen on: an IPv4 or IPv6 literal */
    int port;             /* 0: a free port the system picks (serve_port says which) */
    int threads;          /* request threads */
    int max_connections;  /* connections at once; more wait in the kernel's queue */
} ServeOptions;

/* The defaults: results, 127.0.0.1, port 8080, 4 threads, 64 connections. */
void serve_options_default(ServeOptions *o);

typedef struct Server Server;

/* Starts serving (threads of its own; returns at once).  Errors: dir is
 * not a readable folder, a bad address, the port is taken, libmicrohttpd
 * cannot start. */
TvStatus serve_start(const ServeOptions *o, Server **out, TvError *err);

/* The port it listens on. */
int serve_port(const Server *s);

/* Stops: waits for the requests being answered, closes every connection,
 * removes the server's cache of reports.  NULL: nothing. */
void serve_stop(Server *s);

/* The runs list as GET /api/runs answers it (for `tavreli bench serve`). */
TvStatus serve_runs_json(Server *s, StrBuf *out, TvError *err);

#endif
