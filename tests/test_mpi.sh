#!/usr/bin/env bash
# End-to-end checks of distributed self-play (a build with -DTAVRELI_MPI=ON):
#  - a 2-rank tournament stores exactly the games of a single-process run
#    (export --digest: moves, scores, node counts, positions), in one file,
#    with no parts left, and rank 0's progress and summary count all ranks;
#  - one rank killed with SIGKILL (the job dies) leaves its parts; a plain
#    run refuses them; --resume on 3 ranks merges them and plays only the
#    missing games, ending with the reference games;
#  - SIGTERM to every rank (what Slurm's scancel does) stops cleanly,
#    leaving the parts unmerged; --resume merges and completes them;
#  - an SPRT tournament reaches the same decision as in one process;
#  - ranks that read different INIs, or --resume of a store that a live
#    process writes, are refused before any game;
#  - a build without MPI, started by mpirun on 2 ranks, refuses to run;
#  - bench mpi runs (its figures are for people, not for this test).
# The single-process reference runs use the build without MPI when one is
# given (games depend only on the configuration, so any build gives the same
# digests; CI passes the optimised one, which keeps the sanitised MPI run of
# this test short and also checks that the two builds play the same games).
# usage: test_mpi.sh PATH/TO/tavreli(MPI) SOURCE_DIR [PATH/TO/tavreli(plain)]
set -u
tv=$1
src=$2
plain=${3:-}
ref=${plain:-$tv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, write_test_configs

# Open MPI as root and on few cores; in containers and under AddressSanitizer
# (its memory kept to exit suppressed): tests/mpi_env.sh.
source "$src/tests/mpi_env.sh"; mpi_test_env "$src"
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

write_test_configs "$tmp" "$src"
# a longer one to interrupt (depth 4: the run must outlast the kill and SIGTERM checks)
sed 's/pairs = 16/pairs = 20/; s/depth = 2/depth = 4/' "$tmp/t.ini" >"$tmp/long.ini"

digest() { "$tv" export "$1" --digest "$2" >/dev/null 2>&1; }

# rank R's process (not mpirun) of the run writing OUT
rank_pid() {
  local out=$1 r=$2 p
  for p in $(pgrep -f -- "--out $out"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$tv")" ] || continue
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$r" && echo "$p"
  done
}

# start_long STEM N: a 2-rank run of long.ini writing STEM.h5 (its output in
# STEM.out), in the background as $job; returns once its parts hold N games
start_long() {
  "${mpi[@]}" -np 2 "$tv" selfplay "$tmp/long.ini" --out "$1.h5" --threads 1 --quiet >"$1.out" 2>&1 &
  job=$!
  wait_games "$tv" "$1" "$2"
}

# ---- the same games as one process ----
"$ref" selfplay "$tmp/t.ini" --out "$tmp/ref.h5" --threads 2 --quiet >/dev/null 2>&1
check "single-process reference run succeeds" [ $? = 0 ]
digest "$tmp/ref.h5" "$tmp/ref.dig"
check "reference has 32 games" [ "$(wc -l <"$tmp/ref.dig")" = 32 ]

"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/t.ini" --out "$tmp/two.h5" --threads 1 >"$tmp/two.out" 2>"$tmp/two.err"
check "2-rank run succeeds" [ $? = 0 ]
digest "$tmp/two.h5" "$tmp/two.dig"
check "2 ranks store exactly the games of one process" cmp -s "$tmp/ref.dig" "$tmp/two.dig"
check "2-rank run leaves one file, no parts" [ ! -e "$tmp/two.part-0.h5" -a ! -e "$tmp/two.part-1.h5" ]
check "summary counts the games of both ranks" grep -q "32 games stored this run (0 before), 32 of 32 planned" "$tmp/two.out"
check "summary names the ranks" grep -q "^2 MPI ranks x 1 thread; merged 32 games" "$tmp/two.out"
check "rank 0's progress counts all ranks" grep -q "^games 32/32 .*ETA done" "$tmp/two.err"
check "one progress line per update (rank 0 only)" [ "$(grep -c 'ETA done' "$tmp/two.err")" = 1 ]
check "2-rank store opens with h5dump" h5dump -H "$tmp/two.h5" >/dev/null
# what shaped the run is in the store (issue 35: only the INI's threads
# were): 2 ranks on this host, 1 thread each, their cores and the load
sessions() { h5dump -a sessions "$1" 2>/dev/null | grep -o 'began=[^"]*' | tr -d '\\'; }
check "the store records the session: 2 ranks, both on this host, 2 threads in all, 32 games" \
  grep -Eq 'end=finished games=32 .* ranks=2 host=[^,]+,2,2,[0-9]+,[0-9.]+' <(sessions "$tmp/two.h5")

"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/t.ini" --out "$tmp/two.h5" --threads 1 --quiet >"$tmp/again.out" 2>&1
check "an existing store is refused without --resume/--force" [ $? != 0 ]
check "... with a message naming the way out" grep -q -- "--resume.*--force" "$tmp/again.out"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/t.ini" --out "$tmp/two.h5" --threads 1 --quiet --resume >"$tmp/again.out" 2>&1
check "resuming a complete store plays nothing" grep -q " 0 games stored this run (32 before)" "$tmp/again.out"

# ---- ranks that read different configurations: refused before any game ----
sed 's/^seed = 42/seed = 43/' "$tmp/t.ini" >"$tmp/other.ini"
"${mpi[@]}" -np 1 "$tv" selfplay "$tmp/t.ini" --out "$tmp/mix.h5" --quiet : \
  -np 1 "$tv" selfplay "$tmp/other.ini" --out "$tmp/mix.h5" --quiet >"$tmp/mix.out" 2>&1
check "ranks with different INIs are refused" [ $? != 0 ]
check "... saying why" grep -q "rank 1 read a tournament INI or engine weights that differ from rank 0's" "$tmp/mix.out"
check "... leaving no store and no parts" sh -c "! ls '$tmp'/mix*.h5 2>/dev/null | grep -q ."

# ---- a rank killed: parts stay, --resume merges them ----
start_long "$tmp/k" 16
pid=$(rank_pid "$tmp/k.h5" 1)
check "found rank 1 of the running job" [ -n "$pid" ]
[ -n "$pid" ] && kill -9 $pid
wait $job
check "the job fails when a rank dies" [ $? != 0 ]
check "... and its rank 0 ends" wait_gone "--out $tmp/k.h5"
check "the parts of the dead job are left" [ -e "$tmp/k.part-0.h5" -a -e "$tmp/k.part-1.h5" ]
"$tv" selfplay "$tmp/long.ini" --out "$tmp/k.h5" --threads 1 --quiet >"$tmp/k2.out" 2>&1
check "a new run refuses the parts" [ $? != 0 ]
check "... and says how to resume (it said: $(head -c 400 "$tmp/k2.out"))" \
  grep -q "interrupted MPI run left its parts.*--resume" "$tmp/k2.out"
"${mpi[@]}" -np 3 "$tv" selfplay "$tmp/long.ini" --out "$tmp/k.h5" --threads 1 --quiet --resume >"$tmp/k3.out" 2>&1
check "--resume on 3 ranks succeeds" [ $? = 0 ]
before=$(sed -n 's/.*stored this run (\([0-9]*\) before).*/\1/p' "$tmp/k3.out")
check "--resume keeps the games the parts held" [ "${before:-0}" -ge 16 ]
check "--resume completes the plan" grep -q "40 of 40 planned" "$tmp/k3.out"
"$ref" selfplay "$tmp/long.ini" --out "$tmp/longref.h5" --threads 2 --quiet >/dev/null 2>&1
digest "$tmp/longref.h5" "$tmp/longref.dig"
digest "$tmp/k.h5" "$tmp/k.dig"
check "killed then resumed: the games of one process" cmp -s "$tmp/longref.dig" "$tmp/k.dig"
check "no parts after the resumed run" sh -c "! ls '$tmp'/k.part-*.h5 2>/dev/null | grep -q ."

# ---- SIGTERM to every rank (scancel): a clean stop, one store ----
start_long "$tmp/s" 12
p0=$(rank_pid "$tmp/s.h5" 0)
p1=$(rank_pid "$tmp/s.h5" 1)
[ -n "$p0$p1" ] && kill -TERM $p0 $p1
wait $job
check "SIGTERM: the ranks end" wait_gone "--out $tmp/s.h5"
# (no merge on a signal: under mpirun it would be killed a second later)
check "SIGTERM: not merged, the parts stay, no temporary file" \
  [ ! -e "$tmp/s.h5" -a -e "$tmp/s.part-0.h5" -a -e "$tmp/s.part-1.h5" -a ! -e "$tmp/s.h5.tmp" ]
digest "$tmp/s.part-0.h5" "$tmp/s0.dig"
digest "$tmp/s.part-1.h5" "$tmp/s1.dig"
cat "$tmp/s0.dig" "$tmp/s1.dig" >"$tmp/s.dig"
n=$(wc -l <"$tmp/s.dig")
check "SIGTERM: the parts hold the finished games ($n)" [ "$n" -ge 12 -a "$n" -lt 40 ]
check "SIGTERM: every stored game is a reference game" sh -c "grep -vxFf '$tmp/longref.dig' '$tmp/s.dig' | wc -l | grep -qx 0"
check "SIGTERM: rank 0's part records the stopped session" grep -q "end=stopped" <(sessions "$tmp/s.part-0.h5")
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/long.ini" --out "$tmp/s.h5" --threads 1 --quiet --resume >/dev/null 2>&1
digest "$tmp/s.h5" "$tmp/s.dig"
check "SIGTERM then --resume: the games of one process" cmp -s "$tmp/longref.dig" "$tmp/s.dig"
check "... and the store has both sessions: the stopped one (from the part) and the one that finished" \
  sh -c "[ \"\$(h5dump -a sessions '$tmp/s.h5' | grep -Ec 'end=(stopped|finished)')\" = 2 ]"

# ---- an output folder a rank does not share: refused before any game ----
# Rank 1 runs in a mount namespace of its own with an empty tmpfs over the
# output folder, as a node whose /scratch is its own disk (needs root and
# unshare).  Before, all 32 games were played, the merge failed on the
# missing part, and the run said "32 games of this run are stored in
# .../t.h5", a file that did not exist (issue 35).
mkdir -p "$tmp/own"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  "${mpi[@]}" -np 1 "$tv" selfplay "$tmp/t.ini" --out "$tmp/own/t.h5" --threads 1 --quiet : \
    -np 1 unshare -m sh -c "mount -t tmpfs tmpfs '$tmp/own' && exec '$tv' selfplay '$tmp/t.ini' --out '$tmp/own/t.h5' --threads 1 --quiet" \
    >"$tmp/own.out" 2>&1
  rc=$?
  check "a rank that cannot see rank 0's output folder: the run fails" [ $rc != 0 ]
  check "... at the start, naming the rank, its host and the folder" \
    grep -q "rank 1 on .* cannot see the output folder $tmp/own of rank 0" "$tmp/own.out"
  check "... saying what to do" grep -q "a file system every node shares" "$tmp/own.out"
  check "... having played nothing, and left nothing in the folder" \
    sh -c "! grep -q 'games of this run are stored' '$tmp/own.out' && [ -z \"\$(ls -A '$tmp/own')\" ]"
  grep -q "cannot see the output folder" "$tmp/own.out" || head -20 "$tmp/own.out"
else
  echo "skipped: an output folder a rank does not share (needs root and unshare -m)"
fi

# ---- a store that a live process is writing: refused before any game ----
"$tv" selfplay "$tmp/long.ini" --out "$tmp/live.h5" --threads 1 --quiet >/dev/null 2>&1 &
live=$!
for i in $(seq 1 100); do [ -e "$tmp/live.h5" ] && break; sleep 0.1; done
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/long.ini" --out "$tmp/live.h5" --threads 1 --quiet --resume >"$tmp/live.out" 2>&1
check "--resume of a store being written is refused" [ $? != 0 ]
check "... at once, naming the reason" grep -qE "being written by another process|in use by another run" "$tmp/live.out"
check "... and leaves no parts" sh -c "! ls '$tmp'/live.part-*.h5 2>/dev/null | grep -q ."
kill -INT $live 2>/dev/null
wait $live

# ---- SPRT: the same decision as one process ----
"$ref" selfplay "$tmp/sprt.ini" --out "$tmp/sprt1.h5" --threads 2 --quiet >"$tmp/sprt1.out" 2>&1
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/sprt.ini" --out "$tmp/sprt2.h5" --threads 1 --quiet >"$tmp/sprt2.out" 2>&1
check "SPRT over 2 ranks succeeds" [ $? = 0 ]
check "SPRT over 2 ranks: the decision of one process" \
  sh -c "[ \"\$(grep '^SPRT:' '$tmp/sprt1.out')\" = \"\$(grep '^SPRT:' '$tmp/sprt2.out')\" ] && grep -q '^SPRT: H1' '$tmp/sprt2.out'"
check "SPRT decision stored in the merged file" sh -c "h5dump -a /sprt_result '$tmp/sprt2.h5' | grep -q 'H1 accepted'"

# ---- a build without MPI refuses to run as several ranks ----
if [ -n "$plain" ]; then
  "${mpi[@]}" -np 2 "$plain" selfplay "$tmp/t.ini" --out "$tmp/plain.h5" --quiet >"$tmp/plain.out" 2>&1
  check "a build without MPI refuses mpirun -np 2" [ $? != 0 ]
  check "... saying how to build with MPI" grep -q "built without MPI.*TAVRELI_MPI=ON" "$tmp/plain.out"
  check "... and writes nothing" [ ! -e "$tmp/plain.h5" ]
fi

# ---- separate programs under mpirun: each rank starts its own ----
sed 's|^path = engines/default.ini$|command = '"$(readlink -f "$tv")"' uci --engine engines/default.ini|' "$tmp/t.ini" \
  >"$tmp/proto.ini"
"${mpi[@]}" -np 2 "$tv" selfplay "$tmp/proto.ini" --out "$tmp/proto.h5" --threads 1 --quiet >"$tmp/proto.out" 2>&1
check "2 ranks with engines as tavreli uci processes succeed" [ $? = 0 ]
digest "$tmp/proto.h5" "$tmp/proto.dig"
# the in-process engines' games of t.ini: the single-process reference above
check "... playing the games of the in-process engines" cmp -s "$tmp/ref.dig" "$tmp/proto.dig"
leftover_uci() {
  local p
  for p in $(pgrep -f -- " uci --engine engines/default.ini"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$tv")" ] && echo "$p"
  done
}
check "... and leaving no engine process" [ -z "$(leftover_uci)" ]

# ---- bench mpi runs (its figures are not checked: tests do not time) ----
"$tv" bench mpi --games 4 --depth 1 >"$tmp/bench.out" 2>&1
check "bench mpi runs 1 rank then 2" grep -q "^speed-up 2 ranks / 1 rank: " "$tmp/bench.out"
check "bench mpi counts the games of both runs" [ "$(grep -c ': 4 games at depth 1' "$tmp/bench.out")" = 2 ]
if [ -n "$plain" ]; then
  "$plain" bench mpi >"$tmp/bench2.out" 2>&1
  check "bench mpi in a build without MPI: a clear error" sh -c "[ $? = 1 ] && grep -q 'built without MPI' '$tmp/bench2.out'"
fi

echo "test_mpi: $passes passed, $fails failed"
[ "$fails" = 0 ]
