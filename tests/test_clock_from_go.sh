#!/usr/bin/env bash
# The referee's clock counts from `go`, not from the `position`/`isready`
# round trip before it: a separate program that takes 300 ms to answer
# `isready` but moves at once is never forfeited at `movetime = 100`.
# Before the fix the deadline was set before `isready` was sent, so a slow
# (or merely held back, on a loaded machine) `readyok` used up the mover's
# time: every game was "b loses on time (..., 0 ms over the margin, ...)".
# An engine that really oversteps its clock still loses on time, by about
# the time it overstepped.
# usage: test_clock_from_go.sh PATH/TO/tavreli PATH/TO/fake_engine SOURCE_DIR
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, fake_tournament

# b: readyok after 300 ms, then bestmove at once; 100 ms + 50 ms margin a
# move; games of 12 plies (6 of b's moves, 2 s a game)
fake_tournament "$tmp/slow.ini" slowready 1 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode slow-ready --seconds 0.3 --name slowready
depth = 1
movetime = 100
timemargin = 50"
sed -i 's/^max_plies = .*/max_plies = 12/' "$tmp/slow.ini"
"$tv" selfplay "$tmp/slow.ini" --out "$tmp/slow.h5" --threads 1 >"$tmp/slow.out" 2>"$tmp/slow.err"
check "a slow isready: the tournament finishes" [ $? -eq 0 ]
check "... and no game is lost on time (the clock counts from go)" sh -c "! grep -q 'loses on time' '$tmp/slow.err'"
"$tv" verify "$tmp/slow.h5" >"$tmp/slow.verify" 2>&1
check "... the store has no time forfeit" sh -c "! grep -Eq 'time_forfeit [1-9]' '$tmp/slow.verify'"
# That time is on no clock, but it is said (issue 35: 2 s before each
# readyok went unflagged, the report saying only the clock): 12 waits of
# 300 ms, 3.6 s in all, beside moves of no time
check "... the summary says how long b waited for readyok" \
  grep -Eq "^b waited ([3-9]|[1-9][0-9]+)\.[0-9] s in all for 'readyok' before its moves \(the longest ([0-9]+\.)?[0-9]+ s\)" "$tmp/slow.out"
check "... so does the progress line" grep -Eq "\| readyok waits: b [0-9][0-9ms]* \(thinking [0-9][0-9ms]*\)" "$tmp/slow.err"
check "... and the store: the session's line has b's waits" \
  grep -Eq "wait=1,(3[6-9][0-9][0-9]|[4-9][0-9]{3}|[0-9]{5,}),([3-9][0-9]{2}|[0-9]{4,})," <(h5dump -a sessions "$tmp/slow.h5")
"$tv" report "$tmp/slow.h5" -o "$tmp/slow.report" >/dev/null 2>&1
check "... and the report, in a note" \
  grep -Eq "^Note: b waited ([3-9]|[1-9][0-9]+)\.[0-9] s in all for 'readyok' before its moves" "$tmp/slow.report/report.md"
check "... beside the session it ran in: the threads it ran with (--threads 1)" \
  grep -Eq "^\| [0-9-]+ [0-9:]+ UTC \| .* \(finished\) \| 2 \| tavreli .* \| 1 \| [^:]+: 1, 1, [0-9]+, [0-9.]+" "$tmp/slow.report/report.md"
# a well-behaved engine gets no note
check "... a gets none" sh -c "! grep -q '^a waited' '$tmp/slow.out' && ! grep -q 'Note: a waited' '$tmp/slow.report/report.md'"

# b: oversteps by 1 s from its second move on: each game a forfeit by ~1 s
fake_tournament "$tmp/over.ini" over 1 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode overtime --after 1 --seconds 1
depth = 1
movetime = 100
timemargin = 50"
"$tv" selfplay "$tmp/over.ini" --out "$tmp/over.h5" --threads 1 >"$tmp/over.out" 2>"$tmp/over.err"
check "an engine over its clock: the tournament finishes" [ $? -eq 0 ]
n=$(grep -c 'b loses on time' "$tmp/over.err")
check "... both games are lost on time ($n)" [ "$n" = 2 ]
check "... each more than 0 ms over the margin and reported" \
  sh -c "! grep 'loses on time' '$tmp/over.err' | grep -q ' 0 ms over'"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
