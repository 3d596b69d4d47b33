#!/usr/bin/env bash
# The doc-test: the commands of README.md and docs/*.md run as written.
# usage: test_docs.sh PATH/TO/tavreli SOURCE_DIR [--long]
#
# The conventions (docs/testing.md, "The doc-test"):
#   ```sh          quick commands: the block runs as a bash script (set -e)
#   ```console     quick transcript: every `$ ` line runs (a trailing `\`
#                  joins the next line); every output line shown must appear
#                  in what the commands print, numbers aside (`...` skips)
#   ```sh long     runnable as written but long (installs, builds, plays for
#   ```console long  minutes): checked here (bash -n, every tavreli command
#                  exists, every `build/tavreli selfplay` reads its INI with
#                  --dry-run); run in full by --long
#   ```sh illustrative  never run (a cluster, hours of play, placeholders):
#                  bash -n, and every tavreli command exists
#   ```sh serve    a server that runs until Ctrl-C (one command): started
#                  (on a free port), its runs list and pages asked for, then
#                  Ctrl-C, which must end it with 0
#   any other fence (```ini, ```text, bare) holds no commands.
# Quick blocks run in file order (README.md, then docs/*.md by name) in one
# scratch copy of the checkout (configs/, tests/data/, an empty results/),
# whose build/tavreli is the program under test and whose results/quick.h5
# is a small store of the quick tournament (the games of the quick start,
# 12 of its 300), so that blocks which read the quick start's store run.
# With --long, the scratch directory is a fresh clone of SOURCE_DIR (its
# committed state) and the long blocks run too, in order, quick and long
# alike (except .ci/test-all, which CI runs itself).
set -u
tv=$(readlink -f "$1")
src=$(readlink -f "$2")
long=${3:-}
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

# ---- the scratch checkout ----
root=$tmp/tavreli
if [ "$long" = --long ]; then
  git clone -q "$src" "$root" || { echo "cannot clone $src"; exit 1; }
else
  mkdir -p "$root/build" "$root/results" "$root/tests"
  cp -r "$src/configs" "$root/configs"
  cp -r "$src/tests/data" "$root/tests/data"
  ln -s "$tv" "$root/build/tavreli"
  # The first recipe's older build (../tavreli-old beside the checkout): in
  # quick mode this build stands in for it, with its own configs.
  mkdir -p "$tmp/tavreli-old/build"
  cp -r "$src/configs" "$tmp/tavreli-old/configs"
  ln -s "$tv" "$tmp/tavreli-old/build/tavreli"
  # The quick start's store, small: 12 games of configs/tournaments/quick.ini.
  if ! (cd "$root" && build/tavreli selfplay configs/tournaments/quick.ini --games 12 --force --quiet \
        >"$tmp/fixture.out" 2>&1); then
    cat "$tmp/fixture.out"; echo "FAIL: the quick tournament's store could not be made"; exit 1
  fi
fi

# ---- extract the fenced blocks ----
# blocks/N.txt holds block N's text; blocks/list one line per command block:
# N FILE LINE LANG TAG
mkdir -p "$tmp/blocks"
: >"$tmp/blocks/list"
n=0
for f in "$src/README.md" "$src"/docs/*.md; do
  n=$(awk -v out="$tmp/blocks" -v start="$n" -v file="${f#"$src"/}" '
    BEGIN { n = start; inb = 0 }
    /^ *```/ {
      if (!inb) {
        inb = 1; info = $0; ind = match($0, /[^ ]/) - 1; sub(/^ *```/, "", info); split(info, w, " ")
        lang = w[1]; tag = w[2]; keep = (lang == "sh" || lang == "console" || lang == "python")
        if (keep) { n++; f = out "/" n ".txt"; printf "" > f
                    print n, file, NR, lang, (tag == "" ? "quick" : tag) >> (out "/list") }
      } else { inb = 0; if (keep) close(f); keep = 0 }
      next
    }
    inb && keep { line = $0; for (k = 0; k < ind && substr(line, 1, 1) == " "; k++) line = substr(line, 2)
                  print line >> f }
    END { print n }' "$f")
done

# The commands of a block as one script: a console block keeps its `$ `
# lines (joined over trailing backslashes), a sh block is itself.
commands_of() { # commands_of N LANG
  if [ "$2" = console ]; then
    awk '/^\$ /{ c = substr($0, 3); while (c ~ /\\$/ && (getline l) > 0) c = substr(c, 1, length(c) - 1) l; print c }' \
      "$tmp/blocks/$1.txt"
  else
    cat "$tmp/blocks/$1.txt"
  fi
}

# Output lines of a console block, numbers masked (`...` and blank lines out).
mask() { sed -E 's/[+-]?[0-9]+([.,][0-9]+)*/N/g; s/[[:space:]]+$//'; }

# The checks of a block that is not run: bash -n, each tavreli command is a
# command (its --help succeeds), and in a long block each `build/tavreli
# selfplay` line reads its INI (--dry-run; a `printf ... > X.ini &&` before it
# runs first).
check_static() { # check_static N LANG WHERE TAG
  local n=$1 lang=$2 where=$3 tag=$4 cmds sub seg
  cmds=$(commands_of "$n" "$lang")
  if ! bash -n <<<"$cmds" 2>"$tmp/err"; then fail "$where: not valid bash: $(head -c 300 "$tmp/err")"; return; fi
  while read -r sub; do
    [ -n "$sub" ] || continue
    # shellcheck disable=SC2086
    if "$tv" $sub --help >/dev/null 2>&1; then pass; else fail "$where: 'tavreli $sub' is not a command"; fi
  done < <(grep -oE '(^|[ ;&|(])(\.\./[a-z-]+/)?build[a-z-]*/tavreli +(bench +)?[a-z]+' <<<"$cmds" |
    sed -E 's|^[ ;&|(]||; s|^[^ ]+ +||' | sort -u) # the program as a command, not a cmd= value
  [ "$tag" = long ] || return 0 # an illustrative block may hold placeholders
  # a shortened run of the same command: 2 of its games (into a scratch
  # store), not --dry-run alone (which checks the INI, not the play)
  while IFS= read -r seg; do
    if (cd "$root" && bash -e -c "$seg --games 2 --force --quiet --out $tmp/short.h5") >"$tmp/out" 2>&1 &&
       grep -q ' 2 games stored this run' "$tmp/out"; then pass
    else fail "$where: '$seg' shortened to 2 games fails:"; head -c 2000 "$tmp/out"; fi
  done < <(sed -E 's/ +#[^#]*$//' <<<"$cmds" | tr -s ' ' | sed 's/ && /\n/g' | awk '
    /^printf .*> *[^ ]+\.ini$/ { pre = pre $0 " && "; next }
    /^build\/tavreli selfplay / { line = $0; gsub(/ --out [^ ]+/, "", line); gsub(/ --(resume|force|quiet)/, "", line)
                                   print pre line }')
}

run_block() { # run_block N LANG WHERE
  local n=$1 lang=$2 where=$3
  if [ "$lang" = python ]; then
    # a reader of the store: compiled always; run where its modules are
    # installed (python3-h5py, python3-pandas are not test dependencies)
    local py=python3
    [ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's, where python3-h5py goes (not a pyenv's)
    if ! $py -m py_compile "$tmp/blocks/$n.txt" 2>"$tmp/out"; then
      fail "$where: not valid Python: $(head -c 300 "$tmp/out")"; return
    fi
    local mods
    mods=$(grep -oE '^(import|from) [a-z0-9_]+' "$tmp/blocks/$n.txt" | awk '{print $2}' | sort -u)
    for m in $mods; do $py -c "import $m" 2>/dev/null || { echo "skip: $where needs Python's $m"; pass; return; }; done
    if (cd "$root" && $py "$tmp/blocks/$n.txt") >"$tmp/out" 2>&1; then pass
    else fail "$where: the Python block fails (its output follows)"; tail -c 3000 "$tmp/out"; fi
    return
  fi
  if [ "$lang" = sh ]; then
    if (cd "$root" && bash -e -o pipefail "$tmp/blocks/$n.txt") >"$tmp/out" 2>&1; then pass
    else fail "$where: the block fails (its output follows)"; tail -c 3000 "$tmp/out"; fi
    return
  fi
  # console: run each command, then look for each shown output line.
  commands_of "$n" console >"$tmp/cmds"
  : >"$tmp/out"
  local c ok=1
  while IFS= read -r c; do
    if ! (cd "$root" && bash -e -o pipefail -c "$c") >>"$tmp/out" 2>&1; then
      fail "$where: '$c' fails (its output follows)"; tail -c 3000 "$tmp/out"; ok=0
    fi
  done <"$tmp/cmds"
  [ "$ok" = 1 ] || return
  mask <"$tmp/out" >"$tmp/out.masked"
  local l
  while IFS= read -r l; do
    if ! grep -qxF -- "$l" "$tmp/out.masked"; then
      fail "$where: the documented output line '$l' (numbers masked) is not printed; the output:"
      head -c 3000 "$tmp/out"; return
    fi
  done < <(awk '{ if (cont) { cont = /\\$/; next } if (/^\$ /) { cont = /\\$/; next }
                  if ($0 != "..." && $0 != "") print }' "$tmp/blocks/$n.txt" | mask)
  pass
}

# A server's block: started with --port 0 (a free port, not the default a
# test machine may have taken), asked for its pages over bash's /dev/tcp,
# then Ctrl-C (SIGINT) must end it with 0.
http_status() { # http_status PORT PATH: the status code of GET PATH
  local line
  exec 7<>"/dev/tcp/127.0.0.1/$1" || { echo 000; return; }
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&7
  IFS= read -r line <&7
  exec 7<&-
  line=${line#HTTP/1.? }
  echo "${line%% *}"
}
run_server() { # run_server N WHERE
  local n=$1 where=$2 cmd pid port i code path
  cmd=$(commands_of "$n" sh | grep -v '^ *#' | grep -v '^ *$' | head -n 1)
  (cd "$root" && exec bash -c "exec $cmd --port 0") >"$tmp/serve.out" 2>&1 &
  pid=$!
  for i in $(seq 1 600); do grep -q 'http://' "$tmp/serve.out" && break; sleep 0.1; done
  port=$(grep -oE 'http://[^ ]*:[0-9]+/' "$tmp/serve.out" | head -n 1 | grep -oE '[0-9]+/$' | tr -d /)
  if [ -z "$port" ]; then
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    fail "$where: '$cmd' did not start serving:"; head -c 2000 "$tmp/serve.out"; return
  fi
  for path in / /api/runs /static/tavreli.js; do
    code=$(http_status "$port" "$path")
    if [ "$code" = 200 ]; then pass; else fail "$where: GET $path answered $code"; fi
  done
  kill -INT "$pid"
  wait "$pid"
  code=$?
  if [ "$code" = 0 ]; then pass; else fail "$where: Ctrl-C ended '$cmd' with $code:"; head -c 2000 "$tmp/serve.out"; fi
}

while read -r n file line lang tag; do
  where="$file:$line ($lang $tag)"
  case $tag in
    quick) run_block "$n" "$lang" "$where" ;;
    long)
      if [ "$long" = --long ]; then
        if grep -q '\.ci/test-all' "$tmp/blocks/$n.txt"; then
          # the quick start's first line only: CI runs test-all itself
          head -n 1 "$tmp/blocks/$n.txt" >"$tmp/blocks/$n.first"; mv "$tmp/blocks/$n.first" "$tmp/blocks/$n.txt"
        fi
        run_block "$n" "$lang" "$where"
      else
        check_static "$n" "$lang" "$where" long
      fi ;;
    illustrative) check_static "$n" "$lang" "$where" illustrative ;;
    serve) run_server "$n" "$where" ;;
    *) fail "$where: unknown tag '$tag' (quick blocks have none; long, illustrative or serve)" ;;
  esac
done <"$tmp/blocks/list"

# ---- inline commands: every `build/tavreli SUB ...` of the prose names a
# command, and each --flag in it is one that command's --help names ----
for f in "$src/README.md" "$src"/docs/*.md; do
  rel=${f#"$src"/}
  while IFS= read -r span; do
    words=${span#*tavreli }
    sub=${words%% *}
    [ "$sub" = bench ] && { rest=${words#bench }; sub="bench ${rest%% *}"; }
    # shellcheck disable=SC2086
    if ! help=$("$tv" $sub --help 2>/dev/null); then fail "$rel: inline '$span': 'tavreli $sub' is not a command"; continue; fi
    ok=1
    for flag in $(grep -oE '(^| )--[a-z][a-z0-9-]*' <<<"$words" | tr -d ' '); do
      grep -qE -- "$flag([^a-z0-9-]|$)" <<<"$help" || { fail "$rel: inline '$span': $flag is not a flag of 'tavreli $sub'"; ok=0; }
    done
    [ $ok = 1 ] && pass
  done < <(awk '/^ *```/ { f = !f; next } !f' "$f" | grep -oE '`(\.\./[a-z-]+/)?build[a-z-]*/tavreli [^`]+`' | tr -d '`' | sort -u)
done

# ---- links: every relative link of the pages names a file, and an anchor
# a heading of it (GitHub's form: lower case, punctuation dropped, blanks
# as hyphens) ----
slugs() { # slugs FILE.md: the anchors of its headings, one a line
  awk '/^ *```/ { f = !f; next } !f && /^#+ / {
         h = $0; sub(/^#+ +/, "", h); h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); print h }' "$1"
}
for f in "$src/README.md" "$src"/docs/*.md; do
  rel=${f#"$src"/}
  while IFS= read -r link; do
    target=${link%%#*} anchor=
    [ "$target" != "$link" ] && anchor=${link#*#}
    [ -n "$target" ] && path=$(dirname "$f")/$target || path=$f
    if [ ! -e "$path" ]; then fail "$rel: the link '$link' names no file"; continue; fi
    if [ -n "$anchor" ] && [ "${path%.md}" != "$path" ] && ! slugs "$path" | grep -qxF -- "$anchor"; then
      fail "$rel: the link '$link' names no heading of ${path#"$src"/}"; continue
    fi
    pass
  done < <(awk '/^ *```/ { f = !f; next } !f' "$f" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\((.*)\)$/\1/' |
           grep -vE '^(https?|mailto):' | sort -u)
done

# The first recipe's tournament, as a piece: both builds as separate programs
# on its clock, 2 games (the older build is this one in quick mode).
if [ "$long" != --long ]; then
  if (cd "$root" && build/tavreli selfplay configs/tournaments/new-vs-old.ini --games 2 --force --quiet) \
       >"$tmp/out" 2>&1 && grep -q '2 games stored this run' "$tmp/out"; then pass
  else fail "new-vs-old.ini: 2 games between the two builds (output follows)"; tail -c 3000 "$tmp/out"; fi
fi

# ---- the lines the program prints for pasting run as printed (issue 36: they
# named a bare 'tavreli', not on PATH), shortened ----
if [ "$long" != --long ]; then
  # tune's SPRT command, with 2 pairs for its 200
  (cd "$root" && build/tavreli tune --data results/quick.h5 --engine configs/engines/default.ini \
     --out results/paste-tuned.ini) >"$tmp/tune.out" 2>&1
  line=$(sed -n "s/.*run one: \(.*\) (docs\/tuning.md)\$/\1/p" "$tmp/tune.out" | head -1)
  if [ -n "$line" ] && (cd "$root" && bash -e -c "${line//pairs = 200/pairs = 2}") >"$tmp/out" 2>&1 &&
     grep -q "games stored this run" "$tmp/out"; then pass
  else fail "tune's SPRT command '$line' does not run as printed (output follows)"; tail -c 2000 "$tmp/out"; fi
  # selfplay's resume line after a stop, with --games 2
  (cd "$root" && exec build/tavreli selfplay configs/tournaments/quick.ini --out results/paste.h5) >"$tmp/stop.out" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do grep -q '^games ' "$tmp/stop.out" && break; sleep 0.1; done
  kill -INT "$pid" 2>/dev/null
  wait "$pid"
  line=$(sed -n "s/^interrupted: run '\(.*\)' to .*/\1/p" "$tmp/stop.out")
  if [ -n "$line" ] && (cd "$root" && bash -e -c "$line --games 2 --quiet") >"$tmp/out" 2>&1 &&
     grep -q "games stored this run" "$tmp/out"; then pass
  else fail "selfplay's resume line '$line' does not run as printed (output follows)"; cat "$tmp/stop.out" "$tmp/out" | tail -c 2000; fi
fi

echo "doc-test: $passes passed, $fails failed ($(wc -l <"$tmp/blocks/list") command blocks)"
[ "$fails" = 0 ]
