#!/usr/bin/env bash
# End-to-end checks of [openings] file with fewer openings than the plan:
# refused without cycle = yes (no store made); with cycle = yes and
# order = random the run plays the planned number of games, warns that
# reproducible games repeat, starts from every opening of the file, and gives
# the same games on 1 and 2 threads (and, with --mpi and a build with
# -DTAVRELI_MPI=ON, on 2 ranks); --resume may add cycle = yes and pairs, not
# change the order.
# usage: test_openings.sh PATH/TO/tavreli SOURCE_DIR [--mpi]
set -u
tv=$1
src=$2
mpi_too=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, write_test_configs

write_test_configs "$tmp" "$src"
# three openings; t.ini plays 16 pairs of depth 1 against depth 2
{ echo startpos; "$tv" replay e2-e4 | head -1; "$tv" replay d2-d4 | head -1; } >"$tmp/open.txt"
# 5 pairs of short games
sed 's/^pairs = 16/pairs = 5/; s/^max_plies = 120/max_plies = 40/; s/^plies = 4/file = open.txt/' "$tmp/t.ini" \
  >"$tmp/short.ini"

"$tv" selfplay "$tmp/short.ini" --out "$tmp/short.h5" --quiet >"$tmp/o" 2>"$tmp/e"
check "too few openings without cycle: exit 1" [ $? = 1 ]
check "... naming the INI line, both counts and the ways out" \
  grep -q "short.ini:7: the openings file '.*open.txt' has 3 openings, but the plan needs 5 (one per round: pairs = 5), so the rest would repeat them: give more openings, fewer pairs, or set \[openings\] cycle = yes" "$tmp/e"
check "... and no store is made" [ ! -e "$tmp/short.h5" ]

sed 's/^file = open.txt/file = open.txt\ncycle = yes\norder = random/' "$tmp/short.ini" >"$tmp/cycle.ini"
"$tv" selfplay "$tmp/cycle.ini" --out "$tmp/c1.h5" --threads 1 --quiet >"$tmp/o" 2>"$tmp/e"
check "cycle = yes, order = random: the run succeeds" [ $? = 0 ]
check "... with the planned 10 games" grep -q "10 of 10 planned" "$tmp/o"
check "... warning that reproducible games repeat" \
  grep -q "has 3 openings and the plan needs 5: 4 of 10 games start from an opening played before" "$tmp/e"
"$tv" export "$tmp/c1.h5" --digest "$tmp/c1.dig" --tgn "$tmp/c1.tgn" >/dev/null 2>&1
check "... 10 games stored" [ "$(wc -l <"$tmp/c1.dig")" = 10 ]
starts=$(grep -c '^\[Round' "$tmp/c1.tgn")
distinct=$(awk '/^\[Round/ {n++} /^\[TFEN/ {t[n] = $0} END {for (i = 1; i <= n; i++) s[t[i]] = 1; print length(s)}' "$tmp/c1.tgn")
check "... $starts games from $distinct distinct start positions (3 expected)" [ "$distinct" = 3 ]
"$tv" selfplay "$tmp/cycle.ini" --out "$tmp/c2.h5" --threads 2 --quiet >/dev/null 2>&1
"$tv" export "$tmp/c2.h5" --digest "$tmp/c2.dig" >/dev/null 2>&1
check "order = random: the same games on 2 threads as on 1" cmp -s "$tmp/c1.dig" "$tmp/c2.dig"
if [ "$mpi_too" = --mpi ]; then # as tests/test_mpi.sh runs Open MPI
  source "$src/tests/mpi_env.sh"; mpi_test_env "$src" # Open MPI in containers, under ASan
  mpi=(mpirun --oversubscribe)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  "${mpi[@]}" -np 2 "$tv" selfplay "$tmp/cycle.ini" --out "$tmp/m.h5" --threads 1 --quiet >/dev/null 2>&1
  "$tv" export "$tmp/m.h5" --digest "$tmp/m.dig" >/dev/null 2>&1
  check "order = random: the same games on 2 MPI ranks as in one process" cmp -s "$tmp/c1.dig" "$tmp/m.dig"
fi
sed 's/^order = random/order = sequential/' "$tmp/cycle.ini" >"$tmp/seq.ini"
"$tv" selfplay "$tmp/seq.ini" --out "$tmp/seq.h5" --threads 1 --quiet >/dev/null 2>&1
"$tv" export "$tmp/seq.h5" --digest "$tmp/seq.dig" >/dev/null 2>&1
check "... and not the games of the file's order" sh -c "! cmp -s '$tmp/c1.dig' '$tmp/seq.dig'"

# --resume: 3 pairs need no cycle; then 5 pairs with cycle = yes continue the
# store and give the games of an uninterrupted run; another order is refused
sed 's/^pairs = 5/pairs = 3/; /^cycle = yes/d' "$tmp/cycle.ini" >"$tmp/three.ini"
"$tv" selfplay "$tmp/three.ini" --out "$tmp/r.h5" --quiet >"$tmp/o" 2>"$tmp/e"
check "3 pairs from 3 openings need no cycle" grep -q "6 of 6 planned" "$tmp/o"
"$tv" selfplay "$tmp/cycle.ini" --out "$tmp/r.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "--resume with more pairs and cycle = yes continues" grep -q "4 games stored this run (6 before), 10 of 10 planned" "$tmp/o"
"$tv" export "$tmp/r.h5" --digest "$tmp/r.dig" >/dev/null 2>&1
check "... giving the games of the uninterrupted run" cmp -s "$tmp/c1.dig" "$tmp/r.dig"
sed 's/^order = random/start = 2/' "$tmp/cycle.ini" >"$tmp/start2.ini"
"$tv" selfplay "$tmp/start2.ini" --out "$tmp/r.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "--resume with another order or start is refused" grep -q "\[openings\] differ" "$tmp/e"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
