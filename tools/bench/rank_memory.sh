#!/usr/bin/env bash
# Memory per MPI rank (issue 31): one run over RANKS ranks against one process, each rank's peak
# RSS (/usr/bin/time around each rank) beside the estimate `dlsim validate --ranks` gives, and the
# fingerprints compared. Default: 100,000 quadratic agents of 1,000 parameters on a random
# 4-regular graph, async DETSGRAD (scenarios/scale/torus-10000-detsgrad-async.json, resized).
# Usage: tools/bench/rank_memory.sh [ITERATIONS] [RANKS] [--set ...]
#   e.g. tools/bench/rank_memory.sh 20 2 --set '/topology={"kind":"torus","rows":250,"cols":400}'
set -euo pipefail
cd "$(dirname "$0")/../.."
iterations=${1:-20}
ranks=${2:-2}
shift $(( $# >= 2 ? 2 : $# ))
bin=${BUILD:-build}/dlsim
scenario=scenarios/scale/torus-10000-detsgrad-async.json
sets=(--set /agents=100000 --set '/topology={"kind":"random_regular","degree":4}'
      --set "/run/iterations=$iterations" --set "/run/eval_every=$iterations" "$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f "%M" -o "$out/rss-one" \
  "$bin" run "$scenario" "${sets[@]}" -o "$out/one" --quiet --threads 1 > /dev/null
mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
  sh -c '/usr/bin/time -f "%M" -o "$0-$OMPI_COMM_WORLD_RANK" "$@"' "$out/rss-rank" \
  "$bin" run "$scenario" "${sets[@]}" -o "$out/ranks" --quiet --threads 1 > /dev/null
one_estimate=$("$bin" validate "$scenario" "${sets[@]}" | sed -n 's/^memory: estimated \([^ ]* [^ ]*\).*/\1/p')
rank_estimate=$("$bin" validate "$scenario" "${sets[@]}" --ranks "$ranks" |
  sed -n 's/^memory: estimated \([^ ]* [^ ]*\).*/\1/p')
/usr/bin/python3 - "$out" "$ranks" "$one_estimate" "$rank_estimate" <<'PY'
import json, sys
out, ranks, one_estimate, rank_estimate = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
f1 = json.load(open(f"{out}/one/summary.json"))["fingerprint"]
f2 = json.load(open(f"{out}/ranks/summary.json"))["fingerprint"]
assert f1 == f2, (f1, f2)
one = int(open(f"{out}/rss-one").read().split()[-1]) / 1e6
per_rank = [int(open(f"{out}/rss-rank-{r}").read().split()[-1]) / 1e6 for r in range(ranks)]
print(f"one process: peak {one:.2f} GB (estimate {one_estimate})")
print(f"{ranks} ranks: peak " + ", ".join(f"{p:.2f}" for p in per_rank) +
      f" GB (estimate {rank_estimate} per rank)")
print(f"largest rank / one process: {max(per_rank) / one:.2f}; fingerprints equal ({f1})")
PY
