#!/usr/bin/env bash
# What a dynamic overlay costs at scale (issue 15: the 4,096-agent communication benchmark with
# `epidemic` keeps at least 80 % of the static ring's simulated messages per second). Runs
# scenarios/scale/ring-4096-detsgrad-always.json as D-PSGD on its static ring and on an
# epidemic graph with s = 2 (the same 2 messages per agent and round) over the default implicit
# complete underlay, alternating, so that both see the same moments of a shared host; prints each
# pair's event-loop seconds (summary.json time.events_s), build seconds and peak RSS, the ratio
# of messages per second (epidemic / ring) and the median ratio.
# Usage: tools/bench/dynamic_overlay_speed.sh [PAIRS] [dlsim run options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-5}
shift $(( $# >= 1 ? 1 : 0 ))
dlsim=${BUILD:-build}/dlsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$out" <<'PY'
import json, sys
s = json.load(open("scenarios/scale/ring-4096-detsgrad-always.json"))
s["algorithm"] = {"kind": "dpsgd"}
del s["trigger"]
json.dump(s, open(f"{sys.argv[1]}/ring.json", "w"))
s["topology"] = {"dynamic": {"kind": "epidemic", "s": 2}}
json.dump(s, open(f"{sys.argv[1]}/epidemic.json", "w"))
PY
for p in $(seq "$pairs"); do
  for kind in ring epidemic; do
    "$dlsim" run "$out/$kind.json" -o "$out/$kind-$p" --quiet "$@" >/dev/null
  done
done
/usr/bin/python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
ratios = []
for p in range(1, pairs + 1):
    runs = {k: json.load(open(f"{out}/{k}-{p}/summary.json")) for k in ("ring", "epidemic")}
    rate = {k: s["comm"]["messages"] / s["time"]["events_s"] for k, s in runs.items()}
    ratios.append(rate["epidemic"] / rate["ring"])
    print(f"pair {p}: " + "; ".join(
        f"{k} {s['time']['events_s']:.3f} s event loop, {s['comm']['messages']} messages, "
        f"build {s['time']['build_s']:.3f} s, peak {s['time']['peak_rss_mb']:.0f} MB"
        for k, s in runs.items()) + f"; msgs/s epidemic/ring {ratios[-1]:.2f}")
print(f"median msgs/s ratio (epidemic / ring): {statistics.median(ratios):.2f}")
PY
