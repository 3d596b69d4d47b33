#!/usr/bin/env bash
# The leak check of the MPI code paths (the other MPI tests' ranks run
# without one: tests/mpi_env.sh says why).  With mpi_test_env --leaks (the
# suppressions of Open MPI's memory, full stacks):
#  - tests/mpi_leak_probe.c on 2 ranks without a leak of its own reports
#    none (Open MPI's memory is all suppressed) and ends with 0; with --leak
#    it fails, and the report names the lost block and the function that
#    allocated it: the settings catch a leak of ours;
#  - tavreli's MPI runs leak nothing: selfplay on 2 ranks to its end; a run
#    stopped by SIGTERM to its ranks, resumed on 2 ranks (the parts merged);
#    engines as separate programs under the ranks; SPSA on 2 ranks.
# usage: test_mpi_leaks.sh PATH/TO/mpi_leak_probe SOURCE_DIR PATH/TO/tavreli
set -u
probe=$(readlink -f "$1") src=$(readlink -f "$2") tv=$(readlink -f "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, wait_games, wait_gone, write_test_configs
source "$src/tests/mpi_env.sh"
mpi_test_env "$src" --leaks
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

# no_leak NAME OUT RC: the run ended with 0 and reported no leak
no_leak() {
  check "$1: exit 0 ($3; $(grep -m1 -A6 'leak of' "$2"))" [ "$3" = 0 ]
  check "$1: no leak reported" bash -c "! grep -q LeakSanitizer '$2'"
}

"${mpi[@]}" -np 2 "$probe" >"$tmp/clean.out" 2>&1
no_leak "the probe without a leak of its own" "$tmp/clean.out" $?

"${mpi[@]}" -np 2 "$probe" --leak >"$tmp/leak.out" 2>&1
rc=$?
check "a planted leak: the run fails ($rc)" [ $rc != 0 ]
check "a planted leak: its size is reported" grep -q "Direct leak of 4242 byte" "$tmp/leak.out"
check "a planted leak: the function that lost it is named" grep -q "in planted_leak" "$tmp/leak.out"

write_test_configs "$tmp" "$src"
cd "$tmp" || exit 1
"${mpi[@]}" -np 2 "$tv" selfplay t.ini --out done.h5 --threads 1 --quiet >done.out 2>&1
no_leak "tavreli selfplay on 2 ranks" done.out $?

# stopped while it plays (SIGTERM to the ranks, as scancel sends), resumed
sed 's/pairs = 16/pairs = 40/' t.ini >long.ini
"${mpi[@]}" -np 2 "$tv" selfplay long.ini --out s.h5 --threads 1 --quiet >s1.out 2>&1 &
job=$!
# (once the parts hold 4 games: the stop comes in play, with games stored)
wait_games "$tv" s 4
pkill -TERM -f -- "^$tv selfplay long.ini --out s.h5" 2>/dev/null
wait $job
rc=$?
check "a run stopped in play ends so ($rc)" [ $rc != 0 ]
check "a stopped run: no leak reported" bash -c "! grep -q LeakSanitizer s1.out"
wait_gone "--out s.h5"
"${mpi[@]}" -np 2 "$tv" selfplay long.ini --out s.h5 --threads 1 --quiet --resume >s2.out 2>&1
no_leak "its resume on 2 ranks" s2.out $?
before=$(sed -n 's/.*stored this run (\([0-9]*\) before).*/\1/p' s2.out)
check "... of a run stopped in play (it had stored ${before:-no} games)" [ "${before:-0}" -ge 1 ]
check "... which merged the parts" [ -e s.h5 -a ! -e s.part-0.h5 ]

sed 's|^path = engines/default.ini$|command = '"$tv"' uci --engine engines/default.ini|' t.ini >proto.ini
"${mpi[@]}" -np 2 "$tv" selfplay proto.ini --out proto.h5 --threads 1 --quiet >proto.out 2>&1
no_leak "engines as separate programs under 2 ranks" proto.out $?

cat >spsa.ini <<EOI
[spsa]
name = leaks
iterations = 4
batch = 1
seed = 3
verify_pairs = 1
param lmr_base = 75, 0, 300, 30, 0.02
[engine base]
path = engines/default.ini
depth = 1
[openings]
plies = 4
[adjudication]
max_plies = 80
EOI
"${mpi[@]}" -np 2 "$tv" spsa spsa.ini --out spsa --threads 1 >spsa.out 2>&1
no_leak "tavreli spsa on 2 ranks" spsa.out $?

echo "test_mpi_leaks: $passes passed, $fails failed"
[ "$fails" = 0 ]
