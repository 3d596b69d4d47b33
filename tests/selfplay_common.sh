# Sourced by the command-level tests (test_selfplay.sh, test_mpi*.sh,
# test_slurm.sh, test_resume_stop.sh, test_tune_stop.sh, ...) and (through
# train_common.sh) the train tests.

# check NAME COMMAND...: runs COMMAND, counting a pass or printing a failure.
fails=0
passes=0
check() {
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# wait_gone PATTERN: waits (up to 60 s) until no process's command line
# matches PATTERN (pgrep -f).  A rank can outlive its mpirun by seconds on a
# loaded machine (under the sanitizers, LeakSanitizer's check at its exit),
# and holds its store's run lock meanwhile: a run started at once on that
# store is refused as a concurrent one ("in use by another run").  False
# when one is still there.
wait_gone() {
  local i
  for i in $(seq 1 600); do
    pgrep -f -- "$1" >/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# How fast a signal is obeyed is checked on CPU time, not on the clock: the
# CPU a program spends between the signal and its end is the work it did
# before it looked at the signal, which a busy machine does not stretch,
# while the wall time is the scheduler's (on 2 cores beside eight busy
# loops a tune that had stopped its work needed 3.5 s of wall time to be
# scheduled to its end, 4 Dec 2026).  The bound is a share of the CPU the
# whole interrupted phase takes, measured in the same test with the same
# build: a program that finishes the phase before it looks goes over it,
# a sanitized build and a slow machine scale both sides alike.
#
# cpu_ms_of PID VAR: the CPU time PID has used so far (user and system, all
# its threads, and the children it has waited for), in ms, into VAR.  No
# process is started: the value is read the moment it is asked for.
tv_clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_ms_of() {
  local line f
  read -r line <"/proc/$1/stat" || { printf -v "$2" '%d' -1; return 1; }
  read -r -a f <<<"${line##*) }" # fields from the state on (the name may hold spaces)
  printf -v "$2" '%d' $(((f[11] + f[12] + f[13] + f[14]) * 1000 / tv_clk_tck))
}

# children_cpu_ms VAR: the CPU time (ms) of this shell's children that have
# ended and been waited for, and of theirs, into VAR (bash's `times`; no
# process is started, so nothing else is counted).
children_cpu_ms() {
  local own u s x m sec total=0
  times >"${TMPDIR:-/tmp}/tavreli-times.$$"
  { read -r own; read -r u s; } <"${TMPDIR:-/tmp}/tavreli-times.$$"
  rm -f "${TMPDIR:-/tmp}/tavreli-times.$$"
  for x in $u $s; do # 1m2.345s
    m=${x%%m*} sec=${x#*m}
    sec=${sec%s}
    total=$((total + m * 60000 + 10#${sec%.*} * 1000 + 10#${sec#*.}))
  done
  printf -v "$1" '%d' "$total"
}

# cpu_run VAR COMMAND...: runs COMMAND in the foreground; its CPU time in ms
# into VAR and its status as the function's.
cpu_run() {
  local var=$1 before after rc
  shift
  children_cpu_ms before
  "$@"
  rc=$?
  children_cpu_ms after
  printf -v "$var" '%d' $((after - before))
  return $rc
}

# term_stop PID [SIGNAL]: sends SIGNAL (TERM) to PID, a child of this shell,
# and waits for it to end (SIGKILL after 120 s: a program that ignores the
# signal).  Sets STOP_STATUS (its exit status), STOP_CPU_MS (the CPU time it
# used after the signal: see above; -1 when it had ended before) and
# STOP_WALL_MS (the wall time, for the log only).
term_stop() {
  local pid=$1 sig=${2:-TERM} before after at t0 dog
  (sleep 120 && kill -KILL "$pid") >/dev/null 2>&1 &
  dog=$!
  t0=$(date +%s%N)
  children_cpu_ms before
  cpu_ms_of "$pid" at
  kill -"$sig" "$pid"
  wait "$pid"
  STOP_STATUS=$?
  children_cpu_ms after
  STOP_WALL_MS=$((($(date +%s%N) - t0) / 1000000))
  STOP_CPU_MS=$((at < 0 ? -1 : after - before - at)) # -1: it had ended before the signal
  pkill -P "$dog" sleep 2>/dev/null
  kill "$dog" 2>/dev/null
  wait "$dog" 2>/dev/null
}

# wait_games TAVRELI STEM N: waits (up to 60 s) until the parts of the MPI
# run writing STEM.h5 (STEM.part-R.h5) hold at least N games in all; false
# when they do not.  The store's own reader opens a part while it is
# written (SWMR).
wait_games() {
  local tv=$1 stem=$2 n=$3 i
  for i in $(seq 1 300); do
    local total=0 f
    for f in "$stem".part-*.h5; do
      [ -e "$f" ] || continue
      "$tv" export "$f" --digest "$stem.count.dig" >/dev/null 2>&1 || continue
      total=$((total + $(wc -l <"$stem.count.dig")))
    done
    [ "$total" -ge "$n" ] && return 0
    sleep 0.2
  done
  return 1
}

# The tournaments they play.
# write_test_configs DIR SOURCE_DIR writes DIR/engines/default.ini and
#  - DIR/t.ini: 32 games between depth 1 and depth 2 (a few seconds);
#  - DIR/sprt.ini: up to 400 games with an SPRT that decides H1 early.
write_test_configs() {
  local tmp=$1 src=$2
  mkdir -p "$tmp/engines"
  cp "$src/configs/engines/default.ini" "$tmp/engines/default.ini"
  cat >"$tmp/t.ini" <<EOI
[tournament]
name = resume-test
format = round-robin
pairs = 16
seed = 42
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 120
[engine shallow]
path = engines/default.ini
depth = 1
[engine deeper]
path = engines/default.ini
depth = 2
EOI
  cat >"$tmp/sprt.ini" <<EOI
[tournament]
name = sprt-test
pairs = 200
seed = 5
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 160
[sprt]
elo0 = 0
elo1 = 60
alpha = 0.1
beta = 0.1
[engine deep]
path = engines/default.ini
depth = 2
[engine shallow]
path = engines/default.ini
depth = 1
EOI
}

# fake_tournament FILE NAME PAIRS ENGINE_A_LINES ENGINE_B_LINES: short games
# of separate programs (tests/fake_engine.c) on one thread, no adjudication
# but the ply limit (40)
fake_tournament() {
  cat >"$1" <<EOI
[tournament]
name = $2
pairs = $3
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
$4
[engine b]
$5
EOI
}

# big_resume_store TAVRELI MAKE_RESUME_STORE DIR [GAMES]: DIR/big.h5, a
# store of GAMES (3,000) games that a resume accepts, made in about a second: DIR/one.ini is
# a plan whose games are all one game (identical engines, no random
# openings; its engine DIR/default.ini), game 0 is played (DIR/small.h5) and
# make_resume_store (tests/make_resume_store.c) copies it (110 plies) into
# games 0 .. GAMES-1 of the plan.  A resume reads and replays such a store for
# seconds (5,000 games took 14 s at load 14 on 2 cores), where playing them
# would take minutes.  Returns make_resume_store's status.
big_resume_store() {
  local tv=$1 mk=$2 dir=$3 games=${4:-3000}
  cp "$(dirname "${BASH_SOURCE[0]}")/../configs/engines/default.ini" "$dir/default.ini"
  cat >"$dir/one.ini" <<EOI
[tournament]
name = one
pairs = 100000
seed = 11
[openings]
plies = 0
[adjudication]
max_plies = 400
resign_score = 0
draw_moves = 0
[engine a]
path = default.ini
depth = 1
[engine b]
path = default.ini
depth = 1
EOI
  "$tv" selfplay "$dir/one.ini" --out "$dir/small.h5" --games 1 --threads 1 --quiet >/dev/null 2>&1
  "$mk" "$dir/one.ini" "$dir/small.h5" "$dir/big.h5" "$games" >/dev/null
}
