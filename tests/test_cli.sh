#!/usr/bin/env bash
# End-to-end checks of the tavreli command line: output shapes that other
# tools rely on, exit codes and error messages.
# usage: test_cli.sh PATH/TO/tavreli DATA_DIR
set -u
tv=$1
data=$2
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name (exit status $rc; stderr follows)"
    head -c 2000 "$tmp/err"
    fails=$((fails + 1))
  fi
}
run() { # run: stdout -> $tmp/out, stderr -> $tmp/err, status -> $rc
  "$tv" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
}
last_line() { tail -n 1 "$tmp/out"; }

START='rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 1'

run perft startpos 1
check "perft startpos 1 = 39" [ "$rc" = 0 -a "$(cat "$tmp/out")" = 39 ]

run perft startpos 2 --divide
check "divide: last line is the total alone" [ "$(last_line)" = 1519 ]
check "divide: 39 move lines" [ "$(grep -c ': ' "$tmp/out")" = 39 ]
check "divide: counts add up" [ "$(grep ': ' "$tmp/out" | awk '{s += $2} END {print s}')" = 1519 ]

run perft "$START" 3
check "perft with quoted TFEN" [ "$(last_line)" = 68455 ]
# shellcheck disable=SC2086
run perft $START 3
check "perft with the TFEN as separate words" [ "$(last_line)" = 68455 ]

run perft --rule slide_over_own=yes startpos 1
check "perft accepts --rule" [ "$rc" = 0 ]
run perft --option slide_over_own=yes startpos 1
check "perft --option (an engine's option) is a usage error" [ "$rc" = 2 ]
check "... saying the word for a rule option" grep -q "unknown flag '--option' (a rule option is --rule NAME=VALUE" "$tmp/err"
run analyse --option lmr=no --rule slide_over_own=yes --depth 2 startpos
check "analyse --option sets an engine option (issue 36: it was refused as a rule option)" [ "$rc" = 0 ]
run analyse --option lmr=maybe --depth 2 startpos
check "analyse --option with a bad value fails naming it" sh -c "[ $rc = 1 ] && grep -q \"analyse: --option 'lmr=maybe'\" '$tmp/err'"
run analyse --option nonsense=3 --depth 2 startpos
check "analyse --option with an unknown name fails" [ "$rc" = 1 ]
run analyse --nodes 20000 --option lmr=no startpos
a_nolmr=$(grep -c '^info\|^depth' "$tmp/out"; tail -1 "$tmp/out")
run analyse --nodes 20000 startpos
check "analyse --option lmr=no changes the search" [ "$a_nolmr" != "$(grep -c '^info\|^depth' "$tmp/out"; tail -1 "$tmp/out")" ]
run perft --dividee startpos 1
check "a near misspelled flag gets the nearest one" grep -q "unknown flag '--dividee' (did you mean --divide?)" "$tmp/err"
run perft --rule slide_over_own=maybe startpos 1
check "bad option value is a usage error" [ "$rc" = 2 ]
check "bad option value is named" grep -q "slide_over_own" "$tmp/err"

run perft 'rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNx w KQkq - 0 1' 1
check "bad TFEN exits 1" [ "$rc" = 1 ]
check "bad TFEN names field and char" grep -q "^error: TFEN field 1 (board), char" "$tmp/err"
run perft startpos deep
check "bad depth is a usage error" [ "$rc" = 2 ]

run moves startpos
check "moves: 39 lines" [ "$(wc -l <"$tmp/out")" = 39 ]
check "moves: sorted" cmp -s "$tmp/out" <(LC_ALL=C sort "$tmp/out")
check "moves: notation" grep -qx "e2-e4" "$tmp/out"

run moves '2(rPBnPNbPQ)5/8/8/8/8/8/8/K6k b - - 0 1'
check "moves: split notation" grep -qx "c8(1)-c7" "$tmp/out"

# docs/rules.md section 14: the seed game ends in checkmate.
run replay g1-f3 f8-e7 d1-c1 g8-h6 c1-b2 0-0 'b2(1)-g7x'
check "replay seed game: state" [ "$(last_line)" = checkmate ]
check "replay seed game: final TFEN" [ "$(head -n 1 "$tmp/out")" = "rnbq1rk1/prpnpbpq(bph)pb(Qpn)pr/7n/8/8/5N2/PR(BPN)PBPQPHPBPNPR/RN2KB1R b KQ - 0 4" ]
run replay '1. g1-f3 f8-e7 2. d1-c1 g8-h6 3. c1-b2 0-0 4. b2(1)-g7x 1-0'
check "replay movetext with numbers and result" [ "$(last_line)" = checkmate ]

run replay e2-e4 e7-e5 e1-e3
check "illegal move exits 1" [ "$rc" = 1 ]
check "illegal move names ply and move" grep -q "ply 3.*e1-e3" "$tmp/err"

run replay e2-e4+
check "a + that does not check is reported" grep -qi "warning:.*e2-e4+" "$tmp/err"

run replay --file "$data/published.txt" --lenient
check "published games replay leniently" [ "$rc" = 0 ]
check "published games: one state per game" [ "$(grep -cx -e checkmate -e ongoing -e stalemate -e repetition "$tmp/out")" = "$(grep -c '^game' "$data/published.txt")" ]
run replay --file "$data/published.txt"
check "strict replay rejects the slips" [ "$rc" = 1 ]
check "strict error names the game" grep -q "game1" "$tmp/err"

run replay --file "$tmp/missing.tgn"
check "missing file exits 1" [ "$rc" = 1 ]

# ---- engine commands ----
run analyse --depth 3 startpos
check "analyse: last line is bestmove" grep -q "^bestmove [a-h0]" <(last_line)
check "analyse: one line per iteration" [ "$(grep -c '^depth [0-9]* score ' "$tmp/out")" = 3 ]
run analyse --depth 2 'rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4'
check "analyse finds the split mate of docs/rules.md 14" [ "$(last_line)" = "bestmove b2(1)-g7x" ]
check "analyse reports the mate score" grep -q "score mate 1 " "$tmp/out"
printf '[engine]\nname = x\n[weights]\ntempo = 5000\n' >"$tmp/bad.ini"
run analyse --engine "$tmp/bad.ini" startpos
check "bad engine file exits 1" [ "$rc" = 1 ]
check "bad engine file names file and line" grep -q "bad.ini:4: weight 'tempo'" "$tmp/err"
run analyse --depth 0 startpos
check "bad depth is a usage error" [ "$rc" = 2 ]
run weights
check "weights lists the table" grep -q "^top_value *6" "$tmp/out"
run weights --ini "$tmp/default.ini"
check "weights --ini writes an engine file" grep -q "^\[weights\]" "$tmp/default.ini"
"$tv" play --depth 1 >"$tmp/out" 2>"$tmp/err" <<'EOS'
moves
e2-e4
show e4
undo
F2-f4
quit
EOS
rc=$?
check "play: exits cleanly on quit" [ "$rc" = 0 ]
check "play: lists moves" grep -q "39 legal moves" "$tmp/out"
check "play: engine replies" grep -q "^engine plays " "$tmp/out"
check "play: show prints the stack" grep -q "e4: 1 tavrel, top first:" "$tmp/out"
check "play: lenient input mended" grep -q "note: .*upper-case" "$tmp/out"

run sprt --penta 39,2226,31451,2412,40 --elo0 0.764 --elo1 3.439 --alpha 0.05 --beta 0.05
check "sprt: fishtest's known LLR and bounds" [ "$(head -1 "$tmp/out")" = "LLR 2.16294087 bounds [-2.944439, 2.944439] continue" ]
check "sprt: the bounds in the other model" grep -q "^elo0 0.764, elo1 3.439 normalized Elo are \[0.20, 0.90\] logistic Elo at these counts' per-pair deviation$" "$tmp/out"
run sprt --penta 10,50,100,60,12 --elo0 0 --elo1 5 --model logistic
check "sprt --model logistic: fishtest's logistic LLR (tests/data/sprt_logistic_reference.py)" grep -q "^LLR 0.3593498[78] bounds" "$tmp/out"
run sprt --penta 10,50,100,60,12 --model bayes
check "sprt --model bayes is a usage error (exit 2)" [ $rc = 2 ]
check "... saying the two models" grep -q "sprt: --model must be normalized or logistic, not 'bayes'" "$tmp/err"
run sprt --penta 1,2,3
check "sprt: bad counts are a usage error" [ "$rc" = 2 ]

run sprt --penta 18446744073709551616,0,0,0,0
check "sprt: a count out of range is refused" [ "$rc" = 2 ]
check "... saying the range" grep -q "whole numbers from 0 to" "$tmp/err"
run sprt --penta 1,2,3,4,5 --elo1 inf
check "sprt: a non-finite bound is refused" [ "$rc" = 2 ]
run sprt --penta 1,2,3,4,5 --alpha 0.6
check "sprt: alpha out of range names the range" grep -q "alpha must be a number above 0 and below 0.5, not '0.6'" "$tmp/err"
run sprt --penta 1,2,3,4,5 --beta 0.5
check "sprt: beta 0.5 (a bound, excluded) is refused" grep -q "beta must be a number above 0 and below 0.5" "$tmp/err"

# --flag=value as well as --flag value
run analyse --depth=2 startpos
check "analyse --depth=2" [ "$(grep -c '^depth [0-9]* score ' "$tmp/out")" = 2 ]
# a node limit below one iteration: no fake iteration, a legal move marked
run analyse --nodes 1 startpos
check "analyse --nodes 1: no iteration line" [ "$(grep -c '^depth ' "$tmp/out")" = 0 ]
check "... says none completed" grep -q "^no iteration completed" "$tmp/out"
check "... and still a move, marked" grep -q "^bestmove [a-h][1-8].* (unsearched)$" "$tmp/out"

# control bytes of an input never reach the terminal raw
run replay "$(printf 'e2-e4\033[31m')"
check "an escape byte in a move is escaped in the error" grep -q 'e2-e4\\x1B\[31m' "$tmp/err"
check "... and not sent raw" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/err'"

run nosuchcommand
check "unknown command is a usage error" [ "$rc" = 2 ]
run --help
check "--help works" [ "$rc" = 0 ]
"$tv" --help >"$tmp/top" 2>&1
# every command's usage lines are in the overview, with all their flags
for c in perft moves replay bench analyse play weights strength selfplay export verify repair report tune sprt; do
  run "$c" --help
  check "$c --help" [ "$rc" = 0 -a -s "$tmp/out" ]
  awk 'NF == 0 {exit} {sub(/^usage: /, ""); sub(/^ +/, ""); print}' "$tmp/out" >"$tmp/usage"
  missing=$(while read -r l; do grep -qF -- "$l" "$tmp/top" || echo "$l"; done <"$tmp/usage")
  check "tavreli --help shows the usage of $c ($missing)" [ -z "$missing" ]
done

# the benchmarks' scratch folders go under $TMPDIR (they were fixed under /tmp)
TMPDIR=$tmp/no-such-dir run bench selfplay --games 2 --depth 1
check "bench selfplay makes its scratch folder under \$TMPDIR ($rc)" [ "$rc" = 1 ]
check "... and says where it could not" grep -q "cannot make a temporary directory in $tmp/no-such-dir" "$tmp/err"
mkdir -p "$tmp/scratch"
TMPDIR=$tmp/scratch run bench protocol --games 2 --nodes 200 --rounds 1
check "bench protocol runs with \$TMPDIR elsewhere ($rc: $(tail -c 200 "$tmp/err"))" [ "$rc" = 0 ]

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
