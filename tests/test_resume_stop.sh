#!/bin/bash
# test_resume_stop.sh TAVRELI MAKE_RESUME_STORE SOURCE_DIR (issue 22):
#  - a signal while `selfplay --resume` reads and checks a big store (the
#    reads, the replay of every kept game, the open for appending) is obeyed
#    at once (on the CPU used after it), as an interruption (status 143, "interrupted: run ...
#    --resume"), and the store is unchanged byte for byte (a signal that
#    comes after the reading, the run says so, leaves every game stored);
#  - two runs on one --out: the second is refused while the first holds the
#    run lock, naming its pid;
#  - a store creation killed just before its link leaves OUT.h5.tmp-PID-N:
#    the next run on OUT.h5 removes it and says so.
tv=$1
mk=$2
src=$3
tmp=$(mktemp -d /tmp/tavreli-resume-stop-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh"

# one game copied into 3,000 games of its plan $tmp/one.ini (big_resume_store,
# tests/selfplay_common.sh): a resume reads and replays them for seconds
big_resume_store "$tv" "$mk" "$tmp"
check "the big store is made" [ $? = 0 ]
sum=$(md5sum <"$tmp/big.h5")

# The resume's phases in turn (the store read for the check of the
# configuration, the read with the moves, the replay against the plan, the
# read and the block check of the open for appending): the signal at
# several moments of the run.  How long the whole resume takes, measured
# first, places them.
cp "$tmp/big.h5" "$tmp/whole.h5"
t0=$(date +%s%N)
cpu_run whole_cpu "$tv" selfplay "$tmp/one.ini" --out "$tmp/whole.h5" --resume --games 1 --threads 2 --quiet \
  >/dev/null 2>&1
whole_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "a resume of the big store (1 game played) took $whole_ms ms, $whole_cpu ms of CPU"
# the bound, on the CPU used after the signal (tests/selfplay_common.sh,
# term_stop): a fifth of the whole resume's; a signal that waited for the
# rest of the reading (before the fix) goes over it
limit_ms=$(( whole_cpu / 5 ))
in_reading=0
for frac in 10 40 70; do
  at_ms=$(( whole_ms * frac / 100 ))
  cp "$tmp/big.h5" "$tmp/r.h5"
  "$tv" selfplay "$tmp/one.ini" --out "$tmp/r.h5" --resume --threads 2 --quiet >"$tmp/r.out" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((at_ms / 1000)) $((at_ms % 1000)))"
  term_stop $pid
  status=$STOP_STATUS
  echo "SIGTERM at $frac%: obeyed after $STOP_CPU_MS ms of CPU, $STOP_WALL_MS ms of wall time"
  check "SIGTERM at $frac% of a resume ($at_ms ms) ends it within $limit_ms ms of CPU (took $STOP_CPU_MS ms)" \
    [ "$STOP_CPU_MS" -ge 0 -a "$STOP_CPU_MS" -lt $limit_ms ]
  check "... with the status of SIGTERM ($status)" [ "$status" = 143 ]
  check "... saying how to resume" grep -q "^interrupted: run '$tv selfplay .* --resume'" "$tmp/r.out"
  # The moments are fractions of a resume measured before, on a machine
  # whose load changes: a signal may come after the reading (once, on a
  # quiet CI machine compiling beside the suite, at 70%), when the run has
  # opened the store and begun its game.  The run says which: stopped while
  # reading, the store is unchanged byte for byte; later, it still holds
  # every game it held.
  if grep -q "stopped while reading the store" "$tmp/r.out"; then
    in_reading=$((in_reading + 1))
    check "... stopped while reading: the store unchanged" [ "$(md5sum <"$tmp/r.h5")" = "$sum" ]
  else
    "$tv" export "$tmp/r.h5" --digest "$tmp/r.dig" >/dev/null 2>&1
    check "... stopped after the reading: the store still holds its 3000 games" [ "$(wc -l <"$tmp/r.dig")" -ge 3000 ]
    cp "$tmp/big.h5" "$tmp/r.h5" # the next moment starts from the big store again
  fi
done
check "the signal came during the reading at least once of the three moments" [ "${in_reading:-0}" -ge 1 ]
"$tv" selfplay "$tmp/one.ini" --out "$tmp/r.h5" --resume --games 2 --threads 2 --quiet >"$tmp/r.out" 2>&1
check "the stopped store resumes" grep -q "2 games stored this run (3000 before)" "$tmp/r.out"

# ---- two runs on one store: the run lock ----------------------------------------------
# Run A resumes the big store (seconds of reading); B, started meanwhile
# with --force (or --resume), is refused, naming A's pid.  Before the lock B
# removed the store under A and made its own.
cp "$tmp/big.h5" "$tmp/lk.h5"
"$tv" selfplay "$tmp/one.ini" --out "$tmp/lk.h5" --resume --threads 1 --quiet >"$tmp/a.out" 2>&1 &
apid=$!
for i in $(seq 300); do grep -q "^$apid " "$tmp/lk.h5.lock" 2>/dev/null && break; sleep 0.1; done
for flag in --force --resume; do
  "$tv" selfplay "$tmp/one.ini" --out "$tmp/lk.h5" $flag --games 1 --quiet >"$tmp/b.out" 2>&1
  rc=$?
  check "a second run ($flag) on a store that another run holds is refused ($rc)" [ $rc = 1 ]
  check "... naming the other run's pid and what to do" \
    grep -q "lk.h5 is in use by another run (pid $apid on .* holds .*lk.h5.lock): wait until it ends, or stop it" \
    "$tmp/b.out"
done
kill -TERM $apid
wait $apid
check "the first run was not disturbed (an interruption: $?)" grep -q "^interrupted: run" "$tmp/a.out"
check "... its store unchanged" [ "$(md5sum <"$tmp/lk.h5")" = "$sum" ]
check "... and the lock file removed when it ended" [ ! -e "$tmp/lk.h5.lock" ]

# ---- a store creation killed just before its link --------------------------------------
TAVRELI_TEST_PAUSE_BEFORE_LINK="$tmp/paused" "$tv" selfplay "$tmp/one.ini" --out "$tmp/kl.h5" --games 1 \
  --threads 1 --quiet >/dev/null 2>&1 &
kpid=$!
for i in $(seq 300); do [ -e "$tmp/paused" ] && break; sleep 0.1; done
kill -9 $kpid
wait $kpid 2>/dev/null
check "kill -9 just before the link leaves the temporary store and no store" \
  [ -e "$tmp/kl.h5.tmp-$kpid-0" -a ! -e "$tmp/kl.h5" ]
"$tv" selfplay "$tmp/one.ini" --out "$tmp/kl.h5" --games 1 --threads 1 --quiet >"$tmp/k.out" 2>&1
check "the next run on the store succeeds ($?)" grep -q "1 games stored this run" "$tmp/k.out"
check "... removes the leftover" [ -z "$(ls "$tmp" | grep 'kl.h5.tmp')" ]
check "... and says so" \
  grep -q "^note: removed .*kl.h5.tmp-$kpid-0, left by a store creation (pid $kpid) that was killed" "$tmp/k.out"
check "... and the killed run's lock file is gone" [ ! -e "$tmp/kl.h5.lock" ]
# the same for a part of an MPI run (OUT.part-R.h5.tmp-PID-N; the rank may
# have run on another host, so the pid is not looked at: the run lock says
# no run is making one); a file that is not such a leftover stays
: >"$tmp/kl.part-1.h5.tmp-$kpid-0"
: >"$tmp/kl.part-x.h5.tmp-$kpid-0"
"$tv" selfplay "$tmp/one.ini" --out "$tmp/kl.h5" --resume --games 2 --threads 1 --quiet >"$tmp/k.out" 2>&1
check "a resume with a killed part creation's leftover succeeds ($?)" grep -q "games stored this run (1 before)" "$tmp/k.out"
check "... and removes it" [ ! -e "$tmp/kl.part-1.h5.tmp-$kpid-0" ]
check "... but not another file" [ -e "$tmp/kl.part-x.h5.tmp-$kpid-0" ]

echo "$passes passed, $fails failed"
[ $fails = 0 ]
