#!/usr/bin/env bash
# tavreli compare (cli/cli_compare.c, selfplay/build_cache.c,
# docs/compare.md) on a small throwaway git repository whose `tavreli`
# target is a stand-in: `--version` names its commit as tavreli does,
# `bench search` prints its BENCH constant, `uci` runs the fake engine
# under a tavreli id name with that commit.  Checked: two commits built
# once each (the cache reused, its record holding the commit), both
# commits and bench signatures in the store and the report, the headline
# 'new-NEW vs old-OLD'; a dirty working tree built apart as COMMIT-dirty,
# and a resume after the tree changed again refused; a revision that is not
# a commit; a failed build quoting the compiler; a cached build whose bench
# signature is not its record's; a commit whose 'Bench: N' line the build
# does not give; OLD and NEW the same build.
# A build already made (--built; tavreli compare's default is itself) is
# played for the revision its --version says it is a build of (commit,
# Release, the tree of its files: cmake/tavreli_tree.cmake, copied into the
# stand-in) instead of building it, as a copy in the cache; after one more
# edit, or as a Debug build, it is built anyway, saying why.
# usage: test_compare.sh TAVRELI FAKE_ENGINE TAVRELI_TREE_CMAKE
set -u
tv=$(readlink -f "$1") fake=$(readlink -f "$2") tree_cmake=$(readlink -f "$3")
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
passes=0 fails=0
check() { # WHAT COMMAND...: passes when the command succeeds
  local what=$1
  shift
  if "$@"; then passes=$((passes + 1)); else fails=$((fails + 1)); echo "FAIL: $what"; fi
}
repo=$tmp/repo
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=test -c user.email=test@example.org "$@"; }
g init -q
cat >"$repo/CMakeLists.txt" <<'EOI'
cmake_minimum_required(VERSION 3.16)
project(fake_tavreli C)
# the commit, as the real project's cmake/tavreli_version.cmake gives it
execute_process(COMMAND git -C ${CMAKE_SOURCE_DIR} rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND git -C ${CMAKE_SOURCE_DIR} diff --quiet HEAD RESULT_VARIABLE dirty)
if(dirty)
  set(commit "${commit}-dirty")
endif()
add_executable(tavreli main.c)
# the tree and kind, as the real project's second --version line gives them
include(${CMAKE_SOURCE_DIR}/cmake/tavreli_tree.cmake)
tavreli_tree(${CMAKE_SOURCE_DIR} tree)
target_compile_definitions(tavreli PRIVATE COMMIT="${commit}" TREE="${tree}" KIND="${CMAKE_BUILD_TYPE}")
add_executable(unrelated unrelated.c) # not built: compare builds only the tavreli target
EOI
echo 'this is not C' >"$repo/unrelated.c"
mkdir -p "$repo/cmake" && cp "$tree_cmake" "$repo/cmake/"
main() { # BENCH [EXTRA LINE]
  cat >"$repo/main.c" <<EOI
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#define BENCH $1
${2:-}
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("tavreli 0.0.1 (commit %s)\nbuilt as %s from tree %s\n", COMMIT, KIND, TREE);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "bench") && !strcmp(argv[2], "search")) {
        printf("nodes %d\n", BENCH);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "uci")) {
        execl("$fake", "$fake", "--name", "tavreli 0.0.1 (" COMMIT ") default", (char *)0);
        return 127;
    }
    return 2;
}
EOI
}
main 1000
g add -A && g commit -qm "A: bench 1000"
A=$(g rev-parse HEAD) a=$(g rev-parse --short=12 HEAD)
main 2000
g commit -qam "B: bench 2000"
B=$(g rev-parse HEAD) b=$(g rev-parse --short=12 HEAD)

cmp() { # OUT-NAME ARGS...: tavreli compare in the repository, a short run
  local out=$1
  shift
  (cd "$repo" && "$tv" compare "$@" --cache "$tmp/cache" --out "$tmp/$out" --tc 2+0.05 --pairs 2 --threads 1 \
    --jobs 2) >"$tmp/out" 2>"$tmp/err"
}

# ---- two commits -----------------------------------------------------------------
cmp r1 "$A" "$B"
rc=$?
check "compare A B ends with 0 ($rc: $(tail -3 "$tmp/err"))" [ $rc = 0 ]
check "... both built ('building $a', 'building $b')" \
  bash -c "grep -q '^building $a ' '$tmp/err' && grep -q '^building $b ' '$tmp/err'"
check "... the cache holds each commit's record" grep -qx "commit = $A" "$tmp/cache/$a/build.txt"
check "... 4 games stored" grep -q "4 games stored this run" "$tmp/out"
check "... its last line answers: new-$b vs old-$a" grep -q "^new-$b vs old-$a: .* Elo (nElo .*), LOS .*; SPRT \[0, 10\]" \
  <(tail -1 "$tmp/out")
check "... the report's first line the same" grep -q "^\*\*new-$b vs old-$a: " <(sed -n 3p "$tmp/r1/report/report.md")
check "... the report names both commits and bench signatures" \
  bash -c "grep -q '| new-$b | separate program | .*commit $b, .*bench 2000 |' '$tmp/r1/report/report.md' &&
           grep -q '| old-$a | separate program | .*commit $a, .*bench 1000 |' '$tmp/r1/report/report.md'"
check "... an ETA before the first game, from the SPRT's expected length and a game's longest" \
  grep -q "^new-$b vs old-$a at tc 2+0.05, SPRT \[0, 10\] nElo: about 2 pairs .*at most 2; at most 10 s a game (no earlier run measured it here); 1 thread: ETA 40 s (at most 40 s)" "$tmp/err"
check "... only the tavreli target was built" [ ! -e "$tmp/cache/$a/build/unrelated" ]

# ---- built once: the cache -------------------------------------------------------------
cmp r2 "$A" "$B"
rc=$?
check "again: ends with 0 ($rc)" [ $rc = 0 ]
check "... nothing built" bash -c "! grep -q '^building' '$tmp/err'"
check "... both from the cache" [ "$(grep -c '(built before), bench' "$tmp/err")" = 2 ]
check "... its ETA from the game length the first run measured" grep -q "s a game per thread, measured here over 4 games of earlier runs" "$tmp/err"

# ---- the working tree, with changes ------------------------------------------------------
main 2000 "const char *volatile edited = \"an edit not yet committed\";"
cmp r3 "$A"
rc=$?
check "compare A (NEW: a dirty working tree) ends with 0 ($rc: $(tail -2 "$tmp/err"))" [ $rc = 0 ]
check "... built apart as $b-dirty" grep -q "^building $b-dirty .* in $tmp/cache/worktree-" "$tmp/err"
check "... named so: new-$b-dirty vs old-$a" grep -q "^new-$b-dirty vs old-$a: " <(tail -1 "$tmp/out")
check "... and its commit in the report" grep -q "| new-$b-dirty | separate program | .*commit $b-dirty" \
  "$tmp/r3/report/report.md"
main 2000 "const char *volatile edited = \"another edit\";"
cmp r3 "$A" --resume
rc=$?
check "--resume after the working tree changed again is refused ($rc)" [ $rc != 0 ]
check "... saying the program is another one" grep -q "is not the version the store holds: another executable" "$tmp/err"
g checkout -q main.c

# ---- a build already made ------------------------------------------------------------
prebuild() { # DIR TYPE: builds the working tree as it is now into DIR
  cmake -S "$repo" -B "$1" -DCMAKE_BUILD_TYPE="$2" >/dev/null && cmake --build "$1" --target tavreli >/dev/null
}
prebuild "$tmp/wb" Release
check "the stand-in's --version: 'built as Release from tree $(g rev-parse HEAD^{tree})'" \
  grep -qx "built as Release from tree $(g rev-parse 'HEAD^{tree}')" <("$tmp/wb/tavreli" --version)
cmp r8 "$A" --built "$tmp/wb/tavreli"
rc=$?
check "compare A with NEW (clean, $b) already built ends with 0 ($rc: $(tail -2 "$tmp/err"))" [ $rc = 0 ]
check "... NEW not built: a copy of that build plays" \
  grep -q "^new $b: $tmp/cache/tree-.*/tavreli (a copy of $tmp/wb/tavreli, already built from these files), bench 2000" \
  "$tmp/err"
check "... nothing built" bash -c "! grep -q '^building' '$tmp/err'"
main 2000 "const char *volatile edited = \"a third edit\";"
prebuild "$tmp/wb" Release
cmp r9 "$A" --built "$tmp/wb/tavreli"
rc=$?
check "the same for a dirty working tree ($rc)" [ $rc = 0 ]
check "... NEW not built: a copy, $b-dirty" \
  grep -q "^new $b-dirty: $tmp/cache/tree-.*/tavreli (a copy of $tmp/wb/tavreli, already built from these files)" \
  "$tmp/err"
check "... the copy named by the tree" [ -x "$tmp/cache/tree-$(git -C "$repo" stash create | xargs -I{} git -C "$repo" rev-parse '{}^{tree}' | cut -c1-12)/tavreli" ]
main 2000 "const char *volatile edited = \"a fourth edit, not built\";"
cmp r10 "$A" --built "$tmp/wb/tavreli"
rc=$?
check "after one more edit not built ($rc)" [ $rc = 0 ]
check "... built, saying why" \
  grep -q "$tmp/wb/tavreli is a build of $b-dirty, but of another state of its files (tree .*, now .*): building it" \
  "$tmp/err"
check "... building $b-dirty" grep -q "^building $b-dirty " "$tmp/err"
prebuild "$tmp/wd" Debug
cmp r11 "$A" --built "$tmp/wd/tavreli"
check "a Debug build of the same files ($?)" [ $? = 0 ]
check "... built anyway, saying why" \
  grep -q "$tmp/wd/tavreli is a build of $b-dirty, but built as Debug (the builds here are Release): building it" "$tmp/err"
cmp r12 "$A" --built "$tmp/no-such-tavreli"
check "--built naming no executable is refused ($?)" [ $? = 2 ]
check "... saying so" grep -q "compare: --built $tmp/no-such-tavreli: No such file or directory" "$tmp/err"
g checkout -q main.c

# ---- what is refused ----------------------------------------------------------------
cmp r4 no-such-rev
rc=$?
check "a revision that is not a commit is refused ($rc)" [ $rc = 1 ]
check "... saying so" grep -q "'no-such-rev' is not a commit of the repository $repo" "$tmp/err"
cmp r4 "$B" "$B"
check "OLD and NEW the same build is refused ($?)" [ $? = 2 ]
check "... saying so" grep -q "are the same build, $b: nothing to compare" "$tmp/err"

main 1500 "#error the compiler stops here"
g commit -qam "C: does not compile"
C=$(g rev-parse HEAD) c=$(g rev-parse --short=12 HEAD)
cmp r5 "$A" "$C"
rc=$?
check "a build that fails is refused ($rc)" [ $rc = 1 ]
check "... quoting the compiler" grep -q "the compiler stops here" "$tmp/err"
check "... naming the step and the log" grep -q "the build (cmake --build --target tavreli) failed (status [0-9]*; the whole log: $tmp/cache/$c/build.log)" "$tmp/err"
check "... and nothing was played" [ ! -e "$tmp/r5/compare.h5" ]

sed -i 's/^bench = 1000$/bench = 999/' "$tmp/cache/$a/build.txt"
cmp r6 "$A" "$B"
rc=$?
check "a cached build whose bench signature is not its record's is refused ($rc)" [ $rc = 1 ]
check "... saying so" grep -q "the cached build of $a gives bench signature 1000, and 999 when it was built" "$tmp/err"
sed -i 's/^bench = 999$/bench = 1000/' "$tmp/cache/$a/build.txt"

main 3000
g commit -qam "D: claims another signature" -m "Bench: 4000"
D=$(g rev-parse HEAD) d=$(g rev-parse --short=12 HEAD)
cmp r7 "$A" "$D"
rc=$?
check "a build that does not give its commit's 'Bench: N' is refused ($rc)" [ $rc = 1 ]
check "... saying so" grep -q "the build of $d gives bench signature 3000, and the commit's message says 'Bench: 4000'" "$tmp/err"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ] || { echo "--- last run"; cat "$tmp/out" "$tmp/err"; }
[ "$fails" -eq 0 ]
