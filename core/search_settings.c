/* search_settings.c: the search's settings, declared once in search.def
 * (name, type, default, range, meaning), and the time budget a clock gives
 * a move.  See search.h. */
#include "search.h"

#include <stddef.h>
#include <string.h>

const SearchSettingInfo SEARCH_SETTING_INFO[SEARCH_NSETTINGS] = {
#define S(name, type, def, lo, hi, meaning)                                                                   \
    {#name, SEARCH_SETTING_##type, (def), (lo), (hi), meaning, offsetof(SearchSettings, name)},
#include "search.def"
#undef S
};

_Static_assert(offsetof(SearchSettings, tt_mb) == offsetof(SearchSettings, hash_mb),
               "tt_mb must alias hash_mb: hash_mb is the first line of search.def");

void search_settings_default(SearchSettings *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < SEARCH_NSETTINGS; i++)
        *search_setting_field(s, i) = SEARCH_SETTING_INFO[i].def;
}

int *search_setting_field(SearchSettings *s, int i)
{
    return (int *)((char *)s + SEARCH_SETTING_INFO[i].offset);
}

int search_setting_value(const SearchSettings *s, int i)
{
    return *(const int *)((const char *)s + SEARCH_SETTING_INFO[i].offset);
}

int search_setting_find(const char *name)
{
    for (int i = 0; i < SEARCH_NSETTINGS; i++)
        if (!strcmp(name, SEARCH_SETTING_INFO[i].name))
            return i;
    return -1;
}

void search_time_budget(const SearchSettings *set, const SearchClock *clock, int side, int *soft_ms, int *hard_ms)
{
    *soft_ms = *hard_ms = 0;
    if (!clock)
        return;
    const int left = side == TV_WHITE ? clock->wtime_ms : clock->btime_ms;
    const int inc = side == TV_WHITE ? clock->winc_ms : clock->binc_ms;
    if (left <= 0) { /* a flag that has fallen (or is about to): the least search, at once */
        *soft_ms = *hard_ms = 1;
        return;
    }
    const double t = left > set->move_overhead_ms ? left - set->move_overhead_ms : 0;
    int moves = set->time_moves;
    if (clock->movestogo > 0 && clock->movestogo < moves)
        moves = clock->movestogo;
    const double base = t / moves + (inc > 0 ? inc * set->time_inc_pct / 100.0 : 0.0);
    double hard = base * set->time_hard_pct / 100.0;
    if (hard > t * set->time_max_pct / 100.0)
        hard = t * set->time_max_pct / 100.0;
    double soft = base * set->time_soft_pct / 100.0;
    if (soft > hard)
        soft = hard;
    *hard_ms = hard < 1 ? 1 : (int)hard;
    *soft_ms = soft < 1 ? 1 : (int)soft;
}
