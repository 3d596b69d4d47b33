#!/usr/bin/env bash
# What a run of separate programs says it played and stored: every finished
# game is stored whatever stops the run, and the messages count what the
# store holds (a crash between games, a failed write); a failed engine start
# leaves no store behind; referee terminations are counted and announced;
# two engines' standings give their difference as the progress line does.
# usage: test_runner_messages.sh TAVRELI FAKE_ENGINE SOURCE_DIR
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") src=$3
tmp=$(mktemp -d)
mnt=""
cleanup() {
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
source "$src/tests/selfplay_common.sh" # check

# same_text A B: A is not empty and equals B
same_text() { [ -n "$1" ] && [ "$1" = "$2" ]; }

# the number of games a store holds (0 when it cannot be read)
count_games() {
  "$tv" export "$1" --digest "$tmp/count.dig" >/dev/null 2>&1 && wc -l <"$tmp/count.dig" || echo 0
}

# tournament FILE PAIRS ENGINE_A_LINES ENGINE_B_LINES (tests/selfplay_common.sh)
tournament() { fake_tournament "$1" msg "$2" "$3" "$4"; }

# ---- a crash between games: the game is begun again with a fresh process ----
# b aborts at its 30th ucinewgame (one thread: one process plays every
# game), after 29 finished games: nothing of game 29 was played, so it is
# begun again with a fresh process (which then plays the rest); the run
# goes on (issue 35: it stopped with exit 1 before)
tournament "$tmp/crash.ini" 20 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode crash-newgame --after 30
depth = 1"
"$tv" selfplay "$tmp/crash.ini" --out "$tmp/crash.h5" --quiet >"$tmp/crash.out" 2>"$tmp/crash.err"
rc=$?
check "crash at the 30th ucinewgame: the run goes on to its end (exit $rc)" [ $rc -eq 0 ]
stored=$(count_games "$tmp/crash.h5")
check "... every one of the 40 games is stored ($stored)" [ "$stored" -eq 40 ]
check "... and the store verifies" grep -q "40 games replayed, 0 with problems" <("$tv" verify "$tmp/crash.h5" 2>&1)
check "... a warning says game 29 is begun again with a fresh process" \
  grep -q "^warning: engine 'b' .*; game 29 is begun again with a fresh process in 1 s (attempt 2 of 3)$" "$tmp/crash.err"
# one wording whichever comes first, its input closing or its output (it
# said 'closed its input before a new game' or 'ended before answering ...
# (killed by signal 6 ...)' by a race): the cause the process gives
check "... the cause named one way: the signal that ended it" \
  grep -q "engine 'b' (.*): it ended at a new game, before its 'readyok' ('ucinewgame', 'isready'): killed by signal 6 (Aborted)" \
  "$tmp/crash.err"
[ "$stored" -eq 40 ] || cat "$tmp/crash.err"

# ---- a write failure: the message counts what the store holds ----
# a small tmpfs fills up during the run (root only; skipped elsewhere)
cp "$src/configs/engines/default.ini" "$tmp/default.ini"
cat >"$tmp/full.ini" <<EOI
[tournament]
name = full
pairs = 100
seed = 3
threads = 1
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 120
[engine a]
path = default.ini
depth = 1
[engine b]
path = default.ini
depth = 2
EOI
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=160k tmpfs "$tmp/small" 2>/dev/null; then
  mnt="$tmp/small"
  # a store on it; then one that a resume fills (the disk filled by another file)
  "$tv" selfplay "$tmp/full.ini" --out "$mnt/s.h5" --quiet >/dev/null 2>"$tmp/full.err"
  rc=$?
  stored=$(count_games "$mnt/s.h5")
  said=$(sed -n 's/^note: \([0-9]*\) games of this run are stored.*/\1/p' "$tmp/full.err")
  check "a full disk: the run fails (exit 1)" [ $rc -eq 1 ]
  check "... saying it is full" grep -q "errno = 28\|No space left" "$tmp/full.err"
  check "... and counting what the store holds ($said said, $stored stored)" [ "${said:-x}" = "$stored" ]
  check "... which verifies" grep -q "$stored games replayed, 0 with problems" <("$tv" verify "$mnt/s.h5" 2>&1)
  [ "${said:-x}" = "$stored" ] || cat "$tmp/full.err"
  rm -f "$mnt"/*
  "$tv" selfplay "$tmp/full.ini" --out "$mnt/r.h5" --games 8 --quiet >/dev/null 2>&1
  before=$(count_games "$mnt/r.h5")
  # leave 100 KiB: room for a batch of 16 games (about 60 KiB here), not for all
  avail=$(df -k --output=avail "$mnt" | tail -1)
  [ "$avail" -gt 100 ] && head -c $((avail - 100))k /dev/zero >"$mnt/filler" 2>/dev/null
  "$tv" selfplay "$tmp/full.ini" --out "$mnt/r.h5" --resume --quiet >/dev/null 2>"$tmp/resume.err"
  rc=$?
  after=$(count_games "$mnt/r.h5")
  said=$(sed -n 's/^note: \([0-9]*\) games of this run are stored.*/\1/p' "$tmp/resume.err")
  check "a resume that fills the disk: exit 1" [ $rc -eq 1 ]
  check "... counting what it added to the store ($said said, $before before, $after now)" \
    [ "${said:-0}" = $((after - before)) ]
  check "... which is some games (the disk filled after a batch)" [ "$after" -gt "$before" ]
  [ "${said:-0}" = $((after - before)) ] || cat "$tmp/resume.err"
  umount "$mnt" && mnt=""
else
  echo "skipped: the write-failure checks (cannot mount a small tmpfs here: they need root)"
fi

# ---- a failed engine start leaves no store; the fixed INI then runs ----
tournament "$tmp/start.ini" 2 "command = $fake --mode ok
depth = 1" "command = $tmp/no-such-engine
depth = 1"
"$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --quiet >/dev/null 2>"$tmp/start.err"
rc=$?
check "a missing program: exit 1" [ $rc -eq 1 ]
check "... naming it" grep -q "engine 'b': cannot run '$tmp/no-such-engine'" "$tmp/start.err"
check "... leaving no store" [ ! -e "$tmp/start.h5" ]
"$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --resume --quiet >/dev/null 2>"$tmp/start.err"
check "... so --resume says there is nothing to resume" \
  grep -q "nothing to resume: .*start.h5 does not exist (run without --resume to start it)" "$tmp/start.err"
tournament "$tmp/start.ini" 2 "command = $fake --mode ok
depth = 1" "command = $fake --mode ok --name fixed
depth = 1"
"$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --games 2 --quiet >"$tmp/fixed.out" 2>&1
check "the fixed INI runs without --force" grep -q "2 of 4 planned" "$tmp/fixed.out"
"$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --resume --quiet >"$tmp/fixed.out" 2>&1
check "... and --resume finishes it" grep -q "4 of 4 planned" "$tmp/fixed.out"
# an engine that starts (the check passes) but fails at the first game: the
# empty store the run made is removed
tournament "$tmp/first.ini" 2 "command = $fake --mode ok
depth = 1" "command = $fake --mode crash-newgame --after 1
depth = 1"
"$tv" selfplay "$tmp/first.ini" --out "$tmp/first.h5" --quiet >/dev/null 2>"$tmp/first.err"
rc=$?
check "a program dying at its first ucinewgame: exit 1" [ $rc -eq 1 ]
check "... once its game was begun 3 times ([tournament] game_attempts)" \
  grep -q "game 0 was begun 3 times and failed so each time: the run stops (\[tournament\] game_attempts = 3)" "$tmp/first.err"
check "... after two warnings, 1 s and 2 s apart" \
  bash -c "grep -q 'game 0 is begun again with a fresh process in 1 s (attempt 2 of 3)' '$tmp/first.err' &&
           grep -q 'game 0 is begun again with a fresh process in 2 s (attempt 3 of 3)' '$tmp/first.err'"
check "... no empty store is left" [ ! -e "$tmp/first.h5" ]
check "... and the message says so" grep -q "no game was stored: .*first.h5 was removed" "$tmp/first.err"

# ---- two engines: the standings give the difference of the progress line ----
sed 's/^pairs = 100/pairs = 10/; s/^name = full/name = two/' "$tmp/full.ini" >"$tmp/two.ini"
"$tv" selfplay "$tmp/two.ini" --out "$tmp/two.h5" >"$tmp/two.out" 2>"$tmp/two.err"
line_elo=$(grep '^games 20/20' "$tmp/two.err" | tail -1 | sed -n 's/.*| a-b +[0-9]*=[0-9]*-[0-9]* \([^|(]*[^|( ]\) .*/\1/p')
table_elo=$(sed -n 's/^[0-9]  *a  *\(.*[^ ]\)  *[0-9][0-9]*  *[0-9.]*%$/\1/p' "$tmp/two.out")
check "two engines: the standings give the progress line's difference ('$line_elo' and '$table_elo')" \
  same_text "$line_elo" "$table_elo"
# the standings' lines are one width in characters: '±' is two bytes, and a
# cell padded by bytes shifted the columns after it (failed before)
widths=$(grep -A2 '^rank engine' "$tmp/two.out" | LC_ALL=C.UTF-8 bash -c 'while IFS= read -r l; do echo ${#l}; done' | sort -u)
check "... its columns line up ('±' is one column; widths: $(echo $widths))" [ "$(echo "$widths" | wc -l)" = 1 ]

# ---- referee terminations: a line each, counted on the progress line and in the summary ----
tournament "$tmp/over.ini" 2 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode overtime --after 1 --seconds 1
depth = 1
tc = 0.2+0.01
timemargin = 50"
sed -i 's/^threads = 1/threads = 2/' "$tmp/over.ini"
"$tv" selfplay "$tmp/over.ini" --out "$tmp/over.h5" >"$tmp/over.out" 2>"$tmp/over.err"
rc=$?
check "an engine overstepping its clock: the tournament finishes" [ $rc -eq 0 ]
check "... a line per game it lost on time" [ "$(grep -c '^game [0-3]: b loses on time (\(white\|black\), [0-9]* ms over the margin, after [0-9]* pl\(y\|ies\), against a)$' "$tmp/over.err")" -eq 4 ]
check "... counted on the progress line" grep -q "^games 4/4 .* | lost by referee: b 4 time$" "$tmp/over.err"
check "... and in the summary" grep -qx "b lost 4 games by the referee: 4 time_forfeit" "$tmp/over.out"
# over REFEREE_NOTE_SHARE (2%) of its games: the summary says its Elo rests
# on them (a match mostly of forfeits printed an Elo and nothing else; issue 38)
check "... with a note that its Elo rests on them (4 of 4 games, over 2%)" \
  grep -q "^note: b lost 100.0% of its 4 games by the referee, not by play (over 2%): its Elo above rests on them" \
  "$tmp/over.out"
check "... and none for the engine that lost none" sh -c "! grep -q '^note: good lost' '$tmp/over.out'"
grep -q "lost by referee: b 4 time" "$tmp/over.err" || cat "$tmp/over.err"
"$tv" selfplay "$tmp/over.ini" --out "$tmp/over.h5" --force --quiet >"$tmp/over.out" 2>"$tmp/over.err"
check "--quiet: no line per game" [ "$(grep -c 'loses on time' "$tmp/over.err")" -eq 0 ]
check "... the summary still counts them" grep -qx "b lost 4 games by the referee: 4 time_forfeit" "$tmp/over.out"
# the referee's terminations of a store a run continues are counted too
"$tv" selfplay "$tmp/over.ini" --out "$tmp/over2.h5" --games 2 --quiet >/dev/null 2>&1
"$tv" selfplay "$tmp/over.ini" --out "$tmp/over2.h5" --resume --quiet >"$tmp/over.out" 2>&1
check "... also those stored before a --resume" grep -qx "b lost 4 games by the referee: 4 time_forfeit" "$tmp/over.out"

# ---- more threads than cores: a warning at the start ----
cores=$(nproc)
"$tv" selfplay "$tmp/two.ini" --out "$tmp/many.h5" --threads $((cores * 4)) --games 2 --quiet >/dev/null \
  2>"$tmp/many.err"
check "more game threads than cores: a warning" \
  grep -q "warning: $((cores * 4)) game threads need $((cores * 4)) cores, this machine has $cores" "$tmp/many.err"
tournament "$tmp/eth.ini" 1 "command = $fake --mode ok
depth = 1
option.Threads = $((cores + 1))" "command = $fake --mode ok
depth = 1"
"$tv" selfplay "$tmp/eth.ini" --out "$tmp/eth.h5" --quiet >/dev/null 2>"$tmp/eth.err"
check "an engine's option.Threads counts: a warning" grep -q "warning: 1 game thread x $((cores + 1)) engine threads (engine 'a', option.Threads) need $((cores + 1)) cores" "$tmp/eth.err"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
