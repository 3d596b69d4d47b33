/* serve_assets.h: the pages of `tavreli serve` (serve/assets/), built into
 * the program by cmake/embed_assets.cmake, so that the program alone serves
 * them (no install step, no file to lose, the pages of the same commit). */
#ifndef TAVRELI_SERVE_ASSETS_H
#define TAVRELI_SERVE_ASSETS_H

#include <stddef.h>

typedef struct {
    const char *name;          /* its file name in serve/assets/ */
    const unsigned char *data; /* its bytes */
    size_t len;
} ServeAsset;

extern const ServeAsset SERVE_ASSETS[];
extern const int SERVE_NASSETS;

#endif
