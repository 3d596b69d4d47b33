/* time_control.c: a clock's text in a tournament INI or on the command
 * line ("40/60+0.5", "1:30+2", "inf") and back.  See tournament.h. */
#include "tournament.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A clock's base at s: seconds ("90", "7.5") or minutes and seconds ("1:30",
 * "0:07.5": SS two digits from 00 to 59).  *end: the first character after
 * it.  False when s starts with neither. */
static bool parse_base(const char *s, char **end, double *out)
{
    if (!isdigit((unsigned char)*s) && *s != '.')
        return false;
    const char *d = s;
    while (isdigit((unsigned char)*d))
        d++;
    if (*d != ':') {
        *out = strtod(s, end);
        return true;
    }
    /* M:SS */
    if (!isdigit((unsigned char)d[1]) || !isdigit((unsigned char)d[2]) || isdigit((unsigned char)d[3]))
        return false;
    errno = 0;
    double minutes = strtod(s, end); /* stops at the ':' */
    double seconds = strtod(d + 1, end);
    if (errno || seconds >= 60)
        return false;
    *out = minutes * 60 + seconds;
    return true;
}

bool time_control_parse(const char *text, TimeControl *tc)
{
    TimeControl t = {0, 0, 0};
    const char *s = text;
    char *end;
    if (!strcmp(s, "inf")) { /* no clock */
        *tc = t;
        return true;
    }
    const char *slash = strchr(s, '/');
    if (slash) {
        long m = strtol(s, &end, 10);
        if (end != slash || m < 1 || m > 1000 || !isdigit((unsigned char)*s))
            return false;
        t.moves = (int)m;
        s = slash + 1;
    }
    double base;
    if (!parse_base(s, &end, &base))
        return false;
    double inc = 0;
    if (*end == '+') {
        const char *i = end + 1;
        if (!isdigit((unsigned char)*i) && *i != '.')
            return false;
        inc = strtod(i, &end);
    }
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || !(base > 0 && base <= 86400) || !(inc >= 0 && inc <= 3600))
        return false;
    t.base_ms = (int)(base * 1000.0 + 0.5);
    t.inc_ms = (int)(inc * 1000.0 + 0.5);
    if (t.base_ms < 1)
        return false;
    *tc = t;
    return true;
}

void time_control_format(const TimeControl *tc, char *buf, size_t n)
{
    if (tc->base_ms <= 0) {
        snprintf(buf, n, "%s", "");
        return;
    }
    char moves[16] = "";
    if (tc->moves > 0)
        snprintf(moves, sizeof moves, "%d/", tc->moves);
    snprintf(buf, n, "%s%g+%g", moves, tc->base_ms / 1000.0, tc->inc_ms / 1000.0);
}
