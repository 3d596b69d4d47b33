#!/usr/bin/env bash
# What tavreli writes, and where (issue 22's fd, file and signal items):
#  - a closed fd 0-2 is never taken by a file: `selfplay ... 2>&-` gives a
#    valid store; an answer lost on a closed or full stdout is a failure;
#  - (fulldisk) outputs on a full disk (a small tmpfs, mounted in a private
#    mount namespace when the test runs as root; skipped with a message otherwise)
#    leave the old file, never half of one, and no temporary file; messages
#    name the user's file, not a temporary one; gnuplot's failure there is
#    put down to the full disk;
#  - two runs creating one --out at once: exactly one wins, the other says
#    the store exists;
#  - the tuner's engine INI is read back by the project's reader;
#  - the [train] INI reader refuses what the tournament reader refuses (one
#    row per refused input);
#  - SIGTERM while a big plan's openings are made stops the run within
#    seconds, exit 143;
#  - a file name that is not UTF-8 is shown escaped in messages.
# usage: test_outputs.sh PATH/TO/tavreli SOURCE_DIR [fulldisk]
# With fulldisk only the full-disk part runs (test_outputs_fulldisk); it
# exits 77 (ctest's SKIP_RETURN_CODE) with a message when it cannot mount a
# tmpfs (not root, or no unshare -m).
set -u
tv=$1
src=$2

if [ "${3:-}" = fulldisk-inner ]; then
  # re-entered by the main script inside `unshare -m`: $4 is its work dir
  tmp=$4
  fails=0
  passes=0
  check() {
    local name=$1; shift
    if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
  }
  small=$tmp/small
  mkdir -p "$small"
  mount -t tmpfs -o size=1m tmpfs "$small" || { echo "SKIP: cannot mount a tmpfs"; exit 0; }
  printf 'old ini\n' >"$small/NEW.ini"
  printf 'old tgn\n' >"$small/x.tgn"
  mkdir -p "$small/rep"
  printf 'old md\n' >"$small/rep/report.md"
  dd if=/dev/zero of="$small/fill" bs=4k >/dev/null 2>&1 # the disk is full now

  "$tv" tune --data "$tmp/s.h5" --engine "$tmp/engines/default.ini" --out "$small/NEW.ini" \
    --log "$small/tune.log" --holdout 0 >"$tmp/fd.out" 2>"$tmp/fd.err"
  rc=$?
  check "full disk: tune fails (exit $rc)" [ $rc != 0 ]
  check "full disk: the old tuned INI is kept whole" [ "$(cat "$small/NEW.ini")" = "old ini" ]
  check "full disk: tune says the disk is full, naming NEW.ini" grep -q "NEW.ini.*No space left" "$tmp/fd.err"
  check "full disk: no tuning log, not half of one" [ ! -e "$small/tune.log" ]

  "$tv" export "$tmp/s.h5" --tgn "$small/x.tgn" >"$tmp/fd.out" 2>"$tmp/fd.err"
  rc=$?
  check "full disk: export fails (exit $rc)" [ $rc != 0 ]
  check "full disk: the old TGN is kept whole" [ "$(cat "$small/x.tgn")" = "old tgn" ]

  "$tv" report "$tmp/s.h5" -o "$small/rep" >"$tmp/fd.out" 2>"$tmp/fd.err"
  rc=$?
  check "full disk: report fails (exit $rc)" [ $rc != 0 ]
  check "full disk: the old report.md is kept whole" [ "$(cat "$small/rep/report.md")" = "old md" ]

  "$tv" selfplay "$tmp/t.ini" --out "$small/new.h5" --quiet >"$tmp/fd.out" 2>"$tmp/fd.err"
  rc=$?
  check "full disk: selfplay fails (exit $rc)" [ $rc != 0 ]
  check "full disk: the store error names the store, not a temporary file" \
    sh -c "grep -q 'new.h5' '$tmp/fd.err' && ! grep -q 'new.h5.tmp' '$tmp/fd.err'"

  leftovers=$(find "$small" -name '*.tmp*' | head -3)
  check "full disk: no temporary file is left ($leftovers)" [ -z "$leftovers" ]

  # room for the plot script and data but not for the plots themselves;
  # an old report there stays whole (it once had its plots and data
  # replaced, its text not)
  if command -v gnuplot >/dev/null; then
    rm -f "$small/fill"
    rm -rf "$small/rep"
    "$tv" report "$tmp/s.h5" -o "$small/rep" >"$tmp/fd.out" 2>"$tmp/fd.err"
    check "full disk: an old report to keep (exit $?)" [ -s "$small/rep/report.html" ]
    sums=$(cd "$small/rep" && md5sum * | grep -v gnuplot.log | sort)
    dd if=/dev/zero of="$small/fill" bs=4k >/dev/null 2>&1
    rm -f "$small/fill"
    dd if=/dev/zero of="$small/fill" bs=4k count=$(( $(df -k --output=avail "$small" | tail -1) / 4 - 10 )) \
      >/dev/null 2>&1
    "$tv" report "$tmp/s.h5" -o "$small/rep" >"$tmp/fd.out" 2>"$tmp/fd.err"
    rc=$?
    check "full disk: report with 40 KiB free fails (exit $rc)" [ $rc != 0 ]
    check "full disk: ... saying the disk is full, not blaming gnuplot's terminal" \
      sh -c "grep -q 'full\|No space left' '$tmp/fd.err' && ! grep -q 'terminal' '$tmp/fd.err'"
    check "full disk: ... naming the folder, not a stage" \
      sh -c "grep -q '$small/rep' '$tmp/fd.err' && ! grep -q 'stage' '$tmp/fd.err'"
    check "full disk: ... the old report as it was, every file" \
      [ "$(cd "$small/rep" && md5sum * | grep -v gnuplot.log | sort)" = "$sums" ]
    check "full disk: ... no stage left" [ -z "$(ls -A "$small/rep" | grep stage)" ]
  fi
  umount "$small"
  echo "full disk: $passes passed, $fails failed"
  [ $fails = 0 ]
  exit $?
fi

source "$src/tests/selfplay_common.sh" # term_stop (its check is replaced below)
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
  local name=$1; shift
  if "$@"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name"
    [ -f "$tmp/err" ] && head -c 1500 "$tmp/err"
    fails=$((fails + 1))
  fi
}

mkdir -p "$tmp/engines"
cp "$src/configs/engines/default.ini" "$tmp/engines/default.ini"
cat >"$tmp/t.ini" <<EOI
[tournament]
name = outputs
pairs = 2
seed = 11
[openings]
plies = 4
balance_depth = 1
balance_cp = 300
[adjudication]
max_plies = 40
[engine a]
path = engines/default.ini
depth = 1
[engine b]
path = engines/default.ini
depth = 2
EOI

if [ "${3:-}" = fulldisk ]; then
  if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    echo "SKIP: the full-disk checks need root and unshare -m (to mount a small tmpfs)"
    exit 77
  fi
  "$tv" selfplay "$tmp/t.ini" --out "$tmp/s.h5" --quiet >/dev/null 2>&1
  unshare -m bash "$0" "$tv" "$src" fulldisk-inner "$tmp"
  exit $?
fi

# ---- fd 0-2 ----------------------------------------------------------------------
"$tv" selfplay "$tmp/t.ini" --out "$tmp/s.h5" 2>&- >"$tmp/out"
rc=$?
check "selfplay with stderr closed: exit 0 (got $rc)" [ $rc = 0 ]
"$tv" verify "$tmp/s.h5" >"$tmp/out" 2>"$tmp/err"
check "... and the store it wrote is valid (verify)" [ $? = 0 ]
"$tv" export "$tmp/s.h5" --digest "$tmp/d.txt" >/dev/null 2>"$tmp/err"
check "... holding the 4 games" [ "$(wc -l <"$tmp/d.txt" 2>/dev/null)" = 4 ]
"$tv" selfplay "$tmp/t.ini" --out "$tmp/s2.h5" <&- 2>&- >"$tmp/out"
rc=$?
check "selfplay with fd 0 and 2 closed: exit 0 (got $rc)" [ $rc = 0 ]
"$tv" verify "$tmp/s2.h5" >/dev/null 2>"$tmp/err"
check "... and its store is valid" [ $? = 0 ]
# its summary is lost with stdout: a failure, like any answer lost there
"$tv" selfplay "$tmp/t.ini" --out "$tmp/s3.h5" >&- 2>"$tmp/err"
rc=$?
check "selfplay with stdout closed: exit non-zero (got $rc), the summary is lost" [ $rc != 0 ]
"$tv" verify "$tmp/s3.h5" >/dev/null 2>&1
check "... but the store is valid and no file took fd 1" [ $? = 0 ]

"$tv" perft startpos 1 >&- 2>"$tmp/err"
rc=$?
check "perft with stdout closed: the answer is lost, exit non-zero (got $rc)" [ $rc != 0 ]
check "... saying so on stderr" grep -q "stdout" "$tmp/err"
"$tv" perft startpos 1 >/dev/full 2>"$tmp/err"
rc=$?
check "perft >/dev/full: exit non-zero (got $rc)" [ $rc != 0 ]
check "... with the reason" grep -q "No space left" "$tmp/err"
"$tv" perft startpos 1 >"$tmp/out" 2>"$tmp/err"
check "perft to a file: exit 0 and the answer" [ $? = 0 -a "$(cat "$tmp/out")" = 39 ]

# ---- two runs creating one store ---------------------------------------------------
won=0
for i in 1 2 3; do
  "$tv" selfplay "$tmp/t.ini" --out "$tmp/race$i.h5" --quiet >"$tmp/r1.out" 2>"$tmp/r1.err" &
  p1=$!
  "$tv" selfplay "$tmp/t.ini" --out "$tmp/race$i.h5" --quiet >"$tmp/r2.out" 2>"$tmp/r2.err" &
  p2=$!
  wait $p1; rc1=$?
  wait $p2; rc2=$?
  ok=$(( (rc1 == 0) + (rc2 == 0) ))
  check "race $i: exactly one of two runs on one --out succeeds (exits $rc1 and $rc2)" [ $ok = 1 ]
  [ $ok = 1 ] && won=$((won + 1))
  loser=$tmp/r1.err
  [ $rc1 = 0 ] && loser=$tmp/r2.err
  check "race $i: the other says the store exists, or that the first run holds it" \
    grep -qE "exists|in use by another run" "$loser"
  "$tv" verify "$tmp/race$i.h5" >/dev/null 2>&1
  check "race $i: the store holds the winner's games" [ $? = 0 ]
  check "race $i: no temporary file is left" [ -z "$(ls "$tmp" | grep "race$i.h5.tmp")" ]
done

# ---- an output never replaces an input or a store (issue 34) -------------------------
# 'tune --out s.h5' (a slip for .ini) removed the store it read, exit 0;
# 'export other.h5 --tgn live.h5' replaced a store a selfplay was writing
"$tv" selfplay "$tmp/t.ini" --out "$tmp/keep.h5" --games 2 --quiet >/dev/null 2>&1
cp "$tmp/keep.h5" "$tmp/keep.copy"
"$tv" tune --data "$tmp/keep.h5" --engine "$tmp/engines/default.ini" --out "$tmp/keep.h5" --holdout 0 \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
check "tune --out naming its own store: refused (exit $rc)" [ $rc != 0 ]
check "... saying it would replace a store" grep -q "keep.h5 is an HDF5 file (a store?): the engine file would replace it" "$tmp/err"
check "... the store untouched" cmp -s "$tmp/keep.h5" "$tmp/keep.copy"
cp "$tmp/engines/default.ini" "$tmp/start.ini"
ln -s start.ini "$tmp/start-link.ini"
"$tv" tune --data "$tmp/keep.h5" --engine "$tmp/start.ini" --out "$tmp/start-link.ini" --holdout 0 \
  >"$tmp/out" 2>"$tmp/err"
check "tune --out naming its start engine (through a link): refused" grep -q "is the same file as the input .*start.ini" "$tmp/err"
check "... the start engine untouched" cmp -s "$tmp/start.ini" "$tmp/engines/default.ini"
"$tv" selfplay "$tmp/t.ini" --out "$tmp/other.h5" --games 1 --quiet >/dev/null 2>&1
"$tv" export "$tmp/other.h5" --tgn "$tmp/keep.h5" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "export --tgn naming another store: refused (exit $rc)" [ $rc != 0 ]
check "... before reading, the store untouched" sh -c "grep -q 'is an HDF5 file' '$tmp/err' && cmp -s '$tmp/keep.h5' '$tmp/keep.copy'"
"$tv" export "$tmp/other.h5" --digest "$tmp/other.h5" >"$tmp/out" 2>"$tmp/err"
check "export --digest naming its own store: refused" sh -c "grep -q 'is an HDF5 file' '$tmp/err' && '$tv' verify '$tmp/other.h5' >/dev/null 2>&1"

# ---- a report folder is replaced as a whole (issue 34) ----------------------------------
# gnuplot wrote the PNGs in place: a kill -9 during the plots left a 0-byte
# PNG under the old report.html (2 of 8 kills).  A stand-in gnuplot here
# leaves such a PNG and kills the report.
if command -v gnuplot >/dev/null; then
  "$tv" report "$tmp/keep.h5" -o "$tmp/rep" >/dev/null 2>"$tmp/err"
  check "report: a first report (exit $?)" [ -s "$tmp/rep/report.html" ]
  sums=$(cd "$tmp/rep" && md5sum * | sort)
  mkdir -p "$tmp/killer"
  printf '#!/bin/sh\n: > elo.png\nkill -9 $PPID\nsleep 5\n' >"$tmp/killer/gnuplot"
  chmod +x "$tmp/killer/gnuplot"
  PATH="$tmp/killer:$PATH" "$tv" report "$tmp/other.h5" -o "$tmp/rep" >/dev/null 2>&1
  rc=$?
  check "report killed during its plots (exit $rc)" [ $rc = 137 ]
  check "... the old report whole: every file as it was, no 0-byte PNG" \
    [ "$(cd "$tmp/rep" && md5sum * | sort)" = "$sums" ]
  "$tv" report "$tmp/other.h5" -o "$tmp/rep" >/dev/null 2>"$tmp/err"
  check "... the next report: exit $?" [ -s "$tmp/rep/report.html" ]
  check "... it replaced the old one" [ "$(cd "$tmp/rep" && md5sum * | sort)" != "$sums" ]
  check "... and removed what the killed one left" [ -z "$(ls -A "$tmp/rep" | grep stage)" ]
  # a failing gnuplot: the old report stays, the message names the folder and its log
  printf '#!/bin/sh\necho "plots.gp, line 3: bad" >&2\nexit 1\n' >"$tmp/killer/gnuplot"
  sums=$(cd "$tmp/rep" && md5sum * | sort)
  PATH="$tmp/killer:$PATH" "$tv" report "$tmp/keep.h5" -o "$tmp/rep" >/dev/null 2>"$tmp/err"
  check "report with a failing gnuplot: exit $?, the old report as it was" \
    [ "$(cd "$tmp/rep" && md5sum * | grep -v gnuplot.log | sort)" = "$(echo "$sums" | grep -v gnuplot.log)" ]
  check "... the message names the folder, not a stage, and its log is there" \
    sh -c "grep -q '$tmp/rep/plots.gp' '$tmp/err' && ! grep -q stage '$tmp/err' && [ -s '$tmp/rep/gnuplot.log' ]"
fi

# ---- the tuner's INI reads back ------------------------------------------------------
"$tv" selfplay "$tmp/t.ini" --out "$tmp/one.h5" --games 1 --quiet >/dev/null 2>&1
"$tv" tune --data "$tmp/one.h5" --engine "$tmp/engines/default.ini" --out "$tmp/one.ini" --holdout 0 \
  >"$tmp/out" 2>"$tmp/err"
check "tune on one game: exit 0" [ $? = 0 ]
check "... its summary ends with the files it wrote (a long summary once lost its end)" \
  grep -q "^wrote $tmp/one.ini and $tmp/one.tuning.log\$" "$tmp/out"
check "... its INI has no line longer than the INI reader's 198 characters" \
  awk 'length($0) > 198 { bad = 1 } END { exit bad }' "$tmp/one.ini"
"$tv" analyse --engine "$tmp/one.ini" --depth 1 startpos >"$tmp/out" 2>"$tmp/err"
check "... and analyse --engine reads it" [ $? = 0 ]
# four games, half held out: NO IMPROVEMENT (once a 240-character line)
"$tv" selfplay "$tmp/t.ini" --out "$tmp/four.h5" --quiet >/dev/null 2>&1
"$tv" tune --data "$tmp/four.h5" --engine "$tmp/engines/default.ini" --out "$tmp/four.ini" --holdout 0.5 \
  >"$tmp/out" 2>"$tmp/err"
check "tune with half the games held out: exit 0" [ $? = 0 ]
check "... NO IMPROVEMENT" grep -q "NO IMPROVEMENT" "$tmp/four.ini"
check "... no line of its INI longer than 198 characters" \
  awk 'length($0) > 198 { bad = 1 } END { exit bad }' "$tmp/four.ini"
"$tv" analyse --engine "$tmp/four.ini" --depth 1 startpos >"$tmp/out" 2>"$tmp/err"
check "... and analyse --engine reads it" [ $? = 0 ]
"$tv" weights --ini "$tmp/w.ini" >/dev/null 2>"$tmp/err"
"$tv" analyse --engine "$tmp/w.ini" --depth 1 startpos >"$tmp/out" 2>"$tmp/err"
check "weights --ini: analyse --engine reads its INI" [ $? = 0 ]

# ---- the [train] INI reader refuses what the tournament reader refuses -----------------
# Each row: a file, the exit status wanted (non-zero) and a word of the message.
# The good lines come first and run one tiny generation if a bad line is
# silently dropped; engine = missing.ini (checked last by the reader) keeps
# even such a run from starting.
head='[train]
engine = missing.ini
depth = 1
games = 2
sprt_pairs = 2
max_plies = 20
'
row() { # row NAME WORD (the file is $tmp/bad.ini)
  local name=$1 word=$2
  "$tv" train "$tmp/bad.ini" --out "$tmp/trainrun" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "train INI: $name is refused (exit $rc)" [ $rc != 0 ]
  check "train INI: $name: the message says '$word'" grep -q -- "$word" "$tmp/err"
  rm -rf "$tmp/trainrun"
}
{ printf '%s' "$head"; printf 'generations = 1\0\ngames = 300\n'; } >"$tmp/bad.ini"
row "a NUL byte" "NUL byte"
{ printf '%s' "$head"; printf 'generations = 1\001\n'; } >"$tmp/bad.ini"
row "a control character" "control character"
{ printf '%s' "$head"; printf '# %0250d\n' 0; } >"$tmp/bad.ini"
row "a 252-character line" "bad.ini:7: line is longer"
{ printf '%s' "$head"; printf 'generations = 999\n'; } >"$tmp/bad.ini"
row "generations = 999" "generations '999' must be a whole number from 1 to 100"
{ printf '%s' "$head"; printf 'generations = 0\n'; } >"$tmp/bad.ini"
row "generations = 0" "generations '0'"
{ printf '%s' "$head"; printf 'generations = +2\n'; } >"$tmp/bad.ini"
row "generations = +2" "generations '+2'"
{ printf '%s' "$head"; printf 'plies = 12abc\n'; } >"$tmp/bad.ini"
row "plies = 12abc" "plies '12abc'"
{ printf '%s' "$head"; printf '[trian]\n'; } >"$tmp/bad.ini"
row "a misspelt section without keys" "bad.ini:7: unknown section \[trian\]"
{ printf '[train] engine = x.ini\n'; } >"$tmp/bad.ini"
row "text after the section header" "text after the section header"
rm -f "$tmp/bad.ini"
mkdir "$tmp/bad.ini"
row "a directory" "is a directory"
rmdir "$tmp/bad.ini"
mkfifo "$tmp/bad.ini"
row "a FIFO" "not a regular file"
rm -f "$tmp/bad.ini"

# the engine INI's reader shares the prologue: the same refusals from a file
erow() { # erow NAME WORD (the file is $tmp/bad.ini)
  "$tv" analyse --engine "$tmp/bad.ini" --depth 1 startpos >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "engine INI: $1 is refused (exit $rc)" [ $rc != 0 ]
  check "engine INI: $1: the message says '$2'" grep -q -- "$2" "$tmp/err"
}
printf '[engine]\nname = x\0\n[weights]\ntempo = 99\n' >"$tmp/bad.ini"
erow "a NUL byte" "bad.ini:2: a NUL byte"
{ printf '[engine]\n'; printf '# %0250d\n' 0; } >"$tmp/bad.ini"
erow "a 252-character line" "bad.ini:2: line is longer"
printf '[engine]\n[serch]\n' >"$tmp/bad.ini"
erow "a misspelt section without keys" "bad.ini:2: unknown section \[serch\]"
rm -f "$tmp/bad.ini"
mkdir "$tmp/bad.ini"
erow "a directory" "is a directory"
rmdir "$tmp/bad.ini"
mkfifo "$tmp/bad.ini"
erow "a FIFO" "not a regular file"
rm -f "$tmp/bad.ini"

# ---- a signal while a big plan's openings are made -------------------------------------
cat >"$tmp/big.ini" <<EOI
[tournament]
name = big
pairs = 5000
seed = 9
[openings]
plies = 6
balance_depth = 2
[sprt]
elo0 = 0
elo1 = 5
[engine a]
path = engines/default.ini
depth = 1
[engine b]
path = engines/default.ini
depth = 1
EOI
"$tv" selfplay "$tmp/big.ini" --out "$tmp/big.h5" --quiet >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do [ -e "$tmp/big.h5" ] && break; sleep 0.05; done # the store exists: openings next
sleep 0.3
term_stop $pid
rc=$STOP_STATUS
check "SIGTERM while the openings are made: exit 143 (got $rc)" [ $rc = 143 ]
# on the CPU used after the signal (term_stop, tests/selfplay_common.sh),
# generous for the sanitizers; before the stop was polled there, the
# openings of 5,000 pairs took 5.3 s (over 20 s under ASan)
check "... within 2 s of CPU (took $STOP_CPU_MS ms; $STOP_WALL_MS ms of wall time)" \
  [ "$STOP_CPU_MS" -ge 0 -a "$STOP_CPU_MS" -lt 2000 ]

# ---- file names that are not UTF-8 -----------------------------------------------------
bad=$(printf '%s/\377\033x.tgn' "$tmp")
: >"$bad"
"$tv" replay --file "$bad" >"$tmp/out" 2>"$tmp/err"
check "replay --file of an empty non-UTF-8-named file: exit non-zero" [ $? != 0 ]
check "... the name shown escaped (\\xFF\\x1B)" grep -qF '\xFF\x1Bx.tgn' "$tmp/err"
check "... no raw byte of it" sh -c "! LC_ALL=C grep -q \"\$(printf '\\377')\" '$tmp/err'"

echo "$passes passed, $fails failed"
[ $fails = 0 ]
