# Sourced by test_train.sh and test_train_confirm.sh: check (from
# tests/selfplay_common.sh), the scratch folder $tmp, and the small training
# run both play.
source "$(dirname "${BASH_SOURCE[0]}")/selfplay_common.sh" # check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# write_train_ini GENERATIONS SEED CONFIRM_PAIRS writes $tmp/flat.ini, a
# start that values every top alike, and $tmp/t.ini, a run that decides
# early: a tune on 40 games at depth 1 finds better weights, and the SPRT's
# bounds lie below 0, so a tuned version no worse than the best is accepted
# within a few pairs and accepted generations come in seconds.
write_train_ini() {
  printf '[engine]\nname = flat\n[weights]\ntop_value = 300, 300, 300, 300, 300, 300\n' >"$tmp/flat.ini"
  cat >"$tmp/t.ini" <<EOI
[train]
name = t
engine = $tmp/flat.ini
generations = $1
games = 40
depth = 1
sprt_pairs = 20
confirm_pairs = $3
elo0 = -200
elo1 = -50
alpha = 0.2
beta = 0.2
max_plies = 120
seed = $2
EOI
}
