#!/usr/bin/env bash
# What stopping an MPI tournament costs, at store sizes of a real run.
#
#   scripts/bench_stop.sh [PATH/TO/tavreli(MPI)] [GAMES ...]
#
# (defaults: build-mpi/tavreli, 5000 and 50000 games; the stores go under
# ${TMPDIR:-/tmp} and are removed at the end; 50,000 games take about 5
# minutes to play on 2 cores and 500 MB of disk.)  For each size N it:
#  1. plays N games of a plan of N + 4000 in one process (an engine searching
#     one node a move against one searching two, no resignation or draw
#     adjudication, so games run to about 90 positions like real ones,
#     quickly; the figures depend on the rows, not on the search);
#  2. resumes it on 2 ranks and, 2 s after its games have started (rank
#     1's part grew by a flush), stops the job the way
#     configs/slurm/overnight.sbatch does (SIGUSR1 to mpirun, which passes it
#     on to every rank), and prints the time from the signal to rank 0's
#     summary and to mpirun's exit, and the files left;
#  3. does the same with SIGTERM to mpirun and every rank at once (what
#     scancel and the time limit send);
#  4. times a one-process --resume --games 1: the merge of the parts into
#     the store that a stop no longer makes (the next run pays it);
#  5. resumes on 2 ranks to the end of the plan and prints its final merge
#     time.
# Before the stops it plays 2 more games on 2 ranks and prints the time of
# their final merge (N + 2 games): what a stop at that size cost when a
# stop merged (the issue measured 3.05 s at 5,000 games; mpirun kills the
# ranks after 1-2 s).
# Prints one line per figure; the load average is printed with them, since
# the machine may be shared.
set -u
tv=$(readlink -f "${1:-build-mpi/tavreli}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000 50000)
[ -x "$tv" ] || { echo "bench_stop: $tv is not an executable tavreli (build the MPI variant)" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tavreli-bench-stop-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
out=$work/bench.h5 # by its full path: pgrep finds this run's processes only
mkdir engines && cp "$src/configs/engines/default.ini" engines/
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(mpirun --oversubscribe --bind-to none -np 2)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# stop_once usr1|term: a 2-rank --resume of bench.h5, stopped 2 s into its games
stop_once() {
  local how=$1 t0 t1 pid line
  rm -f mp.out
  ("${mpi[@]}" "$tv" selfplay bench.ini --out "$out" --threads 1 --quiet --resume 2>&1 & echo $! >mp.pid; wait) |
    while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >mp.out &
  local reader=$!
  # playing: this run's part of rank 1 (not one a stop left before, which
  # the run merges first) has grown by a flush (16 games or 5 s); 2 s more
  local n old="" size0=""
  [ -e bench.part-1.h5 ] && old=$(stat -c %i bench.part-1.h5)
  for n in $(seq 1 1200); do
    if [ -e bench.part-1.h5 ] && [ "$(stat -c %i bench.part-1.h5)" != "$old" ]; then
      [ -n "$size0" ] || size0=$(stat -c %s bench.part-1.h5)
      [ "$(stat -c %s bench.part-1.h5)" -gt "$size0" ] && break
    fi
    [ "$n" -lt 1200 ] && sleep 0.1
  done
  sleep 2
  pid=$(cat mp.pid)
  t0=$(now)
  if [ "$how" = usr1 ]; then
    kill -USR1 "$pid"
  else
    # shellcheck disable=SC2046 # one pid a word
    kill -TERM "$pid" $(pgrep -f -- "selfplay bench.ini --out $out" | grep -vx "$pid")
  fi
  wait "$reader"
  t1=$(now)
  local summary
  summary=$(awk '/games stored this run/ { print $1; exit }' mp.out)
  printf '  stop by %-28s rank 0 summary %s, mpirun gone after %s s; %s; left: %s\n' \
    "$( [ "$how" = usr1 ] && echo 'SIGUSR1 to mpirun (script):' || echo 'SIGTERM to all (scancel):')" \
    "$( [ -n "$summary" ] && echo "after $(secs "$t0" "$summary") s" || echo 'lost (mpirun was gone)')" \
    "$(secs "$t0" "$t1")" \
    "$(sed -n 's/^[0-9.]* .*: \([0-9]* games stored this run\).*/\1/p' mp.out | head -1)" \
    "$(ls bench.h5* bench.part-* 2>/dev/null | tr '\n' ' ')"
}

for n in "${sizes[@]}"; do
  pairs=$(((n + 4000) / 2))
  cat >bench.ini <<EOI
[tournament]
name = bench-stop
format = round-robin
pairs = $pairs
seed = 11
[openings]
plies = 6
balance_depth = 0
[adjudication]
max_plies = 160
resign_score = 0
draw_moves = 0
[engine a]
path = engines/default.ini
nodes = 1
[engine b]
path = engines/default.ini
nodes = 2
EOI
  rm -f bench.h5* bench.part-*
  echo "store of $n games (plan $((pairs * 2))); load average before: $(load)"
  t0=$(now)
  nice "$tv" selfplay bench.ini --out "$out" --threads 2 --games "$n" --quiet >play.out 2>&1 ||
    { cat play.out; exit 1; }
  echo "  made in $(secs "$t0" "$(now)") s: $(sed -n 's/.*planned, \([0-9]*\) positions/\1 positions/p' play.out)," \
    "$(du -m bench.h5 | cut -f1) MB"
  "${mpi[@]}" "$tv" selfplay bench.ini --out "$out" --threads 1 --games 2 --quiet --resume >two.out 2>&1
  echo "  2 more games on 2 ranks, then their merge: $(grep -o 'merged [0-9]* games into [^ ]* in [0-9.]* s' two.out |
    sed "s|$work/||") (what a stop at this size cost before: it merged)"
  stop_once usr1
  stop_once term
  t0=$(now)
  "$tv" selfplay bench.ini --out "$out" --threads 1 --games 1 --quiet --resume >res.out 2>&1
  echo "  next --resume (one process, 1 game): $(secs "$t0" "$(now)") s (the merge of the parts, then reading the" \
    "whole store back);" \
    "$(sed -n 's/.*(\([0-9]*\) before).*/\1 games before/p' res.out), tmp left: $(ls bench.h5.tmp 2>/dev/null || echo none)"
  "${mpi[@]}" "$tv" selfplay bench.ini --out "$out" --threads 1 --quiet --resume >fin.out 2>&1
  echo "  the end of the plan on 2 ranks: $(grep -o 'merged [0-9]* games into [^ ]* in [0-9.]* s' fin.out |
    sed "s|$work/||"); load average after: $(load)"
done
