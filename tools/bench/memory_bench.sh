#!/usr/bin/env bash
# Peak resident memory of large runs (issue 4, "Memory"), a few iterations each, read from each
# run's summary.json (time.peak_rss_mb, getrusage). Per run: MiB, and MiB over the memory of one
# parameter vector per agent ("copies": what each agent holds, in parameter vectors, plus the
# fixed cost of data and code), and the estimate made before the run (time.memory_estimate_mb,
# sim/scenario/memory_estimate.hpp) over the peak (issue 13: within 25 %). Three groups:
#   targets:    the default scenario; 1,000 MLP 784-256-10 agents on a torus (< 6 GiB);
#               10,000 quadratic agents of dimension 1,000 on a torus (< 1 GiB);
#   agents:     quadratic dimension 10,000 on a torus, 250 to 1,000 agents: grows with agents;
#   edges:      1,000 quadratic agents of dimension 10,000 with degree 2, 4 and 16: flat, since a
#               broadcast is one snapshot per sender shared by every receiver.
# Usage: BUILD=build tools/bench/memory_bench.sh [ITERATIONS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
dlsim=${BUILD:-build}/dlsim
iterations=${1:-3}
threads=${2:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # label, scenario, --set overrides...
  local label=$1 scenario=$2
  shift 2
  "$dlsim" run "$scenario" -o "$out/run" --quiet --threads "$threads" \
    --set /run/iterations="$iterations" --set /run/eval_every="$iterations" "$@" >/dev/null
  /usr/bin/python3 - "$out/run/summary.json" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
mib = s["time"]["peak_rss_mb"]
copy_mib = s["agents"] * s["parameters"] * 4 / 2**20
estimate = s["time"]["memory_estimate_mb"]
print(f"{sys.argv[2]:<44} {s['agents']:>6} agents x {s['parameters']:>7} params: "
      f"peak RSS {mib:8.0f} MiB = {mib / copy_mib:5.2f} copies of all parameters; "
      f"estimate {estimate:8.0f} MiB = {estimate / mib:4.2f} x peak "
      f"({s['comm']['messages']} messages, {s['time']['wall_s']:.1f} s)")
PY
  rm -rf "$out/run"
}

mlp=(--set /topology='{"kind":"torus","rows":25,"cols":40}' --set /agents=1000
     --set /model/hidden='[256]' --set /data/partition='{"kind":"iid"}'
     --set /run/eval_samples=200)
quad=scenarios/scale/torus-10000-detsgrad-async.json
torus() { echo "{\"kind\":\"torus\",\"rows\":$1,\"cols\":$2}"; }

echo "== targets"
run "default scenario" scenarios/default.json
run "MLP 784-256-10, torus, DETSGRAD sync" scenarios/default.json "${mlp[@]}"
run "quadratic 1000, torus, DETSGRAD async" "$quad"
echo "== agents (quadratic dim 10000, torus, v0 = 0: every agent broadcasts every step)"
for rc in "10 25" "20 25" "25 40"; do
  set -- $rc
  run "torus $1 x $2" "$quad" --set /agents=$(($1 * $2)) --set /topology="$(torus "$1" "$2")" \
    --set /model/dim=10000 --set /trigger/v0=0
done
echo "== edges (1000 agents, quadratic dim 10000, v0 = 0)"
run "ring (degree 2)" "$quad" --set /agents=1000 --set /topology='{"kind":"ring"}' \
  --set /model/dim=10000 --set /trigger/v0=0
run "torus (degree 4)" "$quad" --set /agents=1000 --set /topology="$(torus 25 40)" \
  --set /model/dim=10000 --set /trigger/v0=0
run "random regular (degree 16)" "$quad" --set /agents=1000 \
  --set /topology='{"kind":"random_regular","degree":16}' --set /model/dim=10000 \
  --set /trigger/v0=0 --set /algorithm/b=0.05  # beta_0 x degree < 1: stable (memory is the same)
