#!/usr/bin/env bash
# Whole-run speed of two dlsim binaries on a shared, noisy machine: runs them in alternation
# (A, B, A, B, ...) so that both see the same moments of the host, and prints each pair's
# agent-steps per second, their ratio B/A, and the median ratio. Absolute rates on these machines
# move by tens of percent from minute to minute; the ratio within a pair moves much less.
# Usage: tools/bench/compare_builds.sh A_BINARY B_BINARY [PAIRS] [SCENARIO] [dlsim run options...]
# e.g.   tools/bench/compare_builds.sh ../base/build/dlsim build/dlsim 5 scenarios/default.json \
#          --threads 1 --set /run/iterations=2000
# Both binaries read the data from this checkout's data/ unless DLSIM_DATA says otherwise; the
# environment (GLIBC_TUNABLES included) is passed on unchanged to both.
# CONCURRENT=1 runs A and B at the same time instead, each pinned to its own core (taskset),
# swapping the cores from pair to pair: on a host whose load moves within seconds, both then see
# the same moments, and the core each gets evens out over the pairs. Pass --threads 1.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 A_BINARY B_BINARY [PAIRS] [SCENARIO] [options...]" >&2; exit 2; }
a=$(realpath "$1")
b=$(realpath "$2")
pairs=${3:-3}
cd "$(dirname "$0")/../.."
scenario=${4:-scenarios/default.json}
shift $(( $# >= 4 ? 4 : $# ))
export DLSIM_DATA=${DLSIM_DATA:-$PWD/data}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in $(seq "$pairs"); do
  if [[ ${CONCURRENT:-0} == 1 ]]; then
    taskset -c $(( p % 2 )) "$a" run "$scenario" -o "$out/a-$p" --quiet "$@" >/dev/null &
    pid_a=$!
    taskset -c $(( (p + 1) % 2 )) "$b" run "$scenario" -o "$out/b-$p" --quiet "$@" >/dev/null &
    pid_b=$!
    wait "$pid_a"  # each fails the script (set -e) if its run failed
    wait "$pid_b"
  else
    for which in a b; do
      "${!which}" run "$scenario" -o "$out/$which-$p" --quiet "$@" >/dev/null
    done
  fi
done
/usr/bin/python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def rate(which, p):
    s = json.load(open(f"{out}/{which}-{p}/summary.json"))
    t = s["time"]
    return s["agents"] * s["iterations"] / t["wall_s"], s["fingerprint"]
ratios = []
for p in range(1, pairs + 1):
    (ra, fa), (rb, fb) = rate("a", p), rate("b", p)
    ratios.append(rb / ra)
    same = "same fingerprint" if fa == fb else f"fingerprints differ: {fa} {fb}"
    print(f"pair {p}: A {ra:8,.0f}  B {rb:8,.0f} agent-steps/s  B/A {rb / ra:.3f}  ({same})")
print(f"median B/A over {pairs} pairs: {statistics.median(ratios):.3f}")
PY
