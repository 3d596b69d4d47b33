#!/usr/bin/env bash
# End-to-end checks of `tavreli train`: bad configurations are refused with
# the file and line; a run of three generations, two of them accepted by
# their SPRT, finishes in one command and leaves every file of every
# generation; a SIGTERM after an accepted SPRT stops the run cleanly (exit
# 143, naming the signal and its sender); a run stopped so and killed (kill
# -9) at random moments and rerun until it finishes gives the same outcomes
# and the same games as an uninterrupted run; a rerun with other settings is
# refused; `tavreli report` on the folder writes the ladder.
# usage: test_train.sh PATH/TO/tavreli SOURCE_DIR
set -u
tv=$1
src=$(cd "$2" && pwd)
source "$(dirname "$0")/train_common.sh" # check, $tmp, write_train_ini

# Three generations, seed 3 (a tuned version no worse than the best is
# accepted in 3 pairs with this seed), confirmations of 4 pairs.
write_train_ini 3 3 4

# bad configurations: file and line
printf '[train]\nengine = %s\ngames = 1\n' "$src/configs/engines/default.ini" >"$tmp/bad1.ini"
"$tv" train "$tmp/bad1.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "games out of range is refused with its line" grep -q "bad1.ini:3: \[train\] games '1' must be a whole number from 2" "$tmp/e"
printf '[train]\nengine = %s\ncolour = blue\n' "$src/configs/engines/default.ini" >"$tmp/bad2.ini"
"$tv" train "$tmp/bad2.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "an unknown key is refused with its line" grep -q "bad2.ini:3: unknown key 'colour' in \[train\]" "$tmp/e"
printf '[train]\nengine = %s\nelo0 = 5\nelo1 = 5\n' "$src/configs/engines/default.ini" >"$tmp/bad3.ini"
"$tv" train "$tmp/bad3.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "elo0 >= elo1 is refused" grep -q "needs elo0 < elo1" "$tmp/e"
printf '[train]\nengine = %s\ngames = 10\ngames = 12\n' "$src/configs/engines/default.ini" >"$tmp/bad5.ini"
"$tv" train "$tmp/bad5.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "a key given twice is refused with both lines" \
  grep -q "bad5.ini:4: \[train\] games is given twice (first at line 3): give it once" "$tmp/e"
printf '[train]\nengine = nowhere.ini\n' >"$tmp/bad4.ini"
"$tv" train "$tmp/bad4.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "a missing engine file is refused" grep -q "nowhere.ini" "$tmp/e"
check "nothing was made for bad configurations" [ ! -e "$tmp/b" ]

# an uninterrupted run: every generation in one command, even after an SPRT
# decided (the decision once set the signal flag: the next generation
# stored 0 games and the command exited 130, "interrupted by signal 0")
# (it plays while the stopped and killed run below goes on: they share nothing)
"$tv" train "$tmp/t.ini" --out "$tmp/a" >"$tmp/a.out" 2>&1 &
apid=$!
uninterrupted() {
  wait $apid
  rc=$?
  check "the run finishes in one command (exit $rc)" [ $rc = 0 ]
  check "the run finishes" grep -q "^3 generations; the best is gen-" "$tmp/a.out"
  check "two generations or more are accepted by their SPRT" [ "$(grep -c ' result  *accepted' "$tmp/a.out")" -ge 2 ]
  check "no signal is reported" sh -c "! grep -q 'interrupted' '$tmp/a.out'"
  # every match reports its progress (a generation's 2,000 games once ran an
  # hour with no line): the self-play's last line and an SPRT's
  check "the self-play reports its progress with an ETA" grep -q "games/min | ETA done" "$tmp/a.out"
  check "the SPRT reports its LLR as it plays" grep -q "LLR" "$tmp/a.out"
  for g in 1 2 3; do
    for f in best.ini selfplay.ini selfplay.h5 tuned.ini tune.log result; do
      check "gen-$g/$f is kept" [ -s "$tmp/a/gen-$g/$f" ]
    done
  done
  check "train.ini is kept" cmp -s "$tmp/t.ini" "$tmp/a/train.ini"
}

# a real SIGTERM after an accepted SPRT, in the next generation, stops the
# run cleanly: exit 143, the signal and who sent it
"$tv" train "$tmp/t.ini" --out "$tmp/k" >"$tmp/s.out" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do # up to 120 s: a loaded machine
  grep -A1 ' result  *accepted' "$tmp/s.out" | grep -qE ' (self-play|confirm) ' && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "SIGTERM after an accepted SPRT: exit 143 (got $rc)" [ $rc = 143 ]
check "SIGTERM after an accepted SPRT: the message names it" \
  grep -q "^interrupted by signal 15 (sent by process $$) after [0-9]* complete generations" "$tmp/s.out"

# killed at random moments, rerun until it finishes: the same outcomes and games
for i in 1 2 3; do
  "$tv" train "$tmp/t.ini" --out "$tmp/k" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v s=$RANDOM 'BEGIN {srand(s); printf "%.2f", 0.3 + rand() * 3}')"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
"$tv" train "$tmp/t.ini" --out "$tmp/k" >"$tmp/k.out" 2>&1
check "the resumed run finishes" grep -q "^3 generations; the best is gen-" "$tmp/k.out"
uninterrupted
for g in 1 2 3; do
  check "gen-$g: the same outcome after kills" cmp -s "$tmp/a/gen-$g/result" "$tmp/k/gen-$g/result"
  for s in selfplay sprt; do
    [ -e "$tmp/a/gen-$g/$s.h5" ] || continue
    "$tv" export "$tmp/a/gen-$g/$s.h5" --digest "$tmp/a.dig" >/dev/null 2>&1
    "$tv" export "$tmp/k/gen-$g/$s.h5" --digest "$tmp/k.dig" >/dev/null 2>&1
    # an SPRT decides on the pairs completed in plan order; games that were
    # in flight when it decided may or may not be stored (timing): compare
    # the games the decision counted
    n=$(wc -l <"$tmp/a.dig")
    [ $s = sprt ] && n=$((2 * $(sed -n 's/^pairs = //p' "$tmp/a/gen-$g/result")))
    check "gen-$g/$s.h5: the same $n games after kills" cmp -s <(head -n "$n" "$tmp/a.dig") <(head -n "$n" "$tmp/k.dig")
  done
done
# a rerun of a finished run plays nothing
"$tv" train "$tmp/t.ini" --out "$tmp/a" >"$tmp/r.out" 2>&1
check "a finished run is skipped" [ "$(grep -c ' skip ' "$tmp/r.out")" = 3 ]
# other settings are refused
sed 's/^games = 40/games = 42/' "$tmp/t.ini" >"$tmp/t2.ini"
"$tv" train "$tmp/t2.ini" --out "$tmp/a" >/dev/null 2>"$tmp/e"
check "a rerun with other settings is refused" grep -q "holds a run of other settings" "$tmp/e"
# an edited start engine is refused, naming what differs (issue 34: the run
# went on from its copy of the old one without a word)
cp "$tmp/flat.ini" "$tmp/flat.keep"
printf '[engine]\nname = flat\n[weights]\ntop_value = 300, 300, 300, 300, 300, 310\n' >"$tmp/flat.ini"
"$tv" train "$tmp/t.ini" --out "$tmp/a" >/dev/null 2>"$tmp/e"
check "a rerun with an edited start engine is refused" \
  grep -q "was begun from another version of its start engine .*flat.ini .*other weights (top_value\[5\]): 300 in the copy it began with, 310 in it now" "$tmp/e"
cp "$tmp/flat.keep" "$tmp/flat.ini"

# the ladder
"$tv" report "$tmp/a" >"$tmp/rep.out" 2>&1
check "report on a training folder draws the ladder" sh -c "[ -s '$tmp/a/report/ladder.md' ] && [ -s '$tmp/a/report/elo.png' ] && grep -q '^gen-0 ' '$tmp/rep.out'"
check "... its conditions: the engines' limits, the builds and the hosts with their threads (issue 35: none)" \
  sh -c "grep -q '^## Conditions' '$tmp/a/report/ladder.md' && grep -q 'Engines: gen-[0-9]*: depth 1' '$tmp/a/report/ladder.md' && grep -q 'Hosts: [^ ]* ([0-9]* rank' '$tmp/a/report/ladder.md'"
check "... its HTML shows commands as code, not raw backticks" \
  sh -c "grep -q '<code>' '$tmp/a/report/report.html' && ! grep -q '\`' '$tmp/a/report/report.html'"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
