#!/usr/bin/env bash
# End-to-end checks of `tavreli spsa` (docs/spsa.md), one part per run:
#   planted  fake_engine --mode planted plays best with a probability that
#            falls with the distance of its Strength option from 60; SPSA
#            from Strength 0 (the edge of 0..100) ends within 10 (10% of the
#            range) of 60 after 100 pairs, and a run on 1 thread and one on
#            2 threads have the same /spsa table and the same games;
#   resume   a run of the built-in engine killed (kill -9) at 3 random
#            moments and resumed until it finishes has the same /spsa table,
#            games, tuned.ini and verification as an uninterrupted run;
#            SIGTERM stops cleanly (exit 143) and --resume finishes;
#   refuse   bad files and engines are refused with FILE:LINE, exit 1, no store.
#   mpi      (an MPI build) the planted run under mpirun -np 2 has the same
#            /spsa table and games as on one process.
# usage: test_spsa_run.sh PART PATH/TO/tavreli PATH/TO/fake_engine SOURCE_DIR TAVRELI_MPI
set -u
part=$1
tv=$2
fake=$3
src=$(cd "$4" && pwd)
mpi_build=${5:-OFF}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
check() {
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# The /spsa table and the games' digest of a run folder, in one file.
fingerprint() {
  h5dump -g /spsa "$1/spsa.h5" | tail -n +2 >"$2" && "$tv" export "$1/spsa.h5" --digest "$2.games" >/dev/null
}
same_run() { fingerprint "$1" "$tmp/a.fp" && fingerprint "$2" "$tmp/b.fp" && cmp -s "$tmp/a.fp" "$tmp/b.fp" &&
  cmp -s "$tmp/a.fp.games" "$tmp/b.fp.games"; }

planted_ini() {
  cat <<EOI
[spsa]
name = planted
iterations = 50
batch = 2
seed = 1
verify = no
param Strength = 0, 0, 100, 10, 0.15
[engine fake]
command = $fake --mode planted --optimum 60
depth = 1
stderr = discard
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 120
resign_score = 800
resign_moves = 3
draw_moves = 0
draw_score = 0
EOI
}

# The last theta of a run's output line "... theta: NAME=VALUE".
final_theta() { sed -n 's/.*theta: [^=]*=\([-0-9.]*\).*/\1/p' "$1"; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

if [ "$part" = planted ]; then
  planted_ini >"$tmp/p.ini"
  "$tv" spsa "$tmp/p.ini" --out "$tmp/one" --threads 1 >"$tmp/one.out" 2>"$tmp/one.err" &
  p1=$!
  "$tv" spsa "$tmp/p.ini" --out "$tmp/two" --threads 2 >"$tmp/two.out" 2>"$tmp/two.err"
  rc2=$?
  wait $p1
  rc1=$?
  check "planted runs end with 0 ($rc1, $rc2)" [ $rc1 = 0 -a $rc2 = 0 ]
  x=$(final_theta "$tmp/one.out")
  echo "planted optimum 60, SPSA from 0 ends at $x"
  check "planted: SPSA ends within 10 of 60 (at '$x')" within "${x:-0}" 50 70
  check "planted: 1 and 2 threads give the same /spsa table and games" same_run "$tmp/one" "$tmp/two"
  check "planted: the tuned options" grep -qx "option.Strength = $(printf '%.0f' "$x")" "$tmp/one/tuned.ini"
  check "planted: the progress line names the iteration and theta" grep -q "iteration 50/50 .*Strength=" "$tmp/one.err"
  # a finished run with verify = no: its report says so (it said "No
  # verification yet (... the run is not finished ...)"; issue 38)
  "$tv" report "$tmp/one" >/dev/null 2>"$tmp/report.err"
  check "planted: the report of a finished run with verify = no says verify = no, not 'not finished'" \
    sh -c "grep -q \"No verification: the run's file says verify = no\" '$tmp/one/report/report.md' &&
           ! grep -q 'not finished' '$tmp/one/report/report.md'"
  # a program that crashes as a game begins (each process at its 3rd
  # ucinewgame): the game is begun again with a fresh one, and the run says
  # so (it went on without a word: SPSA's runs had no note; issue 35)
  planted_ini | sed 's/^iterations = 50/iterations = 4/; s/--optimum 60/--optimum 60 --crash-newgame 3/' >"$tmp/c.ini"
  "$tv" spsa "$tmp/c.ini" --out "$tmp/crash" --threads 1 >"$tmp/crash.out" 2>"$tmp/crash.err"
  rc=$?
  check "planted, crashing at a new game: the run ends with 0 ($rc)" [ $rc = 0 ]
  check "... and says each game it began again" grep -q "is begun again with a fresh process" "$tmp/crash.out"
  # a program whose start is once late beyond start_timeout (its 6th: the
  # run checks its programs with 3 starts, then starts both players anew
  # each iteration; the 6th is at iteration 2): the game is begun again and
  # the run goes on (a late uciok at iteration 2 ended a run, rc 1; issue 38)
  planted_ini | sed "s/^iterations = 50/iterations = 3/; s|--optimum 60|--optimum 60 --slow-start 6 --count-file $tmp/starts --seconds 8|; s/^depth = 1/depth = 1\nstart_timeout = 5/" >"$tmp/s.ini"
  "$tv" spsa "$tmp/s.ini" --out "$tmp/slow" --threads 1 >"$tmp/slow.out" 2>"$tmp/slow.err"
  rc=$?
  check "planted, one start late beyond start_timeout = 5: the run ends with 0 ($rc: $(tail -2 "$tmp/slow.err"))" [ $rc = 0 ]
  check "... the late start's game was begun again, the run saying so with the start_timeout" \
    sh -c "grep -q \"no 'uciok' within 5 s of 'uci' (its start_timeout).*is begun again with a fresh process\" '$tmp/slow.out'"
  # the first start (the run's check of its programs) is refused with the same limit
  rm -f "$tmp/starts"
  sed "s/--slow-start 6/--slow-start 1/" "$tmp/s.ini" >"$tmp/s1.ini"
  "$tv" spsa "$tmp/s1.ini" --out "$tmp/slow1" --threads 1 >"$tmp/slow1.out" 2>"$tmp/slow1.err"
  rc=$?
  check "planted, the first start late beyond start_timeout: refused before any game (exit $rc)" \
    sh -c "[ $rc != 0 ] && grep -q \"no 'uciok' within 5 s of 'uci' (its start_timeout)\" '$tmp/slow1.err'"
fi

if [ "$part" = mpi ]; then
  source "$src/tests/mpi_env.sh"; mpi_test_env "$src" # Open MPI in containers, under ASan
  planted_ini >"$tmp/p.ini"
  "$tv" spsa "$tmp/p.ini" --out "$tmp/one" --threads 1 >"$tmp/one.out" 2>/dev/null &
  p1=$!
  # with --resume on a new folder, as a requeued batch job passes it every
  # time: it starts the run, as one process does (on 2 ranks it said
  # 'nothing to resume' before; issue 35)
  mpirun --allow-run-as-root --oversubscribe -np 2 "$tv" spsa "$tmp/p.ini" --out "$tmp/mpi" --threads 1 --resume \
    >"$tmp/mpi.out" 2>"$tmp/mpi.err"
  rc2=$?
  wait $p1
  rc1=$?
  check "mpi: both runs end with 0 ($rc1, $rc2: $(tail -3 "$tmp/mpi.err"))" [ $rc1 = 0 -a $rc2 = 0 ]
  check "mpi: 2 ranks give the same /spsa table and games as one process" same_run "$tmp/one" "$tmp/mpi"
  check "mpi: the parts are merged and removed" [ ! -e "$tmp/mpi/spsa.part-0.h5" -a ! -e "$tmp/mpi/spsa.part-1.h5" ]
  check "mpi: rank 0 alone prints the result" [ "$(grep -c '^50 of 50 iterations' "$tmp/mpi.out")" = 1 ]
  # the session is recorded with both ranks (issue 35: a run on several
  # ranks recorded none; one process records ranks=1)
  check "mpi: spsa.h5 records the session: 2 ranks, one host with both, every game" \
    sh -c "h5dump -a /sessions '$tmp/mpi/spsa.h5' | grep -q 'end=finished games=200 .* ranks=2 host=[^,]*,2,2,'"
  check "mpi: one process records ranks=1" \
    sh -c "h5dump -a /sessions '$tmp/one/spsa.h5' | grep -q 'end=finished games=200 .* ranks=1 host=[^,]*,1,1,'"

  # The built-in engine with a search setting and a weight that start away
  # from their engine INI's values (docs/spsa.md's detuned.ini, shortened):
  # the parts hold the players at the start values, so they merge (they
  # failed at the merge: "other search settings ... rfp_margin=0 in the
  # store, rfp_margin=120 now", no spsa.h5, no tuned.ini, no verification).
  cat >"$tmp/d.ini" <<EOI
[spsa]
name = detuned
iterations = 2
batch = 2
seed = 1
verify_elo0 = 0
verify_elo1 = 20
verify_pairs = 2
param rfp_margin = 0, 0, 400, 20, 0.15
param top_value[1] = 300, 100, 900, 20, 0.15
[engine base]
path = $src/configs/engines/default.ini
depth = 1
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 60
EOI
  "$tv" spsa "$tmp/d.ini" --out "$tmp/d-one" --threads 1 >"$tmp/d-one.out" 2>"$tmp/d-one.err"
  rc1=$?
  mpirun --allow-run-as-root --oversubscribe -np 2 "$tv" spsa "$tmp/d.ini" --out "$tmp/d-mpi" --threads 1 \
    >"$tmp/d-mpi.out" 2>"$tmp/d-mpi.err"
  rc2=$?
  check "mpi, start away from the INI: both runs end with 0 ($rc1, $rc2: $(tail -3 "$tmp/d-mpi.err"))" \
    [ $rc1 = 0 -a $rc2 = 0 ]
  check "... spsa.h5, tuned.ini and the verification" \
    [ -s "$tmp/d-mpi/spsa.h5" -a -s "$tmp/d-mpi/tuned.ini" -a -s "$tmp/d-mpi/verify.h5" ]
  check "... the same /spsa table and games as one process" same_run "$tmp/d-one" "$tmp/d-mpi"
  check "... the same tuned engine" cmp -s "$tmp/d-one/tuned.ini" "$tmp/d-mpi/tuned.ini"
fi

if [ "$part" = resume ]; then
  cat >"$tmp/r.ini" <<EOI
[spsa]
name = resume
iterations = 10
batch = 2
seed = 9
threads = 2
verify_pairs = 6
param lmr_base = 75, 0, 300, 30, 0.02
param top_value[2] = 300, 100, 600, 40, 0.02
[engine base]
path = $src/configs/engines/default.ini
depth = 2
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 100
EOI
  "$tv" spsa "$tmp/r.ini" --out "$tmp/ref" --threads 1 >"$tmp/ref.out" 2>"$tmp/ref.err"
  check "resume: the uninterrupted run ends with 0" [ $? = 0 ]
  check "resume: it verifies" grep -q "^verification SPRT (tuned against start" "$tmp/ref.out"
  # the verification's games report their progress as selfplay's do (issue
  # 38's real run: its up to 800 games printed nothing)
  check "resume: the verification's games report their progress (LLR, ETA)" grep -q "ETA done | LLR" "$tmp/ref.err"
  # kill -9 at three random moments, each run resuming the last
  for k in 1 2 3; do
    "$tv" spsa "$tmp/r.ini" --out "$tmp/cut" --resume >/dev/null 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
  done
  # SIGTERM stops cleanly
  "$tv" spsa "$tmp/r.ini" --out "$tmp/cut" --resume >"$tmp/term.out" 2>/dev/null &
  pid=$!
  sleep 0.5
  kill -TERM $pid 2>/dev/null
  wait $pid
  rc=$?
  check "resume: SIGTERM exits 143 or finishes ($rc)" [ $rc = 143 -o $rc = 0 ]
  [ $rc = 143 ] && check "resume: SIGTERM says how to continue" grep -q "with --resume to continue" "$tmp/term.out"
  "$tv" spsa "$tmp/r.ini" --out "$tmp/cut" --resume >"$tmp/cut.out" 2>/dev/null
  check "resume: the resumed run ends with 0" [ $? = 0 ]
  check "resume: the same /spsa table and games as the uninterrupted run" same_run "$tmp/ref" "$tmp/cut"
  check "resume: the same tuned.ini" cmp -s "$tmp/ref/tuned.ini" "$tmp/cut/tuned.ini"
  check "resume: the same verification" cmp -s <(grep '^verification' "$tmp/ref.out") \
    <(grep '^verification' "$tmp/cut.out")
  "$tv" report "$tmp/cut" >/dev/null 2>"$tmp/report.err"
  check "resume: report DIR writes the trajectory, the final values and the verification" \
    test -s "$tmp/cut/report/spsa_trajectory.png" -a -s "$tmp/cut/report/verify/report.html"
  check "resume: the report's conditions: limits, builds, hosts (issue 35: none)" \
    sh -c "grep -q '^## Conditions' '$tmp/cut/report/report.md' && grep -q 'Engines: base+: depth 2' '$tmp/cut/report/report.md' && grep -q 'Builds: tavreli ' '$tmp/cut/report/report.md'"
  check "resume: the report links the verification's report" \
    grep -q '<a href="verify/report.html">verify/report.html</a>' "$tmp/cut/report/report.html"
  check "resume: the report names the verification's verdict" \
    grep -q "The SPRT of the tuned engine against the start (elo0=0 elo1=5" "$tmp/cut/report/report.md"
  check "resume: the report's table has both parameters" grep -q "^| top_value\[2\] | 100 | 600 | 300.00 |" \
    "$tmp/cut/report/report.md"
  "$tv" spsa "$tmp/r.ini" --out "$tmp/cut" >/dev/null 2>"$tmp/exists.err"
  check "resume: an existing run needs --resume or --force" grep -q "exists: --resume continues it" "$tmp/exists.err"
  # the verification store of an earlier run is that run's: a run started
  # anew in its folder without --force is refused (with --force it is
  # removed; it used to be continued, and refused as another configuration)
  rm "$tmp/cut/spsa.h5"
  "$tv" spsa "$tmp/r.ini" --out "$tmp/cut" >/dev/null 2>"$tmp/stale.err"
  check "resume: an earlier run's verify.h5 needs --resume or --force" grep -q "verify.h5 exists, from an earlier run" \
    "$tmp/stale.err"
  # the engine INI edited between a run and its --resume: refused, naming
  # the engine and what differs (issue 34: a resumed run mixed the two
  # engines' games, exit 0, and its tuned.ini matched neither run; resuming
  # a finished run rewrote tuned.ini as the new start plus the old steps)
  cp "$src/configs/engines/default.ini" "$tmp/edit.ini"
  sed "s|path = $src/configs/engines/default.ini|path = $tmp/edit.ini|; s/iterations = 10/iterations = 2/" \
    "$tmp/r.ini" >"$tmp/e.ini"
  "$tv" spsa "$tmp/e.ini" --out "$tmp/edit" --threads 1 >/dev/null 2>&1
  check "resume: a short run for the edit ends with 0" [ $? = 0 ]
  # a changed key of the SPSA file is named with both values (it read
  # "its tournament INI differs" for any)
  sed 's/^iterations = 2/iterations = 4/' "$tmp/e.ini" >"$tmp/e4.ini"
  "$tv" spsa "$tmp/e4.ini" --out "$tmp/edit" --resume >/dev/null 2>"$tmp/e4.err"
  check "resume: a changed iterations is refused, naming it" \
    grep -q "first difference: stored line [0-9]* 'iterations = 2', now line [0-9]* 'iterations = 4'" "$tmp/e4.err"
  sed -i '0,/^tempo = .*/s//tempo = 77/' "$tmp/edit.ini"
  grep -q "^tempo = 77" "$tmp/edit.ini" || echo "  (the edit did not take: no tempo line in default.ini)"
  cp "$tmp/edit/spsa.h5" "$tmp/edit.copy"
  "$tv" spsa "$tmp/e.ini" --out "$tmp/edit" --resume >"$tmp/edit.out" 2>"$tmp/edit.err"
  rc=$?
  check "resume: an edited engine INI is refused (exit $rc)" [ $rc = 1 ]
  check "... naming the engine and what differs" grep -q "engine 1 ('base+') is not the version the store holds: .*tempo" \
    "$tmp/edit.err"
  check "... the store untouched" cmp -s "$tmp/edit/spsa.h5" "$tmp/edit.copy"
fi

if [ "$part" = refuse ]; then
  engine="[engine base]
path = $src/configs/engines/default.ini
depth = 1"
  refuse() { # NAME LINE TEXT-IN-MESSAGE INI...
    local name=$1 line=$2 what=$3
    shift 3
    printf '%s\n' "$@" >"$tmp/bad.ini"
    "$tv" spsa "$tmp/bad.ini" --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
    local rc=$?
    check "refuse $name: exit 1 ($rc)" [ $rc = 1 ]
    check "refuse $name: bad.ini:$line names it ($(cat "$tmp/bad.err"))" grep -q "bad.ini:$line: .*$what" "$tmp/bad.err"
    check "refuse $name: no store" [ ! -e "$tmp/bad/spsa.h5" ]
  }
  refuse unknown 2 "no such setting or weight" "[spsa]" "param lmr_bsae = 1, 0, 2, 1, 0.002" "$engine"
  refuse start-outside 2 "outside \[MIN, MAX\]" "[spsa]" "param lmr_base = 300, 50, 200, 10, 0.002" "$engine"
  refuse min-max 2 "must be below MAX" "[spsa]" "param lmr_base = 100, 200, 100, 10, 0.002" "$engine"
  refuse c_end 2 "C_END 0 must be above 0" "[spsa]" "param lmr_base = 100, 50, 200, 0, 0.002" "$engine"
  refuse r_end 2 "R_END -1 must be above 0" "[spsa]" "param lmr_base = 100, 50, 200, 10, -1" "$engine"
  refuse bool 2 "yes/no setting, not tunable" "[spsa]" "param null_move = 1, 0, 1, 1, 0.002" "$engine"
  refuse duplicate 3 "given twice" "[spsa]" "param lmr_base = 100, 50, 200, 10, 0.002" \
    "param lmr_base = 100, 50, 200, 10, 0.002" "$engine"
  program="[engine fake]
command = $fake --mode planted
depth = 1"
  refuse undeclared 2 "declares no option Speed" "[spsa]" "param Speed = 5, 0, 10, 1, 0.002" "$program"
  refuse range 2 "declares the range \[0, 100\]" "[spsa]" "param Strength = 50, 0, 200, 10, 0.002" "$program"
  if command -v mpirun >/dev/null && [ "$mpi_build" = OFF ]; then
    # a build without MPI refuses to run as several ranks (not side by side into one folder)
    printf '[spsa]\nparam lmr_base = 75, 0, 300, 10, 0.002\n%s\n' "$engine" >"$tmp/one.ini"
    mpirun --allow-run-as-root --oversubscribe -np 2 "$tv" spsa "$tmp/one.ini" --out "$tmp/mpi" >/dev/null \
      2>"$tmp/mpi.err"
    check "refuse mpirun -np 2 without MPI: says to rebuild" grep -q "built without MPI" "$tmp/mpi.err"
    check "refuse mpirun -np 2 without MPI: no store" [ ! -e "$tmp/mpi/spsa.h5" ]
  fi
  refuse spin-only 2 "declares it as a check option" "[spsa]" "param slide_over_own = 0, 0, 1, 1, 0.002" "$program"
fi

echo "$passes passed, $fails failed"
[ $fails = 0 ]
