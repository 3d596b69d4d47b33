#!/usr/bin/env bash
# A report says what was played (report/report*.c, docs/reports.md): a
# tournament of the in-process engine, `tavreli uci` as a separate program
# with an option on a clock, and a program that oversteps its clock (the
# fake engine's overtime mode).  Its report names the build (git describe),
# each engine's kind, command, options, limits and time control, the
# openings, dates and reproducibility, says how many games each engine lost
# on time (with the note), and heads with the table against --baseline.
# usage: test_report_played.sh TAVRELI FAKE_ENGINE SOURCE_DIR
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") src=$3
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check
mkdir -p "$tmp/engines"
cp "$src/configs/engines/default.ini" "$tmp/engines/default.ini"
# every process this test starts names $tmp (links), so that the trap finds them
ln -s "$fake" "$tmp/fake"
ln -s "$tv" "$tmp/tavreli"
cat >"$tmp/t.ini" <<EOI
[tournament]
name = played
pairs = 1
seed = 3
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
[engine inproc]
path = engines/default.ini
depth = 1
[engine uci]
command = $tmp/tavreli uci
option.Hash = 8
depth = 1
tc = 30+0.5
[engine late]
command = $tmp/fake --mode overtime --after 2 --seconds 1
depth = 1
tc = 1+0.01
timemargin = 50
EOI
"$tv" selfplay "$tmp/t.ini" --out "$tmp/t.h5" --quiet >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
check "the tournament finishes (exit 0)" [ $rc -eq 0 ] || cat "$tmp/run.err"
"$tv" report "$tmp/t.h5" --baseline uci -o "$tmp/r" >"$tmp/report.out" 2>"$tmp/report.err"
rc=$?
check "the report is written (exit 0)" [ $rc -eq 0 ] || cat "$tmp/report.err"
md="$tmp/r/report.md"
has() { grep -qF -- "$1" "$md" || { echo "  report.md lacks: $1"; return 1; }; }
# report prints the report's first line, plain text (no ** nor HTML entities)
head3=$(sed -n 3p "$md" | sed 's/^\*\*//; s/\*\*$//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
check "report prints its headline as its last line ($head3)" \
  bash -c "[ -n '$head3' ] && [ \"\$(tail -1 '$tmp/report.out')\" = '$head3' ]"
check "... from the first engine's view (--baseline uci)" grep -q "^uci vs " <(tail -1 "$tmp/report.out")

# the build: the version tavreli --version prints, the git describe of a commit of this checkout
ver=$("$tv" --version | head -1 | cut -d' ' -f2)
check "the report names the build ($ver)" has "made by tavreli $ver;"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(sed -n 's/.*-g\([0-9a-f]\{7,\}\).*/\1/p' <<<"$ver")
  check "the version is git describe of a commit here ($ver)" \
    git -C "$src" cat-file -e "${commit:-none}^{commit}"
fi
# each engine: kind, program or engine INI, build, options, limits, clock; the
# build: the commit that played (--version's), a program's hash (of the file
# its command runs, links followed), id name (what `uci` answers) and, for a
# tavreli build, its bench signature
commit=$("$tv" --version | sed -n 's/.*(commit \(.*\))$/\1/p')
tv_sha=$(sha256sum "$(readlink -f "$tv")" | cut -c1-12)
fake_sha=$(sha256sum "$(readlink -f "$fake")" | cut -c1-12)
tv_id=$(printf 'uci\nquit\n' | "$tv" uci | sed -n 's/^id name //p')
tv_bench=$("$tv" bench search 2>/dev/null | sed -n 's/^nodes //p') # its bench signature
check "--version names a commit ($commit)" [ -n "$commit" ]
check "... and, second, how and from which tree of files it was built ($("$tv" --version | sed -n 2p))" \
  grep -Eqx "built as [A-Za-z]+(\+sanitize)?(\+generic)? from tree ([0-9a-f]{40}|unknown)" <("$tv" --version | sed -n 2p)
check "the in-process engine, its INI, build and limits" \
  has "| inproc | in-process engine | $tmp/engines/default.ini | commit $commit | defaults | depth 1 | none | - |"
check "tavreli uci: its command, build, option, limits and time control" \
  has "| uci | separate program | $tmp/tavreli uci | commit $commit, sha256 $tv_sha, '$tv_id', bench $tv_bench | Hash=8 | depth 1 | 30+0.5 | 100 ms |"
check "the late program: its command, hash, id name and time control" \
  has "| late | separate program | $tmp/fake --mode overtime --after 2 --seconds 1 | sha256 $fake_sha, 'fake' | none | depth 1 | 1+0.01 | 50 ms |"
check "the openings" has "Openings: [openings] plies = 2, balance_depth = 1, balance_cp = 1000"
check "the dates" grep -qE "played from 20[0-9-]+ [0-9:]+ UTC \(when its first game began\) to 20" "$md"
check "not reproducible" has "The games are not reproducible"
check "the tournament INI" has "option.Hash = 8"

# games lost on time: the counts of the store itself
forfeits=$("$tv" verify "$tmp/t.h5" 2>&1 | sed -n 's/.*stored terminations:.* time_forfeit \([0-9]*\).*/\1/p')
check "the late engine lost games on time (${forfeits:-none})" [ "${forfeits:-0}" -ge 2 ]
check "each engine's games lost on time" has "| late | 4 | 0 | ${forfeits:-x} | 0 | 0 |"
check "no time loss for the others" has "| uci | 4 | 0 | 0 | 0 | 0 | 0.0% |"
check "the note on the late engine's time losses" has "Note: late lost ${forfeits:-x} of its 4 games"

# the headline table against the baseline
check "the baseline table" has "## uci against each engine"
check "the headline first: the baseline against each engine it met" \
  bash -c "sed -n 3p '$md' | grep -q '^\*\*uci vs inproc: .* Elo (nElo .*), LOS .*, 2 games (+[0-9]* =[0-9]* -[0-9]*)\*\*\$'"
check "the baseline table: inproc" grep -qE "^\| inproc \| [-+0-9]+ ± [0-9]+ \| [^|]+ \| 4 \| 2 \|$" "$md"
check "the baseline table: late" grep -qE "^\| late \| [-+0-9]+ ± [0-9a-z/]+ \| [^|]+ \| 4 \| 2 \|$" "$md"
check "the baseline is not a row of its own" bash -c "! sed -n '/^## uci against each engine/,/^## What/p' '$md' | grep -q '^| uci |'"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ] || { echo "--- report.md"; sed -n '1,80p' "$md"; }
[ "$fails" -eq 0 ]
