#!/usr/bin/env bash
# What a robust aggregation rule costs a whole D-PSGD run (docs/algorithms.md, "Robust
# aggregation"): one dlsim binary runs scenarios/default.json as D-PSGD (the 10-agent ring) and
# the same on a random 8-regular graph of 32 agents (ALGORITHM=detsgrad: as the default
# scenario's DETSGRAD, b = 0.1 on the 8-regular graph), with `/algorithm/aggregation` set to each
# rule in turn, the mean first; REPS rounds of every rule in a row, so that all see the same
# moments of a shared host. Prints per graph and rule the median wall time (summary.json's
# wall_s) and update time (updates_s, where the mixing runs), and the median ratio to the mean's
# wall time of the same round.
# Usage: tools/bench/aggregation_cost.sh BINARY [ITERATIONS] [REPS] [dlsim run options...]
# e.g.   tools/bench/aggregation_cost.sh build/dlsim 300 3 --threads 1
# RULES="median trimmed_mean" runs only those rules (and the mean, which the ratios need).
# The data come from this checkout's data/ unless DLSIM_DATA says otherwise.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 BINARY [ITERATIONS] [REPS] [options...]" >&2; exit 2; }
bin=$(realpath "$1")
iterations=${2:-300}
reps=${3:-3}
shift $(( $# >= 3 ? 3 : $# ))
cd "$(dirname "$0")/../.."
export DLSIM_DATA=${DLSIM_DATA:-$PWD/data}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# name|rule on the ring (degree 2: 3 models)|rule on the 8-regular graph (9 models)
rules=(
  'mean|{"rule":"mean"}|{"rule":"mean"}'
  'clipped_gossip|{"rule":"clipped_gossip","tau":1}|{"rule":"clipped_gossip","tau":1}'
  'clipped_adaptive|{"rule":"clipped_gossip","tau":"adaptive"}|{"rule":"clipped_gossip","tau":"adaptive"}'
  'trimmed_mean|{"rule":"trimmed_mean","trim":1}|{"rule":"trimmed_mean","trim":2}'
  'median|{"rule":"median"}|{"rule":"median"}'
  'krum|{"rule":"krum","f":0}|{"rule":"krum","f":2}'
  'multi_krum|{"rule":"multi_krum","f":0,"m":2}|{"rule":"multi_krum","f":2,"m":4}'
  'geometric_median|{"rule":"geometric_median"}|{"rule":"geometric_median"}'
  'balance|{"rule":"balance"}|{"rule":"balance"}'
)
if [[ -n ${RULES:-} ]]; then
  wanted=" mean $RULES "
  kept=()
  for entry in "${rules[@]}"; do [[ $wanted == *" ${entry%%|*} "* ]] && kept+=("$entry"); done
  rules=("${kept[@]}")
fi
common=(--quiet --set /run/iterations="$iterations" --set /run/eval_every=0
        --set /run/eval_samples=500)
regular=(--set /agents=32 --set '/topology={"kind":"random_regular","degree":8}')
algorithm=${ALGORITHM:-dpsgd}
case $algorithm in
  dpsgd) common+=(--set '/algorithm={"kind":"dpsgd"}' --set /trigger=null) ;;
  detsgrad) regular+=(--set /algorithm/b=0.1) ;;  # beta_0 (d + 1) < 1 with a robust rule
  *) echo "ALGORITHM: dpsgd or detsgrad, not $algorithm" >&2; exit 2 ;;
esac
for r in $(seq "$reps"); do
  for entry in "${rules[@]}"; do
    IFS='|' read -r name ring reg <<<"$entry"
    "$bin" run scenarios/default.json -o "$out/ring-$name-$r" "${common[@]}" \
      --set /algorithm/aggregation="$ring" "$@" >/dev/null
    "$bin" run scenarios/default.json -o "$out/regular-$name-$r" "${common[@]}" "${regular[@]}" \
      --set /algorithm/aggregation="$reg" "$@" >/dev/null
  done
done
names=$(printf '%s\n' "${rules[@]}" | cut -d'|' -f1 | tr '\n' ' ')
/usr/bin/python3 - "$out" "$reps" $names <<'PY'
import json, statistics, sys
out, reps, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(graph, name, r):
    return json.load(open(f"{out}/{graph}-{name}-{r}/summary.json"))["time"]
for graph, label in (("ring", "default.json: ring of 10"),
                     ("regular", "random 8-regular graph of 32 agents")):
    print(f"{label}")
    print(f"| rule | wall s | updates s | wall / mean |")
    print(f"|---|---|---|---|")
    for name in names:
        t = [load(graph, name, r) for r in range(1, reps + 1)]
        m = [load(graph, "mean", r) for r in range(1, reps + 1)]
        ratio = statistics.median(a["wall_s"] / b["wall_s"] for a, b in zip(t, m))
        print(f"| {name} | {statistics.median(x['wall_s'] for x in t):.2f} | "
              f"{statistics.median(x['updates_s'] for x in t):.2f} | {ratio:.2f} |")
    print()
PY
