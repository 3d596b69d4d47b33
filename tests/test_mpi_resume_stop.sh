#!/bin/bash
# test_mpi_resume_stop.sh TAVRELI(MPI) MAKE_RESUME_STORE SOURCE_DIR (issue 22):
# SIGTERM to every rank (scancel) while rank 0 of `mpirun -np 2 ... selfplay
# --resume` reads and checks a big store ends it as in one process: rank 0
# says "interrupted: run ... --resume" (not an error), the store is
# unchanged and no part is left.
tv=$1
mk=$2
src=$3
tmp=$(mktemp -d /tmp/tavreli-mpi-resume-stop-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh"
source "$src/tests/mpi_env.sh"; mpi_test_env "$src" # Open MPI in containers, under ASan
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

# rank R's process (not mpirun) of the run writing OUT (as tests/test_mpi.sh)
rank_pid() {
  local out=$1 r=$2 p
  for p in $(pgrep -f -- "--out $out"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$tv")" ] || continue
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$r" && echo "$p"
  done
}

# one game copied into 3,000 games of its plan (big_resume_store, tests/selfplay_common.sh)
big_resume_store "$tv" "$mk" "$tmp"
check "the big store is made" [ $? = 0 ]
sum=$(md5sum <"$tmp/big.h5")
cp "$tmp/big.h5" "$tmp/r.h5"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/one.ini" --out "$tmp/r.h5" --resume --threads 1 --quiet >"$tmp/r.out" 2>&1 &
job=$!
# rank 0 reads while it holds the run lock (the other rank waits for it)
for _ in $(seq 600); do grep -q " " "$tmp/r.h5.lock" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
p0=$(rank_pid "$tmp/r.h5" 0)
p1=$(rank_pid "$tmp/r.h5" 1)
check "both ranks found (${p0:-none} ${p1:-none})" [ -n "$p0" -a -n "$p1" ]
check "rank 0 is still reading" [ -e "$tmp/r.h5.lock" ]
[ -n "$p0$p1" ] && kill -TERM $p0 $p1
wait $job
# the line to continue by is the one that runs this job again (as the line
# of a run stopped in its games): mpirun, unbound, as root with Open MPI's
# permission, this very program (a plain 'tavreli selfplay' line lost the
# launcher; test_slurm's check of it failed on CI when its stop came before
# the first game)
launcher="mpirun "
[ "$(id -u)" = 0 ] && launcher+="--allow-run-as-root "
launcher+="--bind-to none -np 2 $(readlink -f "$tv")"
check "rank 0 says how to resume: the job's own command ($(grep interrupted "$tmp/r.out"))" \
  grep -qF "interrupted: run '$launcher selfplay $tmp/one.ini --out $tmp/r.h5 --resume'" "$tmp/r.out"
check "... not an error" bash -c "! grep -q 'error:' '$tmp/r.out'"
check "... the store unchanged" [ "$(md5sum <"$tmp/r.h5")" = "$sum" ]
check "... no part left" bash -c "! ls '$tmp'/r.part-*.h5* 2>/dev/null | grep -q ."

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
