# Sourced by test_selfplay.sh, test_mpi.sh, test_mpi_referee.sh,
# test_runner_messages.sh and (through train_common.sh) the train tests.

# check NAME COMMAND...: runs COMMAND, counting a pass or printing a failure.
fails=0
passes=0
check() {
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
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
