#!/usr/bin/env bash
# End-to-end checks of `tavreli selfplay`: the same games with 1 and 2
# threads; kill -9 at random moments, then --resume, gives the same games as
# an uninterrupted run; bad configurations and outputs are refused before any
# game is played; parts left by an MPI run are refused, merged by --resume
# and removed by --force; SPRT, report and export.
# usage: test_selfplay.sh PATH/TO/tavreli SOURCE_DIR
set -u
tv=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, write_test_configs

write_test_configs "$tmp" "$src"

# games of a store as text, in game-index order (export writes that order):
# the tags and the moves, one game's moves on one line, without the move
# comments (they hold thinking times) (exit status: that of the export)
games_of() {
  "$tv" export "$1" --tgn "$1.tgn" >/dev/null 2>"$1.err" || return 1
  awk '/^\[Event/ {next} /^\[/ {if (m != "") print m; m = ""; print; next}
       /^$/ {next} {gsub(/ ?\{[^}]*\}/, ""); gsub(/^ +| +$/, ""); if ($0 != "") m = m (m == "" ? "" : " ") $0}
       END {if (m != "") print m}' "$1.tgn"
}

# the number of games a store holds (0 when there is no store yet)
count_games() {
  "$tv" export "$1" --digest "$tmp/count.dig" >/dev/null 2>&1 && wc -l <"$tmp/count.dig" || echo 0
}

# waits until store $1 holds more than $2 games or process $3 has ended
# (the games are counted again when the file's size or time changed, as a
# flush writes the file, and every 10th round in any case)
wait_more_games() {
  local i seen="" now
  for i in $(seq 1 600); do
    kill -0 "$3" 2>/dev/null || return 0
    now=$(stat -c '%s %y' "$1" 2>/dev/null)
    if [ -n "$now" ] && { [ "$now" != "$seen" ] || [ $((i % 10)) = 0 ]; }; then
      seen=$now
      [ "$(count_games "$1")" -gt "$2" ] && return 0
    fi
    sleep 0.05
  done
}

# waits until file $1 has a line matching $2 or process $3 has ended
wait_line() {
  local i
  for i in $(seq 1 1200); do
    kill -0 "$3" 2>/dev/null || return 0
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
}

# one game's record (from its Round tag to the next game)
block() { awk -v r="[Round \"$2\"]" '$0 == r {p = 1; print; next} /^\[Round/ {p = 0} p' "$1"; }

"$tv" selfplay "$tmp/t.ini" --out "$tmp/ref.h5" --threads 1 --quiet >"$tmp/ref.out" 2>&1
check "reference run succeeds" [ $? = 0 ]
check "reference run stores 32 games" grep -q "32 of 32 planned" "$tmp/ref.out"
games_of "$tmp/ref.h5" >"$tmp/ref.txt"
"$tv" verify "$tmp/ref.h5" >"$tmp/verify.out" 2>&1
check "every stored game replays with the rules, terminations as the rules say" [ $? = 0 ]
check "... and verify says so" grep -q "32 games replayed, 0 with problems" "$tmp/verify.out"
check "reference export has 32 games" [ "$(grep -c '^\[Round' "$tmp/ref.txt")" = 32 ]

"$tv" selfplay "$tmp/t.ini" --out "$tmp/two.h5" --threads 2 --quiet >/dev/null 2>&1
games_of "$tmp/two.h5" >"$tmp/two.txt"
check "2 threads give the same games as 1" cmp -s "$tmp/ref.txt" "$tmp/two.txt"

# kill -9 at random moments, then resume, several times
RANDOM=7
first=1
compared=0
for round in 1 2 3 4 5; do
  if [ $first = 1 ]; then flag=""; first=0; else flag="--resume"; fi
  before=$(count_games "$tmp/k.h5")
  "$tv" selfplay "$tmp/t.ini" --out "$tmp/k.h5" --threads 2 --quiet $flag >/dev/null 2>&1 &
  pid=$!
  # kill once a batch of this run reached the store (games are flushed 16
  # at a time), at a random moment of the next one; round 1 may come first
  [ $round = 1 ] || wait_more_games "$tmp/k.h5" "$before" $pid
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  if [ -f "$tmp/k.h5" ]; then
    games_of "$tmp/k.h5" >"$tmp/k$round.txt"
    check "store opens after kill -9 (round $round)" [ $? = 0 ]
    # every game it holds is exactly the reference game of that index
    whole=1
    for r in $(sed -n 's/^\[Round "\([0-9]*\)"\]$/\1/p' "$tmp/k$round.txt"); do
      cmp -s <(block "$tmp/k$round.txt" "$r") <(block "$tmp/ref.txt" "$r") || whole=0
      compared=$((compared + 1))
    done
    check "games kept after kill -9 are whole and right (round $round)" [ $whole = 1 ]
  else
    first=1 # killed before the store was created
  fi
done
check "the killed stores held games to compare ($compared)" [ "$compared" -gt 0 ]
flag="--resume"; [ -f "$tmp/k.h5" ] || flag=""
"$tv" selfplay "$tmp/t.ini" --out "$tmp/k.h5" --threads 2 --quiet $flag >"$tmp/k.out" 2>&1
check "final resume succeeds" [ $? = 0 ]
games_of "$tmp/k.h5" >"$tmp/k.txt"
check "killed and resumed run has the same games as the uninterrupted one" cmp -s "$tmp/ref.txt" "$tmp/k.txt"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/k.h5" --resume --quiet >"$tmp/k2.out" 2>&1
check "resuming a complete store plays nothing" grep -q "0 games stored this run (32 before)" "$tmp/k2.out"

# Ctrl-C: games in flight abandoned, finished ones flushed, file closed cleanly.
# The signal comes once the first batch of 16 games is in the store (a
# condition, not a time: the engine plays t.ini's 32 games within 0.4 s on a
# quiet machine, a sanitized build on a loaded one takes seconds), in a plan
# of 64 games (48 still to play then: 3 batches, longer than the wait takes
# to see the first); its uninterrupted run, to compare with, plays
# meanwhile.
sed 's/^pairs = 16/pairs = 32/' "$tmp/t.ini" >"$tmp/int.ini"
"$tv" selfplay "$tmp/int.ini" --out "$tmp/int-ref.h5" --quiet >/dev/null 2>&1 &
refpid=$!
"$tv" selfplay "$tmp/int.ini" --out "$tmp/int.h5" --threads 2 --quiet >"$tmp/int.out" 2>&1 &
pid=$!
wait_more_games "$tmp/int.h5" 0 $pid
kill -INT $pid
wait $pid
check "Ctrl-C exits with status 130" [ $? = 130 ]
check "Ctrl-C says how to resume" grep -q -- "--resume" "$tmp/int.out"
check "store after Ctrl-C opens with h5dump" h5dump -H "$tmp/int.h5" >/dev/null
n=$(count_games "$tmp/int.h5")
check "... holding the games finished before it, not the whole plan ($n of 64)" [ "$n" -gt 0 -a "$n" -lt 64 ]
"$tv" selfplay "$tmp/int.ini" --out "$tmp/int.h5" --resume --quiet >/dev/null 2>&1
games_of "$tmp/int.h5" >"$tmp/int.txt"
wait $refpid
games_of "$tmp/int-ref.h5" >"$tmp/int-ref.txt"
check "interrupted then resumed run has the same games" cmp -s "$tmp/int-ref.txt" "$tmp/int.txt"
check "... all 64" [ "$(grep -c '^\[Round' "$tmp/int.txt")" = 64 ]

# SIGTERM in the middle of a deep search: the search polls the stop flag, so
# the run ends at once; the finished game is stored and --resume plays
# the plan exactly. Game 0 (fast moves first) is over at once; in game 1 the
# deep engine's first move is a search of about 4 s of CPU (its node limit
# comes from the nodes per CPU second measured just before, so a slow or
# sanitized build still searches long enough, and the limit keeps the
# games reproducible). One ply per game. The signal comes once game 0 is on
# the progress line (the first finished game is reported at once), so the
# deep search has just begun: a run that did not poll would use about
# twice the 2 s of CPU allowed after the signal (term_stop,
# tests/selfplay_common.sh: CPU, which a busy machine does not stretch).
cpu_run analyse_cpu "$tv" analyse --nodes 300000 startpos >/dev/null 2>&1
deep_nodes=$(( 300000 * 4000 / (analyse_cpu > 0 ? analyse_cpu : 1) ))
[ "$deep_nodes" -ge 200000 ] || deep_nodes=200000
cat >"$tmp/term.ini" <<EOI
[tournament]
name = term-test
pairs = 1
seed = 3
[openings]
plies = 0
[adjudication]
max_plies = 1
[engine fast]
path = engines/default.ini
depth = 1
[engine deep]
path = engines/default.ini
depth = 48
nodes = $deep_nodes
EOI
"$tv" selfplay "$tmp/term.ini" --out "$tmp/term.h5" --threads 1 >"$tmp/term.out" 2>&1 &
pid=$!
wait_line "$tmp/term.out" "^games 1/2 " $pid
term_stop $pid
status=$STOP_STATUS
echo "SIGTERM during a deep search: obeyed after $STOP_CPU_MS ms of CPU, $STOP_WALL_MS ms of wall time"
check "SIGTERM during a deep search ends the run within 2 s of CPU (took $STOP_CPU_MS ms, nodes $deep_nodes)" \
  [ "$STOP_CPU_MS" -ge 0 -a "$STOP_CPU_MS" -lt 2000 ]
check "... with the status of SIGTERM ($status)" [ "$status" = 143 ]
check "... and the finished game stored, not the one in flight" [ "$(count_games "$tmp/term.h5")" = 1 ]
"$tv" selfplay "$tmp/term.ini" --out "$tmp/term.h5" --resume --threads 1 --quiet >"$tmp/term2.out" 2>&1
check "--resume after SIGTERM completes the plan" grep -q "1 games stored this run (1 before), 2 of 2 planned" "$tmp/term2.out"
"$tv" selfplay "$tmp/term.ini" --out "$tmp/term-ref.h5" --threads 1 --quiet >/dev/null 2>&1
"$tv" export "$tmp/term.h5" --digest "$tmp/term.dig" >/dev/null 2>&1
"$tv" export "$tmp/term-ref.h5" --digest "$tmp/term-ref.dig" >/dev/null 2>&1
check "... exactly: the games of an uninterrupted run" cmp -s "$tmp/term.dig" "$tmp/term-ref.dig"

# an SPRT stops the run by itself and stores its decision
"$tv" selfplay "$tmp/sprt.ini" --out "$tmp/sprt.h5" --quiet >"$tmp/sprt.out" 2>&1
check "SPRT run succeeds" [ $? = 0 ]
check "SPRT accepts H1 for depth 2 over depth 1" grep -q "^SPRT: H1 accepted" "$tmp/sprt.out"
played=$(sed -n 's/.*: \([0-9]*\) games stored this run.*/\1/p' "$tmp/sprt.out")
check "SPRT stops before the 400 planned games" [ "${played:-400}" -lt 400 ]
check "SPRT decision stored in the file" sh -c "h5dump -a /sprt_result '$tmp/sprt.h5' | grep -q 'H1 accepted'"
"$tv" selfplay "$tmp/sprt.ini" --out "$tmp/sprt.h5" --resume --quiet >"$tmp/sprt2.out" 2>&1
check "resuming a decided SPRT plays nothing" grep -q " 0 games stored this run" "$tmp/sprt2.out"
# the same test in the logistic model (issue 36): decided, its model stored
# and said; its LLR is fishtest's logistic one (tavreli sprt on the counts)
sed 's/^\[sprt\]/[sprt]\nmodel = logistic/' "$tmp/sprt.ini" >"$tmp/sprtl.ini"
"$tv" selfplay "$tmp/sprtl.ini" --out "$tmp/sprtl.h5" --quiet >"$tmp/sprtl.out" 2>&1
check "a logistic SPRT decides" grep -q "^SPRT: H1 accepted.* (logistic Elo)$" "$tmp/sprtl.out"
check "... its model is stored" sh -c "h5dump -a /sprt '$tmp/sprtl.h5' | grep -q 'model=logistic'"
"$tv" report "$tmp/sprtl.h5" -o "$tmp/repl" >/dev/null 2>&1
check "... and the report names it with the normalized bounds beside" \
  sh -c "grep -q 'logistic model, cutechess-cli' '$tmp/repl/report.md' && grep -q 'In the normalized model' '$tmp/repl/report.md'"

# parts left by an interrupted MPI run (made here by one process: the same
# games either way): refused, merged by --resume (a game in two parts once),
# removed by --force
"$tv" selfplay "$tmp/t.ini" --out "$tmp/p1.h5" --threads 2 --games 10 --quiet >/dev/null 2>&1
"$tv" selfplay "$tmp/t.ini" --out "$tmp/p2.h5" --threads 2 --games 14 --quiet >/dev/null 2>&1
mv "$tmp/p1.h5" "$tmp/m.part-0.h5"
mv "$tmp/p2.h5" "$tmp/m.part-3.h5"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/m.h5" --quiet >"$tmp/m.out" 2>&1
check "leftover parts are refused without --resume" [ $? = 1 ]
check "... saying what to do" grep -q "interrupted MPI run left its parts.*--resume.*--force" "$tmp/m.out"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/m.h5" --resume --threads 2 --quiet >"$tmp/m.out" 2>&1
check "--resume merges the parts first" grep -q "18 games stored this run (14 before)" "$tmp/m.out"
check "... and removes them" sh -c "! ls '$tmp'/m.part-*.h5 2>/dev/null | grep -q ."
games_of "$tmp/m.h5" >"$tmp/m.txt"
check "parts merged and resumed: the reference games" cmp -s "$tmp/ref.txt" "$tmp/m.txt"
cp "$tmp/m.h5" "$tmp/m.part-1.h5"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/m.h5" --force --games 2 --quiet >/dev/null 2>&1
check "--force removes leftover parts" [ ! -e "$tmp/m.part-1.h5" ]
# OUT.h5.tmp of a merge killed before its rename (SIGKILL from mpirun):
# --resume removes it
printf 'half a merge\n' >"$tmp/m.h5.tmp"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/m.h5" --resume --games 1 --quiet >/dev/null 2>&1
check "--resume removes a stale OUT.h5.tmp" [ $? = 0 -a ! -e "$tmp/m.h5.tmp" ]

# SIGUSR1 (what mpirun passes on to every rank) stops like SIGTERM
"$tv" selfplay "$tmp/term.ini" --out "$tmp/usr1.h5" --threads 1 >"$tmp/usr1.out" 2>&1 &
pid=$!
wait_line "$tmp/usr1.out" "^games 1/2 " $pid
kill -USR1 $pid
wait $pid
check "SIGUSR1 stops the run with status 138" [ $? = 138 ]
check "... storing the finished game, not the one in flight" [ "$(count_games "$tmp/usr1.h5")" = 1 ]
check "... and saying how to resume" grep -q "^interrupted: run '$tv selfplay .* --resume'" "$tmp/usr1.out"
check "... its last progress line saying it stopped, not done ($(grep '^games' "$tmp/usr1.out" | tail -1 | grep -o 'ETA [a-z0-9]*'))" \
  grep -q "| ETA stopped" <(grep '^games' "$tmp/usr1.out" | tail -1)

# the strength report from the stores
"$tv" report "$tmp/ref.h5" -o "$tmp/rep" >"$tmp/rep.out" 2>&1
check "report succeeds" [ $? = 0 ]
check "report.html and its plot exist" [ -s "$tmp/rep/report.html" -a -s "$tmp/rep/lengths.png" ]
check "report names both versions" sh -c "grep -q shallow '$tmp/rep/report.md' && grep -q deeper '$tmp/rep/report.md'"
"$tv" report "$tmp/sprt.h5" -o "$tmp/rep2" >/dev/null 2>&1
check "report shows the SPRT decision" grep -q "H1 accepted" "$tmp/rep2/report.md"
"$tv" report "$tmp/missing.h5" -o "$tmp/rep3" >/dev/null 2>"$tmp/e"
check "report of a missing store fails clearly" grep -q "missing.h5" "$tmp/e"

# refusals before any game
"$tv" selfplay "$tmp/t.ini" --out "$tmp/ref.h5" --quiet >"$tmp/o" 2>"$tmp/e"
check "existing output refused" [ $? = 1 ]
check "refusal says --resume or --force" grep -q -- "--resume.*--force" "$tmp/e"
"$tv" selfplay "$tmp/t.ini" --out "/nonexistent-dir/x.h5" --quiet >"$tmp/o" 2>"$tmp/e"
check "unwritable output is an error" [ $? = 1 ]
check "... and only the error: no summary that looks like success" [ ! -s "$tmp/o" ]
mkdir "$tmp/emptydir"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/emptydir" --force --quiet >"$tmp/o" 2>"$tmp/e"
check "--force does not replace a directory" sh -c "[ -d '$tmp/emptydir' ] && grep -q 'is a directory' '$tmp/e'"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/x.h5" --threads 1025 --quiet >"$tmp/o" 2>"$tmp/e"
check "--threads beyond the INI's range is refused with the range" sh -c "[ $? = 2 ] && grep -q 'from 0 to 1024' '$tmp/e'"
sed 's/^pairs = 16/pairs = 16\nspeed = 3/' "$tmp/t.ini" >"$tmp/bad.ini"
"$tv" selfplay "$tmp/bad.ini" --out "$tmp/bad.h5" --quiet >"$tmp/o" 2>"$tmp/e"
check "bad INI key refused with file and line" grep -q "bad.ini:5:" "$tmp/e"
check "no store made for a bad INI" [ ! -f "$tmp/bad.h5" ]
sed 's/^seed = 42/seed = 43/' "$tmp/t.ini" >"$tmp/other.ini"
"$tv" selfplay "$tmp/other.ini" --out "$tmp/ref.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "resume with another configuration refused" [ $? = 1 ]
check "... showing the first differing line of each INI" grep -q "seed 42, now 43; first difference: stored line 5 'seed = 42', now line 5 'seed = 43'" "$tmp/e"

# a change that cannot alter a stored game is taken: comments, blanks, more
# pairs, threads; the extended run is the uninterrupted run of its size
{ echo "; extended overnight"; sed 's/^pairs = 16/pairs  =  20   ; more/; s/^\[openings\]/threads = 1\n\n[openings]/' "$tmp/t.ini"; } >"$tmp/more.ini"
"$tv" selfplay "$tmp/more.ini" --out "$tmp/ext-ref.h5" --quiet >/dev/null 2>&1 & # meanwhile
refpid=$!
"$tv" selfplay "$tmp/t.ini" --out "$tmp/ext.h5" --games 10 --quiet >/dev/null 2>&1
"$tv" selfplay "$tmp/more.ini" --out "$tmp/ext.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "resume with more pairs and comments accepted" grep -q "30 games stored this run (10 before), 40 of 40 planned" "$tmp/o"
wait $refpid
"$tv" export "$tmp/ext.h5" --digest "$tmp/ext.dig" >/dev/null 2>&1
"$tv" export "$tmp/ext-ref.h5" --digest "$tmp/ext-ref.dig" >/dev/null 2>&1
check "... giving the games of an uninterrupted run of the larger size" cmp -s "$tmp/ext.dig" "$tmp/ext-ref.dig"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/ext.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "... and fewer pairs than stored are refused" grep -q "pairs 20, now 16" "$tmp/e"

# tune: a store given twice is read once; on one game, the weights the data
# cannot determine keep their start values
"$tv" tune --data "$tmp/ref.h5" --engine "$tmp/engines/default.ini" --out "$tmp/t1.ini" --groups material \
  >"$tmp/t1.out" 2>&1
"$tv" tune --data "$tmp/ref.h5" "$tmp/ref.h5" --engine "$tmp/engines/default.ini" --out "$tmp/t2.ini" \
  --groups material >"$tmp/t2.out" 2>&1
check "tune: a store given twice is read once" grep -q "^32 games held by more than one store were read once" "$tmp/t2.out"
check "... giving the same positions" sh -c "[ \"\$(grep '^positions:' '$tmp/t1.out' | cut -d' ' -f2)\" = \"\$(grep '^positions:' '$tmp/t2.out' | cut -d' ' -f2)\" ]"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/one.h5" --games 1 --quiet >/dev/null 2>&1
"$tv" tune --data "$tmp/one.h5" --engine "$tmp/engines/default.ini" --out "$tmp/one.ini" --holdout 0 \
  >"$tmp/one.out" 2>&1
check "tune on one game: undetermined weights are said to keep their start values" \
  grep -Eq "(not identifiable|poorly determined).*kept at its start value" "$tmp/one.out"
start_values=$(grep '^top_value = ' "$tmp/engines/default.ini" | cut -d, -f1-4)
check "... and the archers' value is the start's" sh -c "grep -qF '$start_values,' '$tmp/one.ini'"

# the default output folder results/ is made when missing; the standings
# are printed at the end, also with --quiet; --threads 0 means all cores
mkdir "$tmp/cwd"
tvabs=$(readlink -f "$tv")
(cd "$tmp/cwd" && "$tvabs" selfplay "$tmp/t.ini" --threads=0 --games 4 --quiet >"$tmp/cwd.out" 2>&1)
check "results/ made for the default output" [ -s "$tmp/cwd/results/resume-test.h5" ]
check "standings printed with --quiet" grep -q "^rank engine .*Elo (95%) *games *score" "$tmp/cwd.out"

# --resume through a symbolic link writes through to its target
"$tv" selfplay "$tmp/t.ini" --out "$tmp/target.h5" --games 4 --quiet >/dev/null 2>&1
ln -s "$tmp/target.h5" "$tmp/link.h5"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/link.h5" --resume --games 4 --quiet >"$tmp/o" 2>&1
check "resume through a link succeeds" grep -q "4 games stored this run (4 before)" "$tmp/o"
check "... the link stays a link" [ -L "$tmp/link.h5" ]
check "... and its target holds the games" sh -c "'$tv' export '$tmp/target.h5' --digest '$tmp/t.dig' >/dev/null && [ \$(wc -l <'$tmp/t.dig') = 8 ]"

# a directory or a FIFO where a file is expected: named, never waited on
mkdir "$tmp/adir"
mkfifo "$tmp/afifo"
for kind in adir afifo; do
  what=$([ $kind = adir ] && echo "is a directory" || echo "is not a regular file")
  sed "s|^path = engines/default.ini|path = $kind|" "$tmp/t.ini" >"$tmp/p.ini"
  timeout 20 "$tv" selfplay "$tmp/p.ini" --out "$tmp/p.h5" --quiet >/dev/null 2>"$tmp/e"
  check "$kind as an engine file: '$what'" sh -c "[ $? = 1 ] && grep -q '$kind: the engine file $what' '$tmp/e'"
  sed "s|^plies = 4|file = $kind|" "$tmp/t.ini" >"$tmp/p.ini"
  timeout 20 "$tv" selfplay "$tmp/p.ini" --out "$tmp/p.h5" --quiet >/dev/null 2>"$tmp/e"
  check "$kind as an openings file: '$what'" sh -c "[ $? = 1 ] && grep -q '$kind: the openings file $what' '$tmp/e'"
  for cmd in "verify" "export --digest $tmp/x.dig" "repair" "report -o $tmp/xr" "tune --engine $tmp/engines/default.ini --out $tmp/x.ini --data"; do
    timeout 20 "$tv" $cmd "$tmp/$kind" >/dev/null 2>"$tmp/e"
    check "$kind as the store of ${cmd%% *}: '$what'" sh -c "[ $? = 1 ] && grep -q '$kind: the store $what' '$tmp/e'"
  done
  timeout 20 "$tv" replay --file "$tmp/$kind" >/dev/null 2>"$tmp/e"
  check "$kind as replay's record file: '$what'" sh -c "[ $? = 1 ] && grep -q '$kind: the record file $what' '$tmp/e'"
done
timeout 20 "$tv" selfplay "$tmp/t.ini" --out "$tmp/afifo" --resume --quiet >/dev/null 2>"$tmp/e"
check "a FIFO as the store to resume is named" grep -q "afifo: the store is not a regular file" "$tmp/e"

# identical engines are named before any game
sed 's/^depth = 2/depth = 1/' "$tmp/t.ini" >"$tmp/same.ini"
"$tv" selfplay "$tmp/same.ini" --out "$tmp/same.h5" --games 2 --quiet >"$tmp/o" 2>"$tmp/e"
check "identical engines are named" grep -q "engines 'shallow' and 'deeper' are identical" "$tmp/e"

# --resume refuses inputs that changed under the store, naming them: an
# engine's search settings (the engine INI is read again), the openings file
mkdir -p "$tmp/chg/engines"
cp "$tmp/engines/default.ini" "$tmp/chg/engines/default.ini"
{ echo startpos; "$tv" replay e2-e4 | head -1; } >"$tmp/chg/open.txt"
sed 's/^\[openings\]/[openings]\nfile = open.txt\ncycle = yes/' "$tmp/t.ini" >"$tmp/chg/t.ini"
"$tv" selfplay "$tmp/chg/t.ini" --out "$tmp/chg/s.h5" --games 6 --quiet >"$tmp/o" 2>"$tmp/e"
check "a store with an openings file is made" grep -q "6 games stored this run" "$tmp/o"
sed -i 's/^lmr = yes/lmr = no/' "$tmp/chg/engines/default.ini"
"$tv" selfplay "$tmp/chg/t.ini" --out "$tmp/chg/s.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "--resume after an engine's search setting changed is refused, naming it" \
  grep -qF "engine 1 ('shallow') is not the version the store holds: other search settings (lmr=yes in the store, lmr=no now)" "$tmp/e"
sed -i 's/^lmr = no/lmr = yes/' "$tmp/chg/engines/default.ini"
sed -i '1s/.*/startpos  # the same/' "$tmp/chg/open.txt"
"$tv" selfplay "$tmp/chg/t.ini" --out "$tmp/chg/s.h5" --resume --games 2 --quiet >"$tmp/o" 2>"$tmp/e"
check "... a comment in the openings file changes nothing" grep -q "2 games stored this run (6 before)" "$tmp/o"
"$tv" replay d2-d4 | head -1 >"$tmp/chg/open.txt"
"$tv" selfplay "$tmp/chg/t.ini" --out "$tmp/chg/s.h5" --resume --quiet >"$tmp/o" 2>"$tmp/e"
check "--resume after the openings file changed is refused, naming it" \
  grep -q "began from .*, but opening 1 of .*open.txt is now .* (the openings file changed)" "$tmp/e"

# identical engines: without per_game both games of a pair are the same game
# (the same moves); with [openings] per_game = yes every game has its own
# opening and all 8 games differ
"$tv" selfplay "$tmp/same.ini" --out "$tmp/same8.h5" --games 8 --quiet >/dev/null 2>&1
shared=$(games_of "$tmp/same8.h5" | grep -v '^\[' | sort -u | wc -l)
check "identical engines, shared openings: $shared distinct games of 8 (4 expected)" [ "$shared" = 4 ]
sed 's/^plies = 4/plies = 4\nper_game = yes/' "$tmp/same.ini" >"$tmp/pergame.ini"
"$tv" selfplay "$tmp/pergame.ini" --out "$tmp/pergame.h5" --games 8 --quiet >/dev/null 2>"$tmp/e"
own=$(games_of "$tmp/pergame.h5" | grep -v '^\[' | sort -u | wc -l)
check "identical engines, per_game openings: $own distinct games of 8" [ "$own" = 8 ]
check "per_game: the warning says what identical engines still mean" grep -q "say nothing about which is stronger" "$tmp/e"
# sampled plies (a softmax of quiescence scores after the random plies):
# other openings, still 8 distinct games, the same on 1 and 2 threads
sed 's/^per_game = yes/per_game = yes\nsample_plies = 4\nsample_temperature = 50/' "$tmp/pergame.ini" >"$tmp/sampled.ini"
"$tv" selfplay "$tmp/sampled.ini" --out "$tmp/sampled1.h5" --games 8 --threads 1 --quiet >/dev/null 2>&1
"$tv" selfplay "$tmp/sampled.ini" --out "$tmp/sampled2.h5" --games 8 --threads 2 --quiet >/dev/null 2>&1
sampled=$(games_of "$tmp/sampled1.h5" | grep -v '^\[' | sort -u | wc -l)
check "sampled plies: $sampled distinct games of 8" [ "$sampled" = 8 ]
"$tv" export "$tmp/pergame.h5" --tgn "$tmp/pg.tgn" >/dev/null 2>&1
"$tv" export "$tmp/sampled1.h5" --tgn "$tmp/sp.tgn" >/dev/null 2>&1
grep TFEN "$tmp/pg.tgn" >"$tmp/pg.tfen"
grep TFEN "$tmp/sp.tgn" >"$tmp/sp.tfen"
check "sampled plies: other openings than without" sh -c "[ -s '$tmp/sp.tfen' ] && ! cmp -s '$tmp/pg.tfen' '$tmp/sp.tfen'"
games_of "$tmp/sampled1.h5" >"$tmp/s1.txt"
games_of "$tmp/sampled2.h5" >"$tmp/s2.txt"
check "sampled plies: the same games on 1 and 2 threads" cmp -s "$tmp/s1.txt" "$tmp/s2.txt"
printf '[sprt]\nelo0 = 0\nelo1 = 5\n' >>"$tmp/pergame.ini"
"$tv" selfplay "$tmp/pergame.ini" --out "$tmp/pergame2.h5" --quiet >/dev/null 2>"$tmp/e"
check "per_game with [sprt] is refused" grep -q "per_game = yes cannot go with \[sprt\]" "$tmp/e"

# the tuner removes repeated positions (same position and result): half of
# the positions of same8.h5 (each game played twice), few of pergame.h5
dups() { # STORE -> "removed total"
  "$tv" tune --data "$1" --engine "$tmp/engines/default.ini" --out "$tmp/d.ini" --l2 0 --holdout 0 2>/dev/null |
    awk '/^positions:/ {kept = $2} / duplicate positions/ {rem = $1} END {print rem + 0, kept + rem}'
}
read -r rem tot <<<"$(dups "$tmp/same8.h5")"
check "tune on games played twice: $rem of $tot positions removed as duplicates" \
  [ "$tot" -gt 0 -a $((100 * rem)) -ge $((45 * tot)) ]
read -r rem tot <<<"$(dups "$tmp/pergame.h5")"
check "tune on distinct games: $rem of $tot positions removed as duplicates" [ "$tot" -gt 0 -a $((10 * rem)) -lt "$tot" ]

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
