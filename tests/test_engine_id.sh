#!/usr/bin/env bash
# Which engine played (selfplay/engine_id.c, docs/store.md "Engine
# identity"): a separate program is known by its command, the executable
# that command runs (SHA-256 and size), the id name it announces and the
# values of every option it declares.  Each of these changed between two
# stores under one engine name:
#  - the same command (`tavreli uci --engine x.ini`), x.ini edited
#    (null_move no, then yes);
#  - the same command, another executable behind it;
#  - the same command and executable, another id name;
# makes `report` show two players (NAME@TAG), saying what differs, and
# `selfplay --resume` refuse the changed program, naming the difference.  A
# program started again during a run (after a crash) that is another
# program ends the run with an error, its games kept.  A program's bench
# signature (a tavreli build's `bench search`, or `bench = COMMAND`) is
# recorded and shown; a changed one is another version; a bench command
# that fails or prints no count stops the run before its games.
# usage: test_engine_id.sh TAVRELI FAKE_ENGINE SOURCE_DIR
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") src=$3
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check
cp "$src/configs/engines/default.ini" "$tmp/x.ini"
ln -s "$tv" "$tmp/tavreli" # every process names $tmp, so that the trap finds them

# t.ini: the built-in engine against program COMMAND (and the line EXTRA in
# its section), two games
tournament() { # FILE COMMAND [EXTRA]
  cat >"$tmp/$1" <<EOI
[tournament]
name = ids
pairs = 1
seed = 5
threads = 1
[openings]
plies = 2
balance_depth = 1
balance_cp = 1000
[adjudication]
max_plies = 30
[engine a]
path = $src/configs/engines/default.ini
depth = 1
[engine e]
command = $2
depth = 1
${3:-}
EOI
}
play() { # STORE [ARGS...]: selfplay t.ini into STORE
  local out=$1
  shift
  (cd "$tmp" && "$tv" selfplay t.ini --out "$out" --quiet "$@") >"$tmp/play.out" 2>"$tmp/play.err"
}
two_players() { # WHAT STORE1 STORE2 WANT: report shows e twice and says WANT
  local what=$1
  "$tv" report "$tmp/$2" "$tmp/$3" -o "$tmp/r-$2" >"$tmp/r.out" 2>"$tmp/r.err"
  check "$what: report of both stores is written ($(head -c 300 "$tmp/r.err"))" [ $? = 0 ]
  check "... with two players for 'e'" \
    bash -c "[ \$(grep -c '^| e@[^ ]* | separate program' '$tmp/r-$2/report.md') = 2 ]"
  check "... saying what differs ($4)" grep -qF -- "$4" "$tmp/r-$2/report.md"
}
resume_refused() { # WHAT STORE WANT
  play "$2" --resume
  check "$1: --resume refuses the changed program (exit $?)" [ $? != 0 ]
  check "... naming it: $3" grep -qF -- "$3" "$tmp/play.err"
}

# ---- the same command, its engine INI edited ----------------------------------
tournament t.ini "$tmp/tavreli uci --engine $tmp/x.ini"
play ini1.h5
check "a store with tavreli uci --engine x.ini (null_move = no)" grep -q "2 games stored" "$tmp/play.out"
sed -i 's/^null_move = no/null_move = yes/' "$tmp/x.ini"
play ini2.h5
check "... and one with x.ini edited (null_move = yes)" grep -q "2 games stored" "$tmp/play.out"
two_players "x.ini edited" ini1.h5 ini2.h5 "null_move=false for e@"
resume_refused "x.ini edited" ini1.h5 "other option values in effect, as the program declared them (null_move=false in the store, null_move=true now)"

# ---- the same command, another executable ---------------------------------------
cp "$fake" "$tmp/eng"
tournament t.ini "$tmp/eng"
play exe1.h5
check "a store with program eng" grep -q "2 games stored" "$tmp/play.out"
sha1=$(sha256sum "$tmp/eng" | cut -c1-12)
printf 'another build' >>"$tmp/eng" # the same program, another file
sha2=$(sha256sum "$tmp/eng" | cut -c1-12)
play exe2.h5
check "... and one after eng was replaced" grep -q "2 games stored" "$tmp/play.out"
two_players "another executable" exe1.h5 exe2.h5 "another executable ($tmp/eng): SHA-256 $sha1..."
check "... named by their hashes" grep -q "^| e@sha256:$sha2 |" "$tmp/r-exe1.h5/report.md"
resume_refused "another executable" exe1.h5 "another executable ($tmp/eng): SHA-256 $sha1..."

# ---- the same command and executable, another id name ---------------------------
printf '#!/bin/sh\nexec %s --name "$(cat %s/name.txt)"\n' "$fake" "$tmp" >"$tmp/named"
chmod +x "$tmp/named"
echo "fake 1.0" >"$tmp/name.txt"
tournament t.ini "$tmp/named"
play id1.h5
check "a store with a program that says 'fake 1.0'" grep -q "2 games stored" "$tmp/play.out"
echo "fake 2.0" >"$tmp/name.txt"
play id2.h5
check "... and one after it says 'fake 2.0'" grep -q "2 games stored" "$tmp/play.out"
two_players "another id name" id1.h5 id2.h5 "another id name: 'fake 1.0' for e@v1, 'fake 2.0' for e@v2"
resume_refused "another id name" id1.h5 "another id name: 'fake 1.0' in the store, 'fake 2.0' now"

# ---- bench signatures ------------------------------------------------------------
# a tavreli build's own (`bench search`), kept in the store and shown in the report
tournament t.ini "$tmp/tavreli uci"
play bench0.h5
nodes=$("$tv" bench search --depth 5 2>/dev/null | sed -n 's/^nodes //p')
"$tv" report "$tmp/bench0.h5" -o "$tmp/r-bench0" >/dev/null 2>&1
check "a tavreli program's bench signature is recorded and shown (bench $nodes)" \
  grep -q "^| e | separate program | .*bench $nodes |" "$tmp/r-bench0/report.md"
# bench = COMMAND: another program's, from its 'Nodes searched: N'
printf '#!/bin/sh\necho "Nodes searched: $(cat %s/bench.txt)"\n' "$tmp" >"$tmp/benchcmd"
chmod +x "$tmp/benchcmd"
echo 1234 >"$tmp/bench.txt"
echo "fake 1.0" >"$tmp/name.txt"
tournament t.ini "$tmp/named" "bench = $tmp/benchcmd"
play bench1.h5
"$tv" report "$tmp/bench1.h5" -o "$tmp/r-bench1" >/dev/null 2>&1
check "bench = COMMAND: its node count is recorded (bench 1234)" grep -q "^| e | .*bench 1234 |" "$tmp/r-bench1/report.md"
echo 1235 >"$tmp/bench.txt"
resume_refused "another bench signature" bench1.h5 "another bench signature (nodes): 1234 in the store, 1235 now"
# a bench that prints no count, or fails, stops the run before its games
printf '#!/bin/sh\necho "no count here"\n' >"$tmp/nobench"
printf '#!/bin/sh\necho "bench crashed" >&2; exit 3\n' >"$tmp/badbench"
chmod +x "$tmp/nobench" "$tmp/badbench"
tournament t.ini "$tmp/named" "bench = $tmp/nobench"
play bench-none.h5
check "a bench command that prints no node count is refused (exit $?)" [ $? != 0 ]
check "... saying so" grep -qF "printed no node count (a line 'nodes N'); it said: no count here" "$tmp/play.err"
tournament t.ini "$tmp/named" "bench = $tmp/badbench"
play bench-bad.h5
check "a bench command that fails is refused (exit $?)" [ $? != 0 ]
check "... quoting it" grep -qF "ended with status 3; it said: bench crashed" "$tmp/play.err"
check "... before any game" [ ! -e "$tmp/bench-bad.h5" ]

# ---- started again mid-run as another program -------------------------------------
# the program crashes at its first move of every game; its third start (the
# check before the games, the first game, then the restart for the second)
# says another name
printf '#!/bin/sh\nn=$(($(cat %s/starts 2>/dev/null || echo 0) + 1)); echo $n >%s/starts\n[ $n -le 2 ] && name="fake 1.0" || name="fake 2.0"\nexec %s --mode crash --name "$name"\n' \
  "$tmp" "$tmp" "$fake" >"$tmp/flaky"
chmod +x "$tmp/flaky"
tournament t.ini "$tmp/flaky"
play restart.h5
rc=$?
check "a program restarted as another one ends the run (exit $rc)" [ $rc != 0 ]
check "... saying so" grep -qF "engine 'e' was started again as another program (another id name: 'fake 1.0' at its first start, 'fake 2.0' now)" "$tmp/play.err"
check "... after its first game, which is kept" grep -q "1 games of this run are stored" "$tmp/play.err"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ] || { echo "--- last run"; cat "$tmp/play.out" "$tmp/play.err"; }
[ "$fails" -eq 0 ]
