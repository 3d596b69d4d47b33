#!/usr/bin/env bash
# Fixed weights from the command line and from a training INI:
# `tavreli tune --fixed` and `[train] fixed` refuse bad names (train with
# the file and line), and a training run passes its list to every tune (the
# tuned INI keeps the fixed weight and names it in its header).
# usage: test_tune_fixed.sh PATH/TO/tavreli SOURCE_DIR
set -u
tv=$1
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
check() {
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
eng=$src/configs/engines/default.ini

# [train] fixed: a bad element index, an unknown name (file and line)
printf '[train]\nengine = %s\nfixed = tempo, top_value[6]\n' "$eng" >"$tmp/bad1.ini"
"$tv" train "$tmp/bad1.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
rc=$?
check "train: a bad index is an error" test "$rc" -ne 0
check "train: a bad index is refused with its file and line" \
  grep -q "bad1.ini:3: \[train\] fixed: unknown weight 'top_value\[6\]' (top_value has elements top_value\[0\] to top_value\[5\])" "$tmp/e"
printf '[train]\nengine = %s\n\nfixed = warrior\n' "$eng" >"$tmp/bad2.ini"
"$tv" train "$tmp/bad2.ini" --out "$tmp/b" >/dev/null 2>"$tmp/e"
check "train: an unknown name is refused with its file and line" \
  grep -q "bad2.ini:4: \[train\] fixed: unknown weight 'warrior'" "$tmp/e"
check "train: nothing was written" test ! -e "$tmp/b"

# tune --fixed: refused before any data is read
"$tv" tune --data "$tmp/none.h5" --engine "$eng" --out "$tmp/n.ini" --fixed 'top_value[1],tempo,tempo' \
  >/dev/null 2>"$tmp/e"
rc=$?
check "tune: a name given twice is an error" test "$rc" -ne 0
check "tune: a name given twice is refused" grep -q "fixed: 'tempo' is given twice" "$tmp/e"

# a small run: every tune holds the fixed weights
cat >"$tmp/t.ini" <<EOI
[train]
name = t
engine = $eng
generations = 1
games = 20
depth = 1
sprt_pairs = 4
max_plies = 80
seed = 5
fixed = top_value[1], prisoner
EOI
"$tv" train "$tmp/t.ini" --out "$tmp/run" >"$tmp/o" 2>&1
check "train with fixed runs" test $? -eq 0
check "the tune's header names the fixed weights" grep -q "fixed top_value\[1\], prisoner" "$tmp/run/gen-1/tuned.ini"
start1=$(grep '^top_value' "$eng" | awk -F'[=,]' '{gsub(/ /,""); print $3}')
check "the summary lists the fixed weight" grep -q "top_value\[1\]: $start1 (fixed)" "$tmp/run/gen-1/tuned.ini"
want=$(grep '^top_value' "$eng" | awk -F'[=,]' '{gsub(/ /,""); print $3}')
got=$(grep '^top_value' "$tmp/run/gen-1/tuned.ini" | awk -F'[=,]' '{gsub(/ /,""); print $3}')
check "the fixed element keeps its value ($want, got $got)" test "$want" = "$got"

# the report's tuning section lists a log's correlated pairs
cp "$tmp/run/gen-1/tune.log" "$tmp/l.log"
echo "corr top_value[2] prisoner[2] 0.9130" >>"$tmp/l.log"
"$tv" report "$tmp/run/gen-1/selfplay.h5" --tuning-log "$tmp/l.log" -o "$tmp/rep" >/dev/null 2>&1
check "report: the correlated pair is in the tuning section" grep -q '^| top_value\[2\] | prisoner\[2\] | +0.913 |' "$tmp/rep/report.md"

# the lines printed for pasting name the program as it was run (issue 36: a
# bare 'tavreli' is not on PATH): train's last line, tune's SPRT command
check "train's last line runs this program" grep -qF "the ladder with a plot: $tv report $tmp/run" "$tmp/o"
"$tv" tune --data "$tmp/run/gen-1/selfplay.h5" --engine "$eng" --out "$tmp/p.ini" >"$tmp/p.out" 2>&1
check "tune's SPRT command runs this program, into results/ as the README's" \
  grep -qF "> sprt.ini && $tv selfplay sprt.ini --out results/sprt.h5" "$tmp/p.out"

echo "$passes passed, $fails failed"
test "$fails" -eq 0
