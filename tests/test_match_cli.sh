#!/bin/bash
# test_match_cli.sh TAVRELI SOURCE_DIR: `tavreli match`, a tournament from
# cutechess-cli/fastchess-style flags (issue 36): every flag family becomes
# its INI key (--print-ini, and the INI written beside the store), the run
# plays, stores and rates like selfplay, -resume with more rounds plays only
# the new games, a TGN book gives one opening per record, -sprt keeps its
# model, -pgnout writes the games, -log the protocol logs, --dry-run writes
# nothing; what has no meaning here is refused with the reason, an unknown
# flag with the nearest known.
set -u
tv=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && echo "kept $tmp"
. "$src/tests/selfplay_common.sh"
cp "$src/configs/engines/default.ini" "$tmp/d.ini"
cd "$tmp" || exit 1

# ---- the flags become the INI ----
"$tv" match -engine cmd="$tv" args=uci name=new option.lmr=no -engine path=d.ini name=old \
  -each nodes=4000 timemargin=50 -games 2 -rounds 3 -repeat -concurrency 2 -maxmoves 60 \
  -draw movenumber=30 movecount=6 score=5 -resign movecount=3 score=900 twosided=true \
  -rules enpassant=any -srand 7 -event m1 --print-ini >p.ini 2>p.err
check "--print-ini exits 0" [ $? = 0 ]
for want in "name = m1" "pairs = 3" "threads = 2" "seed = 7" "enpassant = any" "max_plies = 120" \
  "draw_after_ply = 60" "draw_moves = 6" "draw_score = 5" "resign_moves = 3" "resign_score = 900" \
  "nodes = 4000" "timemargin = 50" "option.lmr = no" "command = $tv uci" "path = $tmp/d.ini"; do
  check "--print-ini: '$want'" grep -qxF "$want" p.ini
done
check "... and nothing was written" [ ! -e results ]

# ---- a run: stored, rated, the INI beside the store, the TGN after ----
"$tv" match -engine cmd="$tv" args=uci name=new -engine path=d.ini name=old -each nodes=4000 -games 2 \
  -rounds 3 -repeat -concurrency 2 -maxmoves 60 -srand 7 -out r/m.h5 -pgnout r/m.tgn -log -quiet \
  >run.out 2>run.err
check "the folder of -out must exist" grep -q "r/m.h5: its folder .*/r does not exist" run.err
mkdir r
"$tv" match -engine cmd="$tv" args=uci name=new -engine path=d.ini name=old -each nodes=4000 -games 2 \
  -rounds 3 -repeat -concurrency 2 -maxmoves 60 -srand 7 -out r/m.h5 -pgnout r/m.tgn -log -quiet \
  >run.out 2>run.err
check "a match runs (exit $?)" grep -q "6 games stored this run (0 before), 6 of 6 planned" run.out
check "... with the standings" grep -q "^1 .*new\|^1 .*old" run.out
check "... the INI kept beside the store" grep -qx "pairs = 3" r/m.ini
check "... which selfplay reads as the run's own" sh -c "'$tv' selfplay r/m.ini --out r/m.h5 --resume --quiet | grep -q ' 0 games stored this run'"
check "... -pgnout: the games as TGN" [ "$(grep -c '^\[Round' r/m.tgn)" = 6 ]
check "... -log: each program's protocol log" [ -s r/m.new.protocol.log ]
"$tv" match -engine cmd="$tv" args=uci name=new -engine path=d.ini name=old -each nodes=4000 -games 2 \
  -rounds 5 -repeat -concurrency 2 -maxmoves 60 -srand 7 -out r/m.h5 -log -resume -quiet >res.out 2>&1
check "-resume with more rounds plays only the new games" grep -q "4 games stored this run (6 before), 10 of 10 planned" res.out
"$tv" report r/m.h5 -o rep >/dev/null 2>&1
check "the store reports like any" grep -q "new vs old\|old vs new" rep/report.md

# ---- an opening book: one opening per record, its moves cut by plies ----
printf '[Event "a"]\n\n1. e2-e4 e7-e5 2. d2-d4 *\n\n[Event "b"]\n\n1. d2-d4 d7-d5 *\n' >book.tgn
"$tv" match -engine path=d.ini name=a -engine path=d.ini name=b depth=2 -each depth=1 -games 2 -rounds 2 \
  -openings file=book.tgn format=tgn order=sequential plies=2 -out r/b.h5 -quiet >b.out 2>&1
check "a book match runs" grep -q "4 of 4 planned" b.out
"$tv" export r/b.h5 --tgn r/b.tgn >/dev/null 2>&1
e4e5=$("$tv" replay e2-e4 e7-e5 | head -1)
d4d5=$("$tv" replay d2-d4 d7-d5 | head -1)
check "... each record an opening of its first 2 moves" sh -c "grep -qF '[TFEN \"$e4e5\"]' r/b.tgn && grep -qF '[TFEN \"$d4d5\"]' r/b.tgn"
"$tv" match -engine path=d.ini name=a -engine path=d.ini name=b -openings file=book.tgn format=pgn >e 2>&1
check "-openings format=pgn names Tavreli's formats" grep -q "format=pgn: Tavreli's books are TGN records (format=tgn) or TFEN lines (format=tfen)" e

# ---- -sprt keeps its model (logistic bounds far apart: far from both, a
# logistic LLR grows by at most ~0.014 a pair at [0, 5], so a test there
# takes hundreds of pairs even at +200 Elo) ----
"$tv" match -engine path=d.ini name=a depth=2 -engine path=d.ini name=b depth=1 -games 2 -rounds 60 \
  -sprt elo0=0 elo1=50 alpha=0.05 beta=0.05 model=logistic -out r/s.h5 -quiet >s.out 2>&1
check "-sprt model=logistic decides" grep -q "^SPRT: H1 accepted.*(logistic Elo)" s.out
check "... and the store keeps the model" sh -c "h5dump -a /sprt r/s.h5 | grep -q 'model=logistic'"
"$tv" match -engine path=d.ini name=a -engine path=d.ini name=b depth=1 -sprt elo1=5 --print-ini >/dev/null 2>n.err
check "-sprt without a model says the bounds are normalized, and how to mean cutechess's" \
  grep -q "note: -sprt bounds are taken as normalized Elo .* add model=logistic" n.err

# ---- a gauntlet of three: planned, played, resumed, reported ----
gauntlet() { "$tv" match -tournament gauntlet -engine path=d.ini name=a depth=2 -engine path=d.ini name=b depth=1 \
  -engine path=d.ini name=c depth=1 -maxmoves 60 -out r/g.h5 "$@"; }
gauntlet -rounds 1 --dry-run >g.out 2>&1
check "-tournament gauntlet: the first against each other (2 pairings), --dry-run" grep -q "3 engines, 2 pairings x 1 pairs x 2 = 4 games" g.out
check "... --dry-run writes nothing" sh -c "[ ! -e r/g.h5 ] && [ ! -e r/g.ini ]"
gauntlet -rounds 1 -quiet >g.out 2>&1
check "the gauntlet plays" grep -q "4 games stored this run (0 before), 4 of 4 planned" g.out
gauntlet -rounds 2 -resume -quiet >g.out 2>&1
check "... resumes with another round" grep -q "4 games stored this run (4 before), 8 of 8 planned" g.out
"$tv" report r/g.h5 -o grep >/dev/null 2>&1
check "... and reports its three engines" sh -c "grep -q 'a vs b' grep/report.md && grep -q 'a vs c' grep/report.md"

# ---- refusals ----
refused() { # WHAT PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  "$tv" match "$@" >ref.out 2>&1
  local rc=$?
  check "$what: exit 2 (got $rc)" [ $rc = 2 ]
  check "... saying '$pattern'" grep -q -- "$pattern" ref.out
}
refused "an unknown flag" "unknown flag '-concurrancy' (did you mean -concurrency?)" \
  -engine path=d.ini -engine path=d.ini -concurrancy 2
refused "an unknown engine key" "unknown key 'nodez' (did you mean nodes?)" -engine path=d.ini nodez=3 -engine path=d.ini
refused "a flag with no meaning here" "-noswap is not taken here: tavreli plays every opening with both colours" \
  -engine path=d.ini -engine path=d.ini -noswap
refused "-pgnin" "openings are given with -openings file=BOOK.tgn format=tgn" -engine path=d.ini -engine path=d.ini -pgnin x.pgn
refused "proto=xboard" "proto=xboard: tavreli speaks one protocol" -engine path=d.ini proto=xboard -engine path=d.ini
refused "ponder" "ponder=: not taken here: tavreli does not ponder" -engine path=d.ini ponder=true -engine path=d.ini
refused "odd -games" "-games 3: tavreli plays opening pairs" -engine path=d.ini -engine path=d.ini -games 3
refused "-repeat 3" "-repeat 3: tavreli plays each opening exactly twice" -engine path=d.ini -engine path=d.ini -repeat 3
refused "one engine" "needs two -engine or more" -engine path=d.ini
refused "two engines of one name" "two engines are named 'x'" -engine path=d.ini name=x -engine path=d.ini name=x
refused "-resign twosided=false" "both engines' scores agree (twosided=true)" -engine path=d.ini -engine path=d.ini \
  -resign movecount=3 score=600 twosided=false
"$tv" match -engine path=d.ini name=a -engine path=d.ini name=b -each tc=2000+50 -rounds 1 --dry-run >w.out 2>&1
check "a slip of units in tc is warned of, as selfplay does" grep -q "so a game may take 2.8 hours" w.out

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
