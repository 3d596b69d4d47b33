#!/usr/bin/env bash
# The batch script (configs/slurm/overnight.sbatch) on a real Slurm of two
# nodes, as a cluster has them: a slurmctld and two slurmd, each with its
# own host name (n1, n2: a UTS namespace each; Debian's slurmd is not built
# for several daemons a host, so each runs as the only one of its "host"),
# its own port and spool, and a private munged; jobs are submitted with
# sbatch, one rank a node (--nodes=2 --ntasks-per-node=1), mpirun starting
# the second rank through Slurm on the other node.  Checked, each against
# the digest of the whole plan played in one process:
#  - scancel during play: the job stops (exit 143), the log's "to continue"
#    line, run as printed, submits the job that finishes the plan;
#  - scontrol requeue during play: the same job runs again
#    (SLURM_RESTART_COUNT=1, the same log), adds --resume and finishes;
#  - kill -9 of the rank on n2: the job fails, the same sbatch again
#    finishes the plan.
# No game is lost or played twice: the final store's digest is the plan's.
# Skipped (exit 77) without root, Slurm (slurmctld, slurmd, slurm-client),
# munge or an MPI build; .ci/setup --test installs Slurm and munge.
# usage: test_slurm_nodes.sh PATH/TO/tavreli(MPI) SOURCE_DIR [PATH/TO/tavreli(plain)]
set -u
tv=$(readlink -f "$1")
src=$(readlink -f "$2")
ref=$tv
[ -n "${3:-}" ] && ref=$(readlink -f "$3")
script=$src/configs/slurm/overnight.sbatch
skip() {
  echo "SKIP: $*"
  exit 77
}
[ "$(id -u)" = 0 ] || skip "the daemons need root (each slurmd in a UTS namespace of its own)"
for p in slurmctld slurmd sbatch squeue scontrol scancel sinfo munged unshare; do
  command -v $p >/dev/null || skip "no $p here (Debian: slurmctld slurmd slurm-client munge; .ci/setup --test)"
done
[[ $(ldd "$tv" 2>/dev/null) == *libmpi* ]] || skip "$tv is not an MPI build"

tmp=$(mktemp -d)
S=$tmp/slurm
sub=$tmp/run
mkdir -p "$S/state" "$S/spool/n1" "$S/spool/n2" "$sub/results" "$sub/engines"
chmod 755 "$tmp"
cleanup() {
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null
  for f in "$S"/slurmd-n1.pid "$S"/slurmd-n2.pid "$S"/slurmctld.pid "$S"/munged.pid; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  for f in "$S"/slurmd-n1.pid "$S"/slurmd-n2.pid "$S"/slurmctld.pid "$S"/munged.pid; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  pkill -9 -f "selfplay m.ini --out results/" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
source "$src/tests/selfplay_common.sh" # check
export OMPI_MCA_rmaps_base_oversubscribe=1
source "$src/tests/mpi_env.sh"; mpi_test_env "$src" # Open MPI in containers, under ASan
unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM SLURM_JOBID SLURM_JOB_ID SLURM_NODELIST SBATCH_PARTITION

# ---- the cluster ----
# ports of this run (two runs of the test on one machine do not meet)
base=$((20000 + $$ % 20000))
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$S/munge.key"
munged --force --key-file="$S/munge.key" --socket="$S/munge.sock" --pid-file="$S/munged.pid" \
  --log-file="$S/munged.log" --seed-file="$S/munged.seed" 2>"$S/munged.err" ||
  skip "munged does not start here: $(head -c 300 "$S/munged.err")"
cat >"$S/slurm.conf" <<EOF
ClusterName=tavreli$$
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
KillWait=30
NodeName=n1 NodeAddr=127.0.0.1 Port=$((base + 1)) CPUs=1 State=UNKNOWN
NodeName=n2 NodeAddr=127.0.0.1 Port=$((base + 2)) CPUs=1 State=UNKNOWN
PartitionName=test Nodes=n1,n2 Default=YES MaxTime=60 State=UP
EOF
export SLURM_CONF=$S/slurm.conf
slurmctld -c -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 || skip "slurmctld does not start: $(tail -3 "$S/slurmctld.log")"
for n in n1 n2; do
  unshare --uts sh -c "hostname $n && exec slurmd -f '$SLURM_CONF'" >"$S/slurmd-$n.out" 2>&1 ||
    skip "slurmd $n does not start: $(tail -3 "$S/slurmd-$n.log")"
done
idle=0
for i in $(seq 1 120); do
  [ "$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$')" = 2 ] && idle=1 && break
  sleep 0.5
done
check "two nodes, n1 and n2, each its own slurmd, are idle" [ $idle = 1 ]
if [ $idle = 0 ]; then
  sinfo -N 2>&1 | head -5
  tail -5 "$S/slurmctld.log" "$S"/slurmd-n*.log
  echo "test_slurm_nodes: $passes passed, $fails failed"
  exit 1
fi

# ---- the plan and its one-process digest ----
cp "$src/configs/engines/default.ini" "$sub/engines/"
cat >"$sub/m.ini" <<EOI
[tournament]
name = nodes
format = round-robin
pairs = 60
seed = 23
[openings]
plies = 6
balance_depth = 0
[adjudication]
max_plies = 80
resign_score = 0
draw_moves = 0
[engine a]
path = engines/default.ini
depth = 1
[engine b]
path = engines/default.ini
depth = 2
EOI
digest() { "$ref" export "$1" --digest "$2" >/dev/null 2>&1; }
(cd "$sub" && "$ref" selfplay m.ini --out ref.h5 --threads 2 --quiet >/dev/null 2>&1)
digest "$sub/ref.h5" "$tmp/ref.dig"
check "the one-process reference holds the plan (120 games)" [ "$(wc -l <"$tmp/ref.dig")" = 120 ]

# submit OUT LOG: the batch script as a user submits it, one rank a node; prints the job id
submit() {
  (cd "$sub" && TAVRELI="$tv" TAVRELI_STOP_GRACE=60 sbatch --parsable --nodes=2 --ntasks-per-node=1 \
    --cpus-per-task=1 --time=30 --output="$2" "$script" m.ini "$1")
}
# state JOB: the job's state, "" once Slurm has forgotten it
state() { squeue -h -j "$1" -o %T 2>/dev/null; }
# wait_state JOB STATE...: until the job is in one of them (up to 10 minutes: a busy machine, the sanitizers)
wait_state() {
  local id=$1 s
  shift
  for i in $(seq 1 1200); do
    s=$(state "$id")
    for w in "$@"; do [ "$s" = "$w" ] && return 0; done
    sleep 0.5
  done
  return 1
}
# wait_done JOB: until the job has left the queue (ended)
wait_done() { wait_state "$1" ""; }
# wait_games LOG N: until rank 0's progress line in LOG counts N games
wait_games() {
  for i in $(seq 1 1200); do
    local n
    n=$(grep -o '^games [0-9]*/' "$1" 2>/dev/null | tail -1 | tr -dc 0-9)
    [ -n "$n" ] && [ "$n" -ge "$2" ] && return 0
    sleep 0.5
  done
  return 1
}
# exit_of JOB: its exit code as Slurm records it (0:0 ...)
exit_of() { scontrol show job "$1" 2>/dev/null | grep -o ' ExitCode=[0-9:]*' | head -1 | cut -d= -f2; }
# finished OUT NAME: the store holds exactly the plan's games, no part left
finished() {
  digest "$sub/results/$1.h5" "$tmp/$1.dig"
  check "$2: the store holds exactly the plan's games" cmp -s "$tmp/ref.dig" "$tmp/$1.dig"
  check "$2: no parts and no temporary file left" \
    sh -c "! ls '$sub'/results/$1.part-*.h5 '$sub'/results/$1.h5.tmp 2>/dev/null | grep -q ."
}

# ---- scancel during play, then the log's "to continue" line ----
log=$sub/results/cancel.log
id=$(submit results/c.h5 "$log")
check "scancel: the job is submitted ($id)" [ -n "$id" ]
check "... it runs" wait_state "$id" RUNNING
check "... on n1 and n2" [ "$(squeue -h -j "$id" -o %N)" = "n[1-2]" ]
check "... games are played" wait_games "$log" 4
check "... both ranks play (a part each)" \
  sh -c "for i in \$(seq 1 100); do [ -e '$sub/results/c.part-0.h5' -a -e '$sub/results/c.part-1.h5' ] && exit 0; sleep 0.2; done; exit 1"
scancel "$id"
check "... scancel ends it" wait_done "$id"
check "... the log says it stopped and gives the command to continue" grep -q "to continue: cd $sub && sbatch" "$log"
line=$(grep "to continue: " "$log" | tail -1 | sed 's/^.* to continue: //; s/   *(the script adds --resume by itself)$//')
next=$( (cd / && TAVRELI="$tv" TAVRELI_STOP_GRACE=60 bash -c "$line") 2>&1 | sed -n 's/^Submitted batch job //p')
check "... the 'to continue' line submits a job ($next)" [ -n "$next" ]
[ -n "$next" ] && wait_done "$next"
check "... which finishes (exit 0:0)" [ "$(exit_of "$next")" = "0:0" ]
finished c "scancel and 'to continue'"

# ---- scontrol requeue during play ----
log=$sub/results/requeue.log
id=$(submit results/r.h5 "$log")
check "requeue: the job runs ($id)" wait_state "$id" RUNNING
check "... games are played" wait_games "$log" 4
scontrol requeue "$id"
check "... the job is pending again" wait_state "$id" PENDING
scontrol update jobid="$id" StartTime=now # Slurm holds a requeued job for a while
check "... and runs again" wait_state "$id" RUNNING "" COMPLETING
check "... it ends" wait_done "$id"
check "... exit 0:0" [ "$(exit_of "$id")" = "0:0" ]
check "... attempt 2 in the same log (SLURM_RESTART_COUNT=1), with --resume" \
  sh -c "grep -q 'attempt 2 (SLURM_RESTART_COUNT=1)' '$log' && grep -q 'continuing results/r.h5 (it or its parts exist): --resume' '$log'"
finished r "requeue"

# ---- kill -9 of the rank on n2 ----
log=$sub/results/kill.log
id=$(submit results/k.h5 "$log")
check "kill -9: the job runs ($id)" wait_state "$id" RUNNING
check "... games are played" wait_games "$log" 4
victim=""
for p in $(pgrep -f "selfplay m.ini --out results/k.h5"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURMD_NODENAME=n2" && victim=$p && break
done
check "... the rank on n2 is found (pid $victim)" [ -n "$victim" ]
[ -n "$victim" ] && kill -9 "$victim"
check "... the job ends" wait_done "$id"
check "... failed (exit $(exit_of "$id"))" [ "$(exit_of "$id")" != "0:0" ]
id=$(submit results/k.h5 "$log")
check "... the same sbatch again is submitted ($id)" [ -n "$id" ]
check "... and ends" wait_done "$id"
check "... exit 0:0" [ "$(exit_of "$id")" = "0:0" ]
finished k "kill -9 of a rank"

echo "test_slurm_nodes: $passes passed, $fails failed"
[ "$fails" = 0 ]
