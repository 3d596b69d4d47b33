#!/usr/bin/env bash
# Separate programs under MPI (a build with -DTAVRELI_MPI=ON), on 2 ranks:
#  - the referee's terminations of every rank's games reach rank 0: the
#    progress line, a line per game and the summary count them all (the
#    store's count of time_forfeit), with the loser's time over the margin;
#  - a program that cannot start is found before any part or store is made:
#    a clear error, nothing left on disk, and the fixed INI runs without
#    --force (and --resume says there is nothing to resume); one that starts
#    but dies at the first game leaves no empty store either;
#  - the game threads of the ranks on a node above its cores: one warning
#    for the node.
# usage: test_mpi_referee.sh PATH/TO/tavreli(MPI) PATH/TO/fake_engine SOURCE_DIR
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "tmp: $tmp"
source "$src/tests/selfplay_common.sh" # check

# as tests/test_mpi.sh: Open MPI as root, in containers, under ASan
source "$src/tests/mpi_env.sh"; mpi_test_env "$src" # Open MPI in containers, under ASan
mpi=(mpirun --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

# tournament FILE PAIRS ENGINE_A_LINES ENGINE_B_LINES (tests/selfplay_common.sh)
tournament() { fake_tournament "$1" mpiref "$2" "$3" "$4"; }

# ---- referee terminations of every rank reach rank 0 ----
# b oversteps its clock by about 1 s from its second move on: every game is
# a time forfeit of b; 8 games on 2 ranks of one thread each
tournament "$tmp/over.ini" 4 "command = $fake --mode ok --name good
depth = 1" "command = $fake --mode overtime --after 1 --seconds 1
depth = 1
tc = 0.2+0.01
timemargin = 50"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/over.ini" --out "$tmp/over.h5" --threads 1 >"$tmp/over.out" 2>"$tmp/over.err"
rc=$?
check "2 ranks, an engine overstepping its clock: the tournament finishes" [ $rc -eq 0 ]
stored=$("$tv" verify "$tmp/over.h5" 2>&1 | sed -n 's/.*stored terminations:.* time_forfeit \([0-9]*\).*/\1/p')
check "... the store holds 8 time forfeits ($stored)" [ "${stored:-0}" = 8 ]
check "... the summary counts those of both ranks" grep -qx "b lost ${stored:-x} games by the referee: ${stored:-x} time_forfeit" "$tmp/over.out"
check "... so does the last progress line" grep -q "^games 8/8 .* | lost by referee: b ${stored:-x} time$" "$tmp/over.err"
lines=$(grep -c '^game [0-7]: b loses on time (\(white\|black\), [0-9]* ms over the margin, after [0-9]* pl\(y\|ies\), against a)$' "$tmp/over.err")
check "... a line per game it lost on time ($lines)" [ "$lines" = "${stored:-x}" ]
# the referee stops waiting 2 ms past the margin: a forfeit is never 0 ms over
check "... each with the time over the margin (rank 1's too)" \
  sh -c "grep 'loses on time' '$tmp/over.err' | grep -q 'ms over' && ! grep 'loses on time' '$tmp/over.err' | grep -q ' 0 ms over'"
grep -q "lost by referee: b ${stored:-x} time" "$tmp/over.err" || { cat "$tmp/over.out" "$tmp/over.err"; }

# ---- a program that cannot start: nothing made, the fixed INI reruns ----
tournament "$tmp/start.ini" 2 "command = $fake --mode ok
depth = 1" "command = $tmp/no-such-engine
depth = 1"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --threads 1 --quiet >"$tmp/start.out" 2>&1
rc=$?
check "2 ranks, a missing program: the job fails" [ $rc -ne 0 ]
check "... naming it" grep -q "engine 'b': cannot run '$tmp/no-such-engine'" "$tmp/start.out"
check "... leaving no store and no parts" sh -c "! ls '$tmp'/start*.h5 2>/dev/null | grep -q ."
ls "$tmp"/start*.h5 2>/dev/null && cat "$tmp/start.out"
tournament "$tmp/start.ini" 2 "command = $fake --mode ok
depth = 1" "command = $fake --mode ok --name fixed
depth = 1"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --threads 1 --quiet --resume >"$tmp/start.out" 2>&1
check "... so --resume of the fixed INI says there is nothing to resume" \
  grep -q "nothing to resume: .*start.h5 does not exist (run without --resume to start it)" "$tmp/start.out"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/start.ini" --out "$tmp/start.h5" --threads 1 --quiet >"$tmp/fixed.out" 2>&1
check "the fixed INI runs on 2 ranks without --force" grep -q "4 of 4 planned" "$tmp/fixed.out"
grep -q "4 of 4 planned" "$tmp/fixed.out" || cat "$tmp/fixed.out"

# a program that starts (the check passes) but dies at its first game on
# every rank: the empty store the run made is removed
tournament "$tmp/first.ini" 2 "command = $fake --mode ok
depth = 1" "command = $fake --mode crash-newgame --after 1
depth = 1"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/first.ini" --out "$tmp/first.h5" --threads 1 --quiet >"$tmp/first.out" 2>&1
rc=$?
check "2 ranks, a program dying at its first ucinewgame: the job fails" [ $rc -ne 0 ]
check "... no empty store and no parts are left" sh -c "! ls '$tmp'/first*.h5 2>/dev/null | grep -q ."
check "... and the message says so" grep -q "no game was stored: .*first.h5 was removed" "$tmp/first.out"
ls "$tmp"/first*.h5 2>/dev/null && cat "$tmp/first.out"

# ---- the game threads of a node's ranks against its cores ----
# (all ranks here run on this machine: one node)
cores=$(nproc)
tournament "$tmp/th.ini" 1 "command = $fake --mode ok
depth = 1" "command = $fake --mode ok --name other
depth = 1"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/th.ini" --out "$tmp/th.h5" --threads "$cores" --quiet >"$tmp/th.out" 2>&1
check "2 ranks x $cores threads on $cores cores: one warning for the node" \
  [ "$(grep -c "^warning: $((2 * cores)) game threads need $((2 * cores)) cores, node .* (2 ranks of this job) has $cores: .*start fewer ranks per node$" "$tmp/th.out")" = 1 ]
grep -q "^warning: .*node" "$tmp/th.out" || cat "$tmp/th.out"
half=$((cores / 2 > 0 ? cores / 2 : 1))
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/th.ini" --out "$tmp/th2.h5" --threads "$half" --quiet >"$tmp/th2.out" 2>&1
check "2 ranks x $half threads: no warning when they fit (or $cores = 1)" \
  sh -c "[ $cores = 1 ] || ! grep -q 'game threads need' '$tmp/th2.out'"

# ---- tavreli train is one process: on 2 ranks it is refused at once ----
# (each rank ran it on one folder and tripped over the other's lock; issue 35)
"${mpi[@]}" -np 2 "$tv" train "$src/configs/train/quick.ini" --out "$tmp/train2" >"$tmp/train2.out" 2>&1
rc=$?
check "train under mpirun -np 2 is refused ($rc)" [ $rc -ne 0 ]
check "... saying how to run it" grep -q "train: started as one of 2 MPI ranks, but train runs as one process.*run it without mpirun, or with 'mpirun -np 1'" "$tmp/train2.out"
check "... before making anything" [ ! -e "$tmp/train2" ]

echo "test_mpi_referee: $passes passed, $fails failed"
[ "$fails" = 0 ]
