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
source "$src/tests/selfplay_common.sh" # check

# the number of games a store holds (0 when it cannot be read)
count_games() {
  "$tv" export "$1" --digest "$tmp/count.dig" >/dev/null 2>&1 && wc -l <"$tmp/count.dig" || echo 0
}

# tournament FILE PAIRS ENGINE_A_LINES ENGINE_B_LINES: short games of fake engines
tournament() {
  cat >"$1" <<EOI
[tournament]
name = msg
pairs = $2
seed = 7
threads = 1
[openings]
plies = 2
balance_depth = 1
balance_cp = 1000
[adjudication]
max_plies = 40
resign_score = 0
draw_moves = 0
draw_score = 0
[engine a]
$3
[engine b]
$4
EOI
}

# ---- a crash between games: the last batch is stored, and counted ----
# b aborts at its 30th ucinewgame (one thread: one process plays every
# game), after 29 finished games (16 flushed in the first batch)
tournament "$tmp/crash.ini" 20 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode crash-newgame --after 30
depth = 1"
"$tv" selfplay "$tmp/crash.ini" --out "$tmp/crash.h5" --quiet >"$tmp/crash.out" 2>"$tmp/crash.err"
rc=$?
check "crash at the 30th ucinewgame: the run stops with exit 1" [ $rc -eq 1 ]
stored=$(count_games "$tmp/crash.h5")
said=$(sed -n 's/^note: \([0-9]*\) games of this run are stored.*/\1/p' "$tmp/crash.err")
check "... every one of the 29 finished games is stored" [ "$stored" -eq 29 ]
check "... the message counts what the store holds ($said said, $stored stored)" [ "${said:-x}" = "$stored" ]
check "... and the store verifies" grep -q "29 games replayed, 0 with problems" <("$tv" verify "$tmp/crash.h5" 2>&1)
[ "$stored" -eq 29 ] && [ "${said:-x}" = "$stored" ] || cat "$tmp/crash.err"

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
