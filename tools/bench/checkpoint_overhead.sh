#!/usr/bin/env bash
# What checkpoints cost (issue 13: every 1,000 iterations should add under 3 % to the default
# scenario's wall time): runs a scenario without and with --checkpoint-every in alternation, so
# that both see the same moments of a shared host, and prints each pair's wall times, their
# ratio, the seconds spent writing checkpoints and their size (summary.json's "checkpoints"), and
# the median ratio.
# Usage: tools/bench/checkpoint_overhead.sh [PAIRS] [EVERY] [SCENARIO] [dlsim run options...]
# e.g.   tools/bench/checkpoint_overhead.sh 3 1000 scenarios/default.json --threads 2
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-3}
every=${2:-1000}
scenario=${3:-scenarios/default.json}
shift $(( $# >= 3 ? 3 : $# ))
dlsim=${BUILD:-build}/dlsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in $(seq "$pairs"); do
  "$dlsim" run "$scenario" -o "$out/plain-$p" --quiet "$@" >/dev/null
  "$dlsim" run "$scenario" -o "$out/ckpt-$p" --quiet --checkpoint-every "$every" "$@" >/dev/null
done
/usr/bin/python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
ratios = []
for p in range(1, pairs + 1):
    plain = json.load(open(f"{out}/plain-{p}/summary.json"))
    ckpt = json.load(open(f"{out}/ckpt-{p}/summary.json"))
    assert plain["fingerprint"] == ckpt["fingerprint"], "checkpoints changed the results"
    r = ckpt["time"]["wall_s"] / plain["time"]["wall_s"]
    ratios.append(r)
    c = ckpt["checkpoints"]
    print(f"pair {p}: {plain['time']['wall_s']:.2f} s without, {ckpt['time']['wall_s']:.2f} s with "
          f"= {r:.4f}; {c['written']} checkpoints of {c['last_mb']:.1f} MiB in {c['seconds']:.2f} s")
print(f"median ratio (with / without): {statistics.median(ratios):.4f}")
PY
