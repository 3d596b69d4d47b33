/* data_lines.c: see data_lines.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "data_lines.h"

int for_each_line(const char *path, LineFn fn, void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char line[4096];
    int lineno = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *cols[4];
        int ncols = 0;
        char *p = line;
        cols[ncols++] = p;
        while (ncols < 4 && (p = strchr(p, '\t')) != NULL) {
            *p++ = '\0';
            cols[ncols++] = p;
        }
        fn(cols, ncols, lineno, ctx);
        n++;
    }
    fclose(f);
    return n;
}
