#!/usr/bin/env bash
# Sudden-death clocks (`tc = BASE`, no increment): a side whose clock runs
# out (0 ms, or below by up to `timemargin`) still moves at once, in-process
# and as `tavreli uci` over the protocol; tournaments at tc = 0.3 and
# tc = 0.05 finish, every game is stored and verifies, each game ends by the
# rules, adjudication or a time forfeit.  Before the fix a search given 0 ms
# had no limit at all: in-process games at tc = 0.3 searched for minutes and
# `tavreli uci` never answered `go wtime 0` (its own rows:
# tests/test_uci_engine.c).
# usage: test_sudden_death.sh TAVRELI SOURCE_DIR
set -u
tv=$(readlink -f "$1") src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check
cp "$src/configs/engines/default.ini" "$tmp/default.ini"

# sudden_death NAME TC: 2 pairs of each pairing of an in-process engine, a
# second in-process one and `tavreli uci`, all at tc = TC; games of up to
# 400 plies without resignation or draw adjudication, so that clocks run out
sudden_death() {
  local name=$1 tc=$2 f="$tmp/$1"
  cat >"$f.ini" <<EOI
[tournament]
name = $name
format = round-robin
pairs = 2
seed = 11
threads = 2
[openings]
plies = 4
[adjudication]
max_plies = 400
resign_score = 0
draw_moves = 0
[engine inproc]
path = default.ini
tc = $tc
[engine inproc2]
path = default.ini
tc = $tc
[engine proto]
command = $tv uci --engine default.ini
tc = $tc
EOI
  # a search that never ends would hold the run for ever: 240 s is far above
  # what 12 games of at most 2 x tc plus margins take on a loaded machine
  timeout 240 "$tv" selfplay "$f.ini" --out "$f.h5" --quiet >"$f.out" 2>&1
  local rc=$?
  check "tc = $tc: the tournament finishes (exit $rc)" [ $rc -eq 0 ]
  "$tv" verify "$f.h5" >"$f.verify" 2>&1
  check "tc = $tc: all 12 games stored and verified" grep -q "12 games replayed, 0 with problems" "$f.verify"
  check "tc = $tc: games end only by the rules, adjudication or time forfeit" \
    sh -c "! grep -Eq 'engine_(died|stalled) [1-9]|illegal_move [1-9]' '$f.verify'"
}
sudden_death sd03 0.3
sudden_death sd005 0.05

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
