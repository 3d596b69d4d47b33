#!/bin/bash
# test_tune_stop.sh TAVRELI MAKE_RESUME_STORE SOURCE_DIR (issue 22): a
# SIGTERM during `tavreli tune` is obeyed at once (checked on the CPU the
# program uses after it: tests/selfplay_common.sh, term_stop), in the fit (a
# bootstrap of 100,000 refits: hours) and in the data load (a store of
# 8,000 games read, parsed and resolved), as an interruption: status 143,
# "interrupted by signal 15", neither NEW.ini nor its log written.
tv=$1
mk=$2
src=$3
tmp=$(mktemp -d /tmp/tavreli-tune-stop-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh"
write_test_configs "$tmp" "$src"
eng=$tmp/engines/default.ini

# stop PID LIMIT_MS NAME OUT: SIGTERM to PID, then waits for it (a run that
# ignores the signal is killed after 120 s) and checks how it ended: the
# CPU it used after the signal under LIMIT_MS (term_stop,
# tests/selfplay_common.sh: a busy machine stretches the wall time, not
# the work).
stop() {
  local pid=$1 limit_ms=$2 name=$3 out=$4
  term_stop "$pid"
  echo "$name: SIGTERM obeyed after $STOP_CPU_MS ms of CPU, $STOP_WALL_MS ms of wall time (status $STOP_STATUS)"
  check "$name: SIGTERM obeyed within $limit_ms ms of CPU (took $STOP_CPU_MS ms)" \
    [ "$STOP_CPU_MS" -ge 0 -a "$STOP_CPU_MS" -lt "$limit_ms" ]
  check "$name: the status of SIGTERM ($STOP_STATUS)" [ "$STOP_STATUS" = 143 ]
  check "$name: says it was interrupted" grep -q "^interrupted by signal 15: nothing was written" "$out"
  check "$name: no NEW.ini" [ ! -e "$tmp/new.ini" ]
  check "$name: no tuning log" [ ! -e "$tmp/new.tuning.log" ]
}

# ---- the fit -------------------------------------------------------------------------
"$tv" selfplay "$tmp/t.ini" --out "$tmp/s.h5" --threads 2 --quiet >/dev/null 2>&1
check "the store is made" [ $? = 0 ]
"$tv" tune --data "$tmp/s.h5" --engine "$eng" --out "$tmp/new.ini" --l2 0 --bootstrap 100000 >"$tmp/fit.out" 2>&1 &
pid=$!
# the fit has started when the start's loss is printed (iter 0)
for _ in $(seq 1200); do grep -q '^iter ' "$tmp/fit.out" && break; sleep 0.1; done
check "the fit started" grep -q '^iter ' "$tmp/fit.out"
sleep 1 # into the fit or the bootstrap
# one run at a time per output (issue 34: two tunes with one --out both
# exited 0 and one result was lost): the second is refused, naming the first
"$tv" tune --data "$tmp/s.h5" --engine "$eng" --out "$tmp/new.ini" --l2 0 >"$tmp/second.out" 2>&1
rc=$?
check "a second tune on the same --out: refused (exit $rc)" [ $rc != 0 ]
check "... naming the run that holds it" grep -q "new.ini is in use by another run (pid $pid on .* holds .*new.ini.lock)" "$tmp/second.out"
# and a report into a folder whose lock a run holds (here: this tune's, the
# same path as a file) is refused the same way
"$tv" report "$tmp/s.h5" -o "$tmp/new.ini" >"$tmp/report.out" 2>&1
check "a report into an output another run holds: refused, naming it" \
  grep -q "new.ini is in use by another run (pid $pid on " "$tmp/report.out"
# three seconds of CPU, room for the sanitizers' exit (before the fix: the
# 100,000 refits, hours)
stop $pid 3000 "fit" "$tmp/fit.out"

# ---- the load ------------------------------------------------------------------------
# one game copied into games of its plan (big_resume_store,
# tests/selfplay_common.sh): its load must last long enough to be stopped
# in, so the store grows until it lasts 600 ms (8,000 games always, before:
# they loaded in 500 ms on this machine when quiet, 6 Dec 2026, and failed)
games=8000
while :; do
  rm -f "$tmp/big.h5"
  big_resume_store "$tv" "$mk" "$tmp" $games
  check "the big store is made ($games games)" [ $? = 0 ]
  # how long the load takes, on the clock (when to send the signal) and in
  # CPU (the bound); the fit of one game's positions is quick
  t0=$(date +%s%N)
  cpu_run whole_cpu "$tv" tune --data "$tmp/big.h5" --engine "$eng" --out "$tmp/whole.ini" --l2 0 >"$tmp/whole.out" 2>&1
  whole_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  load_s=$(sed -n 's/.*resolved to quiet leaves in \([0-9.]*\) s.*/\1/p' "$tmp/whole.out")
  echo "a tune of the big store ($games games) took $whole_ms ms ($whole_cpu ms of CPU), its load $load_s s"
  load_ms=$(awk -v s="$load_s" 'BEGIN { printf "%d", s * 1000 }')
  { [ "$load_ms" -ge 600 ] || [ $games -ge 128000 ]; } && break
  games=$((games * 2))
done
check "the load takes long enough to be stopped in ($load_ms ms)" [ "$load_ms" -ge 600 ]
# the bound: a quarter of the whole tune's CPU (the load is most of it;
# before the fix the signal waited for the rest of the load: over 40% of
# it, signalled at 60%)
limit_ms=$(( whole_cpu / 4 ))
for frac in 30 60; do
  at_ms=$(( load_ms * frac / 100 ))
  "$tv" tune --data "$tmp/big.h5" --engine "$eng" --out "$tmp/new.ini" --l2 0 >"$tmp/load.out" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((at_ms / 1000)) $((at_ms % 1000)))"
  if grep -q 'resolved to quiet leaves' "$tmp/load.out"; then
    echo "note: the load at $frac% had already ended (a loaded machine); skipped"
    kill -KILL $pid; wait $pid
    continue
  fi
  stop $pid $limit_ms "load at $frac% ($at_ms ms)" "$tmp/load.out"
done

# ---- stdout closed or full: the result is written first (issue 34) -------------------
# 'tune ... | head -1' died of SIGPIPE at its second line (exit 141) and
# wrote no NEW.ini; with stdout a full pipe it blocked before writing and
# did not stop on SIGTERM.
rm -f "$tmp/new.ini" "$tmp/new.tuning.log"
( set -o pipefail
  "$tv" tune --data "$tmp/s.h5" --engine "$eng" --out "$tmp/new.ini" --l2 0 2>"$tmp/head.err" | head -1 >/dev/null
  echo "${PIPESTATUS[0]}" >"$tmp/head.rc" )
rc=$(cat "$tmp/head.rc")
check "stdout closed early (| head -1): no SIGPIPE death (exit $rc)" [ "$rc" = 1 ]
check "... NEW.ini and its log are written" [ -s "$tmp/new.ini" -a -s "$tmp/new.tuning.log" ]
check "... and NEW.ini reads back" "$tv" analyse --engine "$tmp/new.ini" --depth 1 startpos
check "... the lost answer is said" grep -q "cannot write the output to stdout" "$tmp/head.err"
rm -f "$tmp/new.ini" "$tmp/new.tuning.log"
mkfifo "$tmp/full"
exec 7<>"$tmp/full"                       # a reader that never reads
head -c 65536 /dev/zero >"$tmp/full"      # fills the pipe
"$tv" tune --data "$tmp/s.h5" --engine "$eng" --out "$tmp/new.ini" --l2 0 >"$tmp/full" 2>"$tmp/full.err" &
pid=$!
for _ in $(seq 3000); do [ -s "$tmp/new.ini" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
check "stdout a full pipe: NEW.ini is written all the same" [ -s "$tmp/new.ini" -a -s "$tmp/new.tuning.log" ]
kill -0 $pid 2>/dev/null && kill -TERM $pid
for _ in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { echo "  (still blocked 60 s after SIGTERM)"; kill -KILL $pid; }
wait $pid
rc=$?
check "... and SIGTERM while blocked on that pipe ends it (exit $rc)" [ "$rc" = 143 ]
exec 7>&-

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
