#!/usr/bin/env bash
# The training ladder from confirmation games (tavreli train, step 5 in
# tuner/train.h): a small run whose accepted generations are confirmed
# against gen-0 and the previous best; the ladder's interval of the best
# generation holds the result of a separate direct match of it against
# gen-0 (tavreli selfplay, other openings); the report and train's printed
# ladder say how each rung was measured; an unconfirmed ladder counts only
# the SPRT games the decisions counted; `tavreli train --confirm DIR` on
# the run without its confirmations, killed (kill -9) at random moments and
# rerun, plays the same confirmation games again.
# usage: test_train_confirm.sh PATH/TO/tavreli
set -u
tv=$1
source "$(dirname "$0")/train_common.sh" # check, $tmp, write_train_ini

# accepted generations clearly stronger than gen-0, each confirmed with 40 pairs
write_train_ini 2 5 40

"$tv" train "$tmp/t.ini" --out "$tmp/a" >"$tmp/a.out" 2>&1
rc=$?
check "the run finishes (exit $rc)" [ $rc = 0 ]
accepted=$(grep ' result  *accepted' "$tmp/a.out" | sed 's/^gen \([0-9]*\) .*/\1/')
best=$(sed -n 's/^2 generations; the best is gen-\([0-9]*\) .*/\1/p' "$tmp/a.out")
check "two generations or more are accepted" [ "$(echo $accepted | wc -w)" -ge 2 ]
check "the best is an accepted generation" [ -n "$best" -a "$best" != 0 ]
prev=0
for g in $accepted; do
  check "gen-$g is confirmed against gen-0" [ -s "$tmp/a/gen-$g/confirm-gen-0.h5" ]
  [ $prev != 0 ] && check "gen-$g is confirmed against gen-$prev" [ -s "$tmp/a/gen-$g/confirm-gen-$prev.h5" ]
  check "gen-$g/confirmed is written" [ -s "$tmp/a/gen-$g/confirmed" ]
  check "train's ladder: gen-$g measured by the confirmation games" \
    grep -q "^gen-$g .*its confirmation games against gen-0" "$tmp/a.out"
  prev=$g
done

# the ladder from the report
"$tv" report "$tmp/a" >"$tmp/rep.out" 2>&1
check "report names the method" grep -q "its confirmation games against gen-0 (score Elo)" "$tmp/a/report/ladder.md"
check "report's table: the method of gen-$best" grep -q "^gen-$best .*its confirmation games against gen-0" "$tmp/rep.out"
read -r lo hi <<<"$(sed -n "s/^gen-$best .*\[ *\([-+0-9.]*\), *\([-+0-9.]*\)\].*/\1 \2/p" "$tmp/rep.out")"

# a direct match of the best against gen-0, other openings
cat >"$tmp/d.ini" <<EOI
[tournament]
name = direct
pairs = 150
seed = 777
[openings]
plies = 6
[adjudication]
max_plies = 120
[engine gen-$best]
path = $tmp/a/gen-$best/tuned.ini
depth = 1
[engine gen-0]
path = $tmp/a/gen-0/best.ini
depth = 1
EOI
# (it plays while the checks of the unconfirmed run below go on; its
# result is read after them)
"$tv" selfplay "$tmp/d.ini" --out "$tmp/d.h5" >/dev/null 2>"$tmp/d.err" &
dpid=$!
direct_match() {
  wait $dpid
  # the last progress line: "games 300/300 | gen-B-gen-0 +W=D-L ..."; whole
  # Elo like the ladder's bounds (rounding keeps x in [lo, hi] inside the
  # rounded bounds)
  direct=$(grep '^games 300/300' "$tmp/d.err" | tail -1 | sed 's/.* +\([0-9]*\)=\([0-9]*\)-\([0-9]*\) .*/\1 \2 \3/' |
    awk '{s = ($1 + $2 / 2) / ($1 + $2 + $3); printf "%.0f", -400 * log(1 / s - 1) / log(10)}')
  echo "gen-$best against gen-0: ladder [$lo, $hi], direct match $direct"
  check "the ladder's interval of gen-$best [$lo, $hi] holds the direct match's $direct" \
    awk -v d="$direct" -v lo="$lo" -v hi="$hi" 'BEGIN {exit !(d != "" && lo != "" && d + 0 >= lo + 0 && d + 0 <= hi + 0)}'
}

# the same run without its confirmations: the ladder from the SPRT games,
# only those the decisions counted
cp -r "$tmp/a" "$tmp/c"
rm -rf "$tmp"/c/gen-*/confirm* "$tmp/c/report"
"$tv" report "$tmp/c" >"$tmp/c.out" 2>&1
check "unconfirmed: the report says so" grep -q "^gen-$best .*SPRT games only" "$tmp/c.out"
declare -A want
bestnow=0
for g in 1 2; do
  pairs=$(sed -n 's/^pairs = //p' "$tmp/a/gen-$g/result")
  if [ -e "$tmp/a/gen-$g/sprt.h5" ]; then
    want[$g]=$(( ${want[$g]:-0} + 2 * pairs ))
    want[$bestnow]=$(( ${want[$bestnow]:-0} + 2 * pairs ))
  fi
  bestnow=$(sed -n 's/^best = //p' "$tmp/a/gen-$g/result")
done
for g in $accepted; do
  got=$(sed -n "s/^gen-$g .*\] *\([0-9]*\) .*/\1/p" "$tmp/c.out")
  check "unconfirmed gen-$g: the $got SPRT games are those the decisions counted (${want[$g]})" [ "$got" = "${want[$g]}" ]
done

# --confirm on it, killed at random moments and rerun: the same games
for i in 1 2; do
  "$tv" train --confirm "$tmp/c" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v s=$RANDOM 'BEGIN {srand(s); printf "%.2f", 0.3 + rand() * 2}')"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
"$tv" train --confirm "$tmp/c" >"$tmp/cf.out" 2>&1
rc=$?
check "--confirm finishes (exit $rc)" [ $rc = 0 ]
check "--confirm prints the ladder from the confirmation games" grep -q "^gen-$best .*its confirmation games against gen-0" "$tmp/cf.out"
for f in "$tmp"/a/gen-*/confirm-gen-*.h5; do
  rel=${f#"$tmp/a/"}
  "$tv" export "$f" --digest "$tmp/a.dig" >/dev/null 2>&1
  "$tv" export "$tmp/c/$rel" --digest "$tmp/c.dig" >/dev/null 2>&1
  check "--confirm after kills: $rel holds the same games" cmp -s "$tmp/a.dig" "$tmp/c.dig"
done
check "--confirm: the same ladder" cmp -s <(grep '^gen-' "$tmp/rep.out") <(grep '^gen-' "$tmp/cf.out")
"$tv" train --confirm "$tmp/nowhere" >/dev/null 2>"$tmp/e"
check "--confirm on a folder that is not a run is refused" grep -q "is not a training folder" "$tmp/e"

direct_match

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
