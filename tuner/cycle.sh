#!/usr/bin/env bash
# One tuning cycle, end to end:
#   1. self-play: the current version against itself (paired openings)
#   2. tune: fit the weights to those games (Texel tuning)
#   3. verification match: new against old on other paired openings
#   4. report: Elo change with its 95% interval (and the tuning log)
#
# usage: tuner/cycle.sh [START.ini] [OUTDIR] [SELFPLAY_GAMES] [MATCH_GAMES] [DEPTH]
# defaults: configs/engines/default.ini results/cycle 400 200 3
# Run from the project root after building (build/tavreli).
set -euo pipefail
start=${1:-configs/engines/default.ini}
out=${2:-results/cycle}
sp_games=${3:-400}
match_games=${4:-200}
depth=${5:-3}
tv=${TAVRELI:-build/tavreli}
[ -x "$tv" ] || { echo "cycle: $tv not found: build first (cmake --build build)" >&2; exit 1; }
[ -f "$start" ] || { echo "cycle: no engine file $start" >&2; exit 1; }

mkdir -p "$out/engines"
cp "$start" "$out/engines/old.ini"

cat >"$out/selfplay.ini" <<EOI
; written by tuner/cycle.sh: the current version against itself
[tournament]
name = cycle-selfplay
pairs = $((sp_games / 2))
seed = 101
[engine old-a]
path = engines/old.ini
depth = $depth
[engine old-b]
path = engines/old.ini
depth = $depth
EOI

echo "== 1/4 self-play: $sp_games games at depth $depth"
"$tv" selfplay "$out/selfplay.ini" --out "$out/selfplay.h5" --force --quiet

echo "== 2/4 tune"
"$tv" tune --data "$out/selfplay.h5" --engine "$out/engines/old.ini" --out "$out/engines/new.ini" \
  --log "$out/tune.log" --seed 1

cat >"$out/verify.ini" <<EOI
; written by tuner/cycle.sh: the tuned version against the one it came from
[tournament]
name = cycle-verify
pairs = $((match_games / 2))
seed = 202
[engine new]
path = engines/new.ini
depth = $depth
[engine old]
path = engines/old.ini
depth = $depth
EOI

echo "== 3/4 verification match: $match_games games, new vs old"
"$tv" selfplay "$out/verify.ini" --out "$out/verify.h5" --force --quiet

echo "== 4/4 report"
"$tv" report "$out/verify.h5" --tuning-log "$out/tune.log" -o "$out/report" >/dev/null
echo "new vs old (W, D, L, score, Elo ± 95%, nElo ± 95%):"
grep '^| new vs old ' "$out/report/report.md" || grep '^| old vs new ' "$out/report/report.md"
echo "report: $out/report/report.html"
