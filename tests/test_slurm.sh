#!/usr/bin/env bash
# The Slurm batch script (configs/slurm/overnight.sbatch) run as Slurm runs
# it, without Slurm: its environment is simulated (SLURM_SUBMIT_DIR,
# SLURM_JOB_ID, SLURM_NTASKS, SLURM_CPUS_PER_TASK, SLURM_RESTART_COUNT), its
# log is appended to as Slurm does with --open-mode=append, and its signals
# are sent as Slurm sends them: SIGTERM to the batch shell alone
# (--signal=B:TERM@120, the time limit's early warning), or SIGTERM to the
# shell, mpirun and every rank at once (scancel, the time limit itself).
# `sinfo` for --check is a script printing the answer a Slurm partition
# gives to the script's query (this machine has no Slurm).
#
# With a tavreli built with MPI (label mpi):
#  - a 3,016-game plan whose store holds 3,000 games is continued by the
#    script on 2 ranks; SIGTERM to the batch shell during the final merge
#    (OUT.h5.tmp exists) stops it: no OUT.h5.tmp left, no game lost (the
#    store and the parts hold every game of the plan), the log says what
#    happened and gives the exact commands to continue, the report is not
#    written, exit 143;
#  - the requeued job (SLURM_RESTART_COUNT=1, the same log) adds --resume,
#    merges and finishes: the store's games are exactly those of the
#    uninterrupted plan (export --digest), no parts or temporary file left,
#    both attempts' lines are in the log, the report is written;
#  - scancel during play (SIGTERM to everything at once): the same;
#  - as root (here, or in a user namespace), the script starts mpirun with
#    no OMPI_ALLOW_RUN_AS_ROOT* in its environment (mpirun alone refuses);
#  - --check accepts a request that fits the partition.
# With either build: --check refuses a request that does not fit (too many
# nodes or CPUs, too long, partition down, no default partition, no sinfo),
# and a missing or plain (non-MPI) program, each time saying why.
# usage: test_slurm.sh PATH/TO/tavreli SOURCE_DIR
set -u
tv=$(readlink -f "$1")
src=$(readlink -f "$2")
script=$src/configs/slurm/overnight.sbatch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check
mpi_build=0
[[ $(ldd "$tv" 2>/dev/null) == *libmpi* ]] && mpi_build=1

# No Slurm here: Open MPI must not look for an allocation; no shared-memory
# single copy (containers); as in test_mpi.sh for the sanitizer build.
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM SLURM_JOBID SLURM_NODELIST SBATCH_PARTITION

# ---- --check against a partition (sinfo answers as Slurm would) ----
mkdir -p "$tmp/bin"
# sinfo_answers LINES...: what `sinfo --noheader --format='%P %a %l %D %c'` prints
sinfo_answers() {
  printf '%s\n' "$@" >"$tmp/sinfo.txt"
  cat >"$tmp/bin/sinfo" <<'EOS'
#!/bin/bash
# --partition=NAME: that partition's lines only (no * on the name)
for a in "$@"; do
  case "$a" in --partition=*) p=${a#--partition=} ;; esac
done
if [ -n "${p:-}" ]; then
  awk -v p="$p" '{ n = $1; sub(/\*$/, "", n); if (n == p) { $1 = n; print } }' "$(dirname "$0")/../sinfo.txt"
else
  cat "$(dirname "$0")/../sinfo.txt"
fi
EOS
  chmod +x "$tmp/bin/sinfo"
}
mkdir -p "$tmp/sub/configs/tournaments"
printf '[tournament]\nname = x\n' >"$tmp/sub/configs/tournaments/overnight.ini"
run_check() { # run_check OUTFILE [ENV=VALUE...]: --check from the submit dir
  local o=$1
  shift
  (cd "$tmp/sub" && env PATH="$tmp/bin:$PATH" TAVRELI="$tv" "$@" bash "$script" --check) >"$o" 2>&1
}

sinfo_answers "debug* up 1:00:00 1 2" "big up infinite 8 64"
run_check "$tmp/c1.out"
check "--check: the unedited request does not fit a small default partition (exit 1)" [ $? = 1 ]
check "... too many nodes, saying what the partition has" \
  grep -q "nodes=4 with 32 CPUs each, but partition debug has 0 node(s) of at least 32 CPUs (of 1)" "$tmp/c1.out"
check "... too long for the partition's limit" grep -q "time=12:00:00 is over partition debug's limit of 1:00:00" "$tmp/c1.out"
check "... names the sizes to edit" grep -q "the sizes are at the top of" "$tmp/c1.out"
run_check "$tmp/c2.out" SBATCH_PARTITION=big
if [ $mpi_build = 1 ]; then
  check "--check: the request fits a large partition (exit 0)" [ $? = 0 ]
  check "... and says how to submit" grep -q "check: the request fits; submit with: sbatch" "$tmp/c2.out"
else
  check "--check with a plain build: refused (exit 1)" [ $? = 1 ]
  check "... saying it is not linked with MPI" grep -q "is not linked with MPI" "$tmp/c2.out"
  check "... and no partition problem" sh -c "! grep -q 'partition big' '$tmp/c2.out' || ! grep 'problem:' '$tmp/c2.out' | grep -q partition"
fi
sinfo_answers "debug* down 2-00:00:00 16 64"
run_check "$tmp/c3.out"
check "--check: a partition that is down is named" grep -q "partition debug is down, not up" "$tmp/c3.out"
check "... and D-HH:MM:SS limits are read (12 h fits 2 days)" sh -c "! grep -q 'over partition' '$tmp/c3.out'"
sinfo_answers "a up infinite 4 32" "b up infinite 4 32"
run_check "$tmp/c4.out"
check "--check: no default partition is named" grep -q "has no default partition" "$tmp/c4.out"
run_check "$tmp/c5.out" SBATCH_PARTITION=nosuch
check "--check: an unknown partition is named" grep -q "there is no partition 'nosuch'" "$tmp/c5.out"
rm "$tmp/bin/sinfo"
(cd "$tmp/sub" && env PATH="$tmp/bin:/usr/bin:/bin" TAVRELI="$tv" bash "$script" --check) >"$tmp/c6.out" 2>&1
check "--check without sinfo: refused, saying where to run it" \
  sh -c "[ $? = 1 ] && grep -q 'sinfo is not on PATH: run --check on a machine of the cluster' '$tmp/c6.out'"
run_check "$tmp/c7.out" TAVRELI="$tmp/nowhere/tavreli"
check "--check: a missing program is named with how to build it or choose another (TAVRELI=)" \
  grep -q "nowhere/tavreli is not an executable program: build the MPI variant.*TAVRELI=PATH" "$tmp/c7.out"

if [ $mpi_build = 0 ]; then
  echo "test_slurm: $passes passed, $fails failed (the runs need the MPI build: ctest -L mpi in build-mpi)"
  [ "$fails" = 0 ]
  exit
fi

# ---- runs of the batch script ----
sub=$tmp/run
mkdir -p "$sub/results" "$sub/engines"
cp "$src/configs/engines/default.ini" "$sub/engines/"
# a 3,016-game plan of tiny games (one and two nodes a move, about 50 positions)
cat >"$sub/m.ini" <<EOI
[tournament]
name = merge-stop
format = round-robin
pairs = 1508
seed = 17
[openings]
plies = 6
balance_depth = 0
[adjudication]
max_plies = 60
resign_score = 0
draw_moves = 0
[engine a]
path = engines/default.ini
nodes = 1
[engine b]
path = engines/default.ini
nodes = 2
EOI
digest() { "$tv" export "$1" --digest "$2" >/dev/null 2>&1; }
# job N LOG ARGS...: the batch script as Slurm runs attempt N of job 4242, in
# the background ($job), appending to LOG
job() {
  local n=$1 log=$2
  shift 2
  env SLURM_SUBMIT_DIR="$sub" SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost SLURM_NTASKS=2 \
    SLURM_CPUS_PER_TASK=1 SLURM_RESTART_COUNT="$n" TAVRELI="$tv" TAVRELI_STOP_GRACE=60 \
    bash "$script" "$@" >>"$log" 2>&1 &
  job=$!
}

(cd "$sub" && "$tv" selfplay m.ini --out results/m.h5 --threads 2 --games 3000 --quiet >/dev/null 2>&1)
check "a 3,000-game store is made" [ $? = 0 ]
cp "$sub/results/m.h5" "$sub/ref.h5"
(cd "$sub" && "$tv" selfplay m.ini --out ref.h5 --threads 2 --resume --quiet >/dev/null 2>&1)
digest "$sub/ref.h5" "$tmp/ref.dig"
check "the reference holds the whole plan (3,016 games)" [ "$(wc -l <"$tmp/ref.dig")" = 3016 ]

# attempt 1: the 16 missing games, then SIGTERM to the batch shell in the final merge
log=$sub/results/tavreli-overnight-4242.log
job 0 "$log" m.ini results/m.h5
for i in $(seq 1 3000); do
  [ -e "$sub/results/m.h5.tmp" ] && break
  kill -0 $job 2>/dev/null || break
  sleep 0.01
done
check "the final merge was caught in progress (m.h5.tmp)" [ -e "$sub/results/m.h5.tmp" ]
kill -TERM $job
wait $job
rc=$?
check "SIGTERM in the final merge: the job exits 143" [ $rc = 143 ]
check "... the log says the signal came and the ranks were asked to stop" \
  grep -q "received SIGTERM.*asking the ranks to stop (SIGUSR1 to mpirun)" "$log"
check "... rank 0's summary reached the log: stopped, not merged" grep -q "stopped by a signal: not merged" "$log"
check "... the log lists where the games are" grep -q "stopped (mpirun exit 138, after SIGTERM).*m.part-0.h5" "$log"
check "... the exact commands to continue" \
  sh -c "grep -qF 'to continue: cd $sub && sbatch configs/slurm/overnight.sbatch m.ini results/m.h5' '$log' &&
         grep -qF 'or by hand: cd $sub && mpirun --bind-to none -np 2 $tv selfplay m.ini --out results/m.h5 --threads 1 --resume' '$log'"
check "... the report is not written, saying why" grep -q "report: not written (this run's games are still in the parts)" "$log"
check "... no m.h5.tmp left" [ ! -e "$sub/results/m.h5.tmp" ]
check "... the parts stay" [ -e "$sub/results/m.part-0.h5" -a -e "$sub/results/m.part-1.h5" ]
for f in m m.part-0 m.part-1; do digest "$sub/results/$f.h5" "$tmp/$f.dig"; done
check "... the store is untouched (its 3,000 games)" [ "$(wc -l <"$tmp/m.dig")" = 3000 ]
check "... no game lost: the store and the parts hold the whole plan" \
  bash -c "sort -u '$tmp/m.dig' '$tmp/m.part-0.dig' '$tmp/m.part-1.dig' | cmp -s - <(sort '$tmp/ref.dig')"

# attempt 2: the requeued job continues, appending to the same log
job 1 "$log" m.ini results/m.h5
wait $job
check "requeued: the job finishes (exit 0)" [ $? = 0 ]
check "... its header names attempt 2" grep -q "== tavreli job 4242, attempt 2 (SLURM_RESTART_COUNT=1)" "$log"
check "... the first attempt's lines are still in the log" \
  sh -c "grep -q 'attempt 1 (SLURM_RESTART_COUNT=0)' '$log' && grep -q 'received SIGTERM' '$log'"
check "... it added --resume by itself" grep -q "continuing results/m.h5 (it or its parts exist): --resume" "$log"
digest "$sub/results/m.h5" "$tmp/m2.dig"
check "... the store holds exactly the uninterrupted plan's games" cmp -s "$tmp/ref.dig" "$tmp/m2.dig"
check "... no parts and no temporary file left" \
  sh -c "! ls '$sub'/results/m.part-*.h5 '$sub'/results/m.h5.tmp 2>/dev/null | grep -q ."
check "... the report is written" sh -c "grep -q 'report: results/m/' '$log' && [ -d '$sub/results/m' ]"

# ---- scancel during play: SIGTERM to the shell, mpirun and the ranks at once ----
write_test_configs "$sub" "$src" # t.ini: 32 games; s.ini: 200 of them, a few seconds
sed 's/pairs = 16/pairs = 100/' "$sub/t.ini" >"$sub/s.ini"
(cd "$sub" && "$tv" selfplay t.ini --out tref.h5 --threads 2 --quiet >/dev/null 2>&1)
digest "$sub/tref.h5" "$tmp/tref.dig"
(cd "$sub" && "$tv" selfplay s.ini --out sref.h5 --threads 2 --quiet >/dev/null 2>&1)
digest "$sub/sref.h5" "$tmp/sref.dig"
log2=$sub/results/scancel.log
job 0 "$log2" s.ini results/s.h5
for i in $(seq 1 600); do
  [ -e "$sub/results/s.part-1.h5" ] && break
  sleep 0.05
done
sleep 1
kill -TERM $job $(pgrep -f -- "selfplay s.ini --out results/s.h5") 2>/dev/null
wait $job
check "scancel: the job exits 143" [ $? = 143 ]
check "... the log says so and how to continue" \
  sh -c "grep -q 'received SIGTERM' '$log2' && grep -q 'to continue: cd $sub && sbatch' '$log2'"
check "... no s.h5.tmp, and the parts stay" \
  sh -c "[ ! -e '$sub/results/s.h5.tmp' ] && ls '$sub'/results/s.part-*.h5 >/dev/null 2>&1"
job 1 "$log2" s.ini results/s.h5
wait $job
check "scancel, requeued: the job finishes" [ $? = 0 ]
digest "$sub/results/s.h5" "$tmp/s.dig"
check "... with exactly the games of one process" cmp -s "$tmp/sref.dig" "$tmp/s.dig"

# ---- root: the script lets mpirun run as root by itself ----
as_root=()
if [ "$(id -u)" != 0 ]; then
  if unshare --user --map-root-user true 2>/dev/null; then
    as_root=(unshare --user --map-root-user)
  else
    as_root=()
  fi
fi
if [ "$(id -u)" = 0 ] || [ ${#as_root[@]} -gt 0 ]; then
  "${as_root[@]}" mpirun -np 1 true >"$tmp/plain-root.out" 2>&1
  check "as root, mpirun alone refuses to start (what the script must avoid)" \
    sh -c "[ $? != 0 ] && grep -qi 'root' '$tmp/plain-root.out'"
  rm -f "$sub"/results/t.h5
  env SLURM_SUBMIT_DIR="$sub" SLURM_JOB_ID=4343 SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=1 TAVRELI="$tv" \
    "${as_root[@]}" bash "$script" t.ini results/t.h5 >"$tmp/root.log" 2>&1
  check "as root: the job runs to the end" [ $? = 0 ]
  check "... saying it set OMPI_ALLOW_RUN_AS_ROOT" grep -q "running as root: OMPI_ALLOW_RUN_AS_ROOT=1" "$tmp/root.log"
  digest "$sub/results/t.h5" "$tmp/troot.dig"
  check "... with the games of one process" cmp -s "$tmp/tref.dig" "$tmp/troot.dig"
else
  echo "note: not root and no user namespaces here: the root run is not checked"
fi

echo "test_slurm: $passes passed, $fails failed"
[ "$fails" = 0 ]
