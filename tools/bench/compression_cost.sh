#!/usr/bin/env bash
# What a compression costs a whole run: one dlsim binary runs a scenario plain and with
# `/algorithm/compression` set, in alternation (plain, compressed, plain, ...) so that both see
# the same moments of a shared host, and prints each pair's wall times (summary.json's wall_s),
# their ratio compressed/plain, where the time went, and the median ratio.
# Usage: tools/bench/compression_cost.sh BINARY [PAIRS] [COMPRESSION] [SCENARIO] [dlsim run options...]
# e.g.   tools/bench/compression_cost.sh build/dlsim 5 '{"kind": "top_k", "fraction": 0.01}' \
#          scenarios/default.json --threads 1 --set /run/iterations=3000
# The data come from this checkout's data/ unless DLSIM_DATA says otherwise.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 BINARY [PAIRS] [COMPRESSION] [SCENARIO] [options...]" >&2; exit 2; }
bin=$(realpath "$1")
pairs=${2:-5}
compression=${3:-'{"kind": "top_k", "fraction": 0.01}'}
cd "$(dirname "$0")/../.."
scenario=${4:-scenarios/default.json}
shift $(( $# >= 4 ? 4 : $# ))
export DLSIM_DATA=${DLSIM_DATA:-$PWD/data}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in $(seq "$pairs"); do
  "$bin" run "$scenario" -o "$out/plain-$p" --quiet "$@" >/dev/null
  "$bin" run "$scenario" -o "$out/compressed-$p" --quiet "$@" \
    --set /algorithm/compression="$compression" >/dev/null 2>"$out/compressed-$p.err"
done
/usr/bin/python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def load(which, p):
    return json.load(open(f"{out}/{which}-{p}/summary.json"))
def split(s):
    t = s["time"]
    return (f"wall {t['wall_s']:6.2f} s (training {t['training_s']:.2f}, updates {t['updates_s']:.2f}, "
            f"events {t['events_s']:.2f}, eval {t['eval_s']:.2f})")
ratios = []
for p in range(1, pairs + 1):
    a, b = load("plain", p), load("compressed", p)
    ratios.append(b["time"]["wall_s"] / a["time"]["wall_s"])
    print(f"pair {p}: plain {split(a)}")
    print(f"        compressed {split(b)}  ratio {ratios[-1]:.3f}")
steps = b["agents"] * b["iterations"]
print(f"fingerprints: plain {a['fingerprint']}, compressed {b['fingerprint']}; events per agent-step: "
      f"plain {a['comm']['events'] / steps:.2f}, compressed {b['comm']['events'] / steps:.2f}")
print(f"median compressed/plain wall time over {pairs} pairs: {statistics.median(ratios):.3f} "
      f"({', '.join(f'{r:.3f}' for r in ratios)})")
PY
