#!/usr/bin/env bash
# How much of the isolated training step's speed a run keeps, and where the rest goes. Three
# runs of a scenario on one thread, in alternation for ROUNDS rounds (the host's load moves from
# minute to minute; within a round all three see about the same):
#   isolated  one agent, no communication: its model stays in the caches from step to step (it
#             runs as many agent-steps as the others)
#   alone     every agent, no communication: the models take turns in the caches
#   scenario  the scenario as written
# Per agent-step, medians over the rounds: training (gradient and, in sync mode, the fused
# step), updates (optimizer, consensus), events (sends, network), their sum, and the isolated
# sum over this sum (the share of the isolated step's speed the run keeps).
# Usage: tools/bench/run_efficiency.sh [ROUNDS] [SCENARIO] [--set ...]
#   e.g. tools/bench/run_efficiency.sh 5 scenarios/default.json --set /run/iterations=3000
# Options after SCENARIO go to all three runs; evaluation is off (eval_every 0) in all of them.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
scenario=${2:-scenarios/default.json}
shift $(( $# >= 2 ? 2 : $# ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
alone=(--set '/algorithm={"kind":"none"}' --set /trigger=null)
isolated=("${alone[@]}" --set /agents=1 --set /topology=null)
# The isolated run makes as many agent-steps as the others, so that its warm-up weighs as much:
# it runs last in its round, for the agents x iterations that dlsim itself resolved (the
# scenario and every option) for the run without communication.
for r in $(seq "$rounds"); do
  for variant in alone scenario isolated; do
    case $variant in
      alone) extra=("${alone[@]}") ;;
      scenario) extra=() ;;
      isolated)
        steps=$(/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print(s["agents"] * s["iterations"])' "$out/alone-$r/summary.json")
        extra=("${isolated[@]}" --set /run/iterations="$steps") ;;
    esac
    "${BUILD:-build}"/dlsim run "$scenario" -o "$out/$variant-$r" --quiet --threads 1 \
      "$@" --set /run/eval_every=0 "${extra[@]}" >/dev/null 2>"$out/$variant-$r.err" ||
      { echo "run_efficiency.sh: the $variant run failed:" >&2; cat "$out/$variant-$r.err" >&2; exit 1; }
  done
done
/usr/bin/python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
parts = ("training_s", "updates_s", "events_s")
rows = {}
for variant in ("isolated", "alone", "scenario"):
    per_round = []
    for r in range(1, rounds + 1):
        s = json.load(open(f"{out}/{variant}-{r}/summary.json"))
        steps = s["agents"] * s["iterations"]
        us = [s["time"][p] / steps * 1e6 for p in parts]
        per_round.append(us + [sum(us)])
    rows[variant] = per_round
print(f"microseconds per agent-step, one thread, medians of {rounds} rounds")
print(f"{'run':<10} {'training':>9} {'updates':>9} {'events':>9} {'total':>9} {'kept':>6}")
for variant, per_round in rows.items():
    med = [statistics.median(r[i] for r in per_round) for i in range(4)]
    # Kept: the isolated total over this total, round by round (same moment of the host).
    kept = statistics.median(i[3] / v[3] for i, v in zip(rows["isolated"], per_round))
    print(f"{variant:<10} {med[0]:9.1f} {med[1]:9.1f} {med[2]:9.1f} {med[3]:9.1f} {kept:6.2f}")
PY
