#!/usr/bin/env bash
# Whole-run speed of a scenario: agent-steps per wall second with 1 and 2 threads (median of
# REPEATS runs each), where the wall time went (from summary.json), simulated messages per second
# and peak resident memory. The 1- and 2-thread runs alternate, and the speed-up is the median of
# each pair's ratio: the load of a shared host moves by tens of percent from minute to minute,
# and a ratio of two runs made minutes apart would measure the host.
# Usage: tools/bench/run_speed.sh [SCENARIO] [REPEATS] [--set ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
scenario=${1:-scenarios/default.json}
repeats=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
out=$(mktemp -d)
for r in $(seq "$repeats"); do
  for threads in 1 2; do
    /usr/bin/time -f "%M" -o "$out/rss-$threads-$r" \
      "${BUILD:-build}"/dlsim run "$scenario" -o "$out/run-$threads-$r" --quiet --threads "$threads" "$@" >/dev/null
  done
done
/usr/bin/python3 - "$out" "$repeats" <<'PY'
import json, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
for threads in (1, 2):
    runs = []
    for r in range(1, repeats + 1):
        s = json.load(open(f"{out}/run-{threads}-{r}/summary.json"))
        rss = int(open(f"{out}/rss-{threads}-{r}").read().split()[-1])
        runs.append((s, rss))
    wall = statistics.median(s["time"]["wall_s"] for s, _ in runs)
    s, rss = sorted(runs, key=lambda x: x[0]["time"]["wall_s"])[len(runs) // 2]
    steps = s["agents"] * s["iterations"]
    t = s["time"]
    print(f"threads {threads}: wall {wall:.2f} s (median of {repeats}), {steps / wall:,.0f} agent-steps/s, "
          f"{s['comm']['messages'] / wall:,.0f} messages/s, peak RSS {rss / 1024:.0f} MiB, "
          f"fingerprint {s['fingerprint']}")
    print(f"  where: build {t['build_s']:.2f} s, training {t['training_s']:.2f} s, "
          f"updates {t['updates_s']:.2f} s, events {t['events_s']:.2f} s, eval {t['eval_s']:.2f} s "
          f"(eval {100 * t['eval_s'] / t['wall_s']:.1f} %, events {100 * t['events_s'] / t['wall_s']:.1f} %)")
ratios = []
for r in range(1, repeats + 1):
    walls = [json.load(open(f"{out}/run-{threads}-{r}/summary.json"))["time"]["wall_s"]
             for threads in (1, 2)]
    ratios.append(walls[0] / walls[1])
print(f"speed-up 2 threads / 1 thread: {statistics.median(ratios):.2f}x (median of {repeats} "
      f"alternating pairs: {', '.join(f'{x:.2f}' for x in ratios)})")
PY
rm -rf "$out"
