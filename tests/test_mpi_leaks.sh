#!/usr/bin/env bash
# The sanitized MPI tests' leak settings (tests/mpi_env.sh: the suppressions
# of Open MPI's memory, full stacks) still catch a leak of ours:
# tests/mpi_leak_probe.c on 2 ranks
#  - without a leak of its own reports none (Open MPI's memory is all
#    suppressed), and ends with 0;
#  - with --leak fails, and the report names the lost block and the
#    function that allocated it.
# usage: test_mpi_leaks.sh PATH/TO/mpi_leak_probe SOURCE_DIR
set -u
probe=$(readlink -f "$1") src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check
source "$src/tests/mpi_env.sh"
mpi_test_env "$src"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

"${mpi[@]}" -np 2 "$probe" >"$tmp/clean.out" 2>&1
rc=$?
check "no leak of its own: exit 0 ($rc; $(grep -m1 -A3 'leak of' "$tmp/clean.out"))" [ $rc = 0 ]
check "no leak of its own: nothing reported" bash -c "! grep -q LeakSanitizer '$tmp/clean.out'"

"${mpi[@]}" -np 2 "$probe" --leak >"$tmp/leak.out" 2>&1
rc=$?
check "a planted leak: the run fails ($rc)" [ $rc != 0 ]
check "a planted leak: its size is reported" grep -q "Direct leak of 4242 byte" "$tmp/leak.out"
check "a planted leak: the function that lost it is named" grep -q "in planted_leak" "$tmp/leak.out"

echo "test_mpi_leaks: $passes passed, $fails failed"
[ "$fails" = 0 ]
