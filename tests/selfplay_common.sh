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
