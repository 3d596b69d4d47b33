#!/usr/bin/env bash
# check_layers.sh: the include graph between the source folders, and a check
# that it only points down the layers
#   core <- stats <- selfplay <- tuner <- report <- serve <- cli.
# Prints one line per pair of folders with the number of includes, then any
# include of a header from a higher folder (and exits 1 if there is one).
# usage: tests/check_layers.sh [PROJECT_DIR]
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
layers=(core stats selfplay tuner report serve cli)
level() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
# where each header lives
declare -A home
for d in "${layers[@]}"; do
  for h in "$d"/*.h "$d"/*.def; do [ -e "$h" ] && home[$(basename "$h")]=$d; done
done
declare -A count
bad=0
for d in "${layers[@]}"; do
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] || continue
    while IFS= read -r inc; do
      h=${inc#*\"}; h=${h%\"*}
      to=${home[$(basename "$h")]:-}
      [ -n "$to" ] || continue # a system or generated header
      count["$d -> $to"]=$(( ${count["$d -> $to"]:-0} + 1 ))
      if [ "$(level "$to")" -gt "$(level "$d")" ]; then
        echo "UPWARD: $f includes $h (from $to/, above $d/)"
        bad=1
      fi
    done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
  done
done
for k in "${!count[@]}"; do echo "$k: ${count[$k]} includes"; done | sort
if [ "$bad" = 0 ]; then echo "layers ok: ${layers[*]} (each includes only its own folder and those before it)"; fi
exit "$bad"
