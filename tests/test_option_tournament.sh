#!/bin/bash
# test_option_tournament.sh TAVRELI SOURCE_DIR: option.NAME = VALUE in a
# tournament's [engine X] on the built-in engine (path =): `option.lmr = no`
# changes its games, and they are exactly the games of a copied engine INI
# with `lmr = no`; `option.lmr = 0` is the same; the same line on
# `tavreli uci` (command =) is sent with setoption and plays the same games.
set -u
tv=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && echo "kept $tmp"
. "$src/tests/selfplay_common.sh"

mkdir -p "$tmp/engines"
cp "$src/configs/engines/default.ini" "$tmp/engines/default.ini"
sed 's/^lmr = yes$/lmr = no/' "$src/configs/engines/default.ini" >"$tmp/engines/nolmr.ini"
check "the copied INI says lmr = no" grep -qx 'lmr = no' "$tmp/engines/nolmr.ini"

# tournament NAME ENGINE_A_LINES: 4 games of A against the default at depth 4
# (deep enough that late-move reductions change the moves)
tournament() {
  cat >"$tmp/$1.ini" <<EOI
[tournament]
name = option-test
pairs = 2
seed = 11
threads = 1
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 40
[engine a]
$2
depth = 4
[engine b]
path = engines/default.ini
depth = 4
EOI
}
play() {
  "$tv" selfplay "$tmp/$1.ini" --out "$tmp/$1.h5" --quiet >"$tmp/$1.out" 2>&1 &&
    "$tv" export "$tmp/$1.h5" --digest "$tmp/$1.dig" >/dev/null 2>&1
}

tournament plain "path = engines/default.ini"
tournament copied "path = engines/nolmr.ini"
tournament option_no "path = engines/default.ini
option.lmr = no"
tournament option_0 "path = engines/default.ini
option.lmr = 0"
tournament uci_no "command = $tv uci --engine engines/default.ini
option.lmr = no"
# the five runs are independent, one thread each: side by side
declare -A pid
for t in plain copied option_no option_0 uci_no; do
  play $t &
  pid[$t]=$!
done
for t in plain copied option_no option_0 uci_no; do
  check "$t plays" wait "${pid[$t]}"
  [ -s "$tmp/$t.dig" ] || { echo "$t:"; cat "$tmp/$t.out"; }
done
differ() { ! cmp -s "$1" "$2"; }
check "option.lmr = no changes the games of a path = engine" differ "$tmp/plain.dig" "$tmp/option_no.dig"
check "option.lmr = no plays the games of a copied INI with lmr = no" cmp -s "$tmp/copied.dig" "$tmp/option_no.dig"
check "option.lmr = 0 is option.lmr = no" cmp -s "$tmp/option_no.dig" "$tmp/option_0.dig"
check "option.lmr = no on tavreli uci (command =) plays the same games" cmp -s "$tmp/option_no.dig" "$tmp/uci_no.dig"

# refused: the error names the file, line, option and its bounds
tournament bad "path = engines/default.ini
option.lmr_moves = 201"
"$tv" selfplay "$tmp/bad.ini" --out "$tmp/bad.h5" --quiet >"$tmp/bad.out" 2>&1
rc=$?
check "an option out of bounds is refused" [ $rc -ne 0 ]
check "... naming file:line, the option and its bounds" grep -q \
  "bad.ini:14: \[engine a\] option.lmr_moves = 201: option lmr_moves takes a whole number from 1 to 200, not '201'" \
  "$tmp/bad.out"
[ $fails -eq 0 ] || cat "$tmp/bad.out"

# --dry-run starts each program as the run would (issue 36: a wrong path and
# an option the program does not declare passed with exit 0, and Slurm's
# --check is built on it), and writes nothing
tournament dry1 "command = $tmp/no-such-engine uci"
(cd "$tmp" && "$tv" selfplay dry1.ini --out "$tmp/dry1.h5" --dry-run) >"$tmp/dry1.out" 2>&1
check "--dry-run: a program that is not there fails (exit 1)" [ $? = 1 ]
check "... saying so" grep -q "engine 'a': cannot run '.*no-such-engine'" "$tmp/dry1.out"
(cd "$tmp" && "$tv" selfplay dry1.ini --out "$tmp/dry1.h5" --quiet) >"$tmp/dry1r.out" 2>&1
check "a run whose program is not there fails" [ $? = 1 ]
check "... leaving no empty stderr log beside the store (issue 36)" [ ! -e "$tmp/dry1.a.log" ]
tournament slow "path = engines/default.ini
tc = 2000+50"
(cd "$tmp" && "$tv" selfplay slow.ini --out "$tmp/slow.h5" --dry-run) >"$tmp/slow.out" 2>&1
check "tc = 2000+50 (a slip of units) is warned of: a game may take hours (issue 36)" \
  grep -q "warning: engine 'a': tc gives each side 2000 s and 50 s a move, so a game may take 2.8 hours" "$tmp/slow.out"
tournament fast "path = engines/default.ini
tc = 10+0.1"
(cd "$tmp" && "$tv" selfplay fast.ini --out "$tmp/fast.h5" --dry-run) >"$tmp/fast.out" 2>&1
check "... tc = 10+0.1 is not" sh -c "! grep -q 'warning: engine' '$tmp/fast.out'"
tournament dry2 "command = $tv uci
option.no_such_option = 3"
(cd "$tmp" && "$tv" selfplay dry2.ini --out "$tmp/dry2.h5" --dry-run) >"$tmp/dry2.out" 2>&1
check "--dry-run: an option the program does not declare fails (exit 1)" [ $? = 1 ]
check "... naming it" grep -q "has no option 'no_such_option'" "$tmp/dry2.out"
tournament dry3 "command = $tv uci
option.lmr = no
log = $tmp/dry3.proto
stderr = $tmp/dry3.err"
(cd "$tmp" && "$tv" selfplay dry3.ini --out "$tmp/dry3.h5" --dry-run) >"$tmp/dry3.out" 2>&1
check "--dry-run: a program that starts and takes its options passes" [ $? = 0 ]
check "... saying what answered" grep -q "^engine 'a': .* started and answered as 'tavreli .*'.*, 1 option set; ended" \
  "$tmp/dry3.out"
check "... and writes nothing: no store, no protocol log, no stderr file" \
  sh -c "[ ! -e '$tmp/dry3.h5' ] && [ ! -e '$tmp/dry3.proto' ] && [ ! -e '$tmp/dry3.err' ] && [ ! -e '$tmp/dry3.a.log' ]"
[ $fails -eq 0 ] || cat "$tmp/dry1.out" "$tmp/dry2.out" "$tmp/dry3.out"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
