#!/usr/bin/env bash
# One run over 2 MPI ranks of one thread each against one process of 2 threads on the same
# machine: the price of MPI where it buys nothing (issue 31's bound: at least 0.85 of the one
# process's speed). The two alternate, REPEATS pairs, and the ratio quoted is the median of the
# pairs' ratios (a shared host's load moves from minute to minute). Each pair's fingerprints must
# agree. Prints each rank's peak RSS too (/usr/bin/time around each rank).
# Usage: tools/bench/mpi_run_speed.sh [SCENARIO] [REPEATS] [--set ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
scenario=${1:-scenarios/default.json}
repeats=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
bin=${BUILD:-build}/dlsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
for r in $(seq "$repeats"); do
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$out/rss-one-$r" \
    "$bin" run "$scenario" -o "$out/one-$r" --quiet --threads 2 "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$start $end" > "$out/wall-one-$r"
  start=$(date +%s.%N)
  "${mpirun[@]}" sh -c '/usr/bin/time -f "%M" -o "$0-$OMPI_COMM_WORLD_RANK" "$@"' \
    "$out/rss-ranks-$r" "$bin" run "$scenario" -o "$out/ranks-$r" --quiet --threads 1 "$@" > /dev/null
  end=$(date +%s.%N)
  echo "$start $end" > "$out/wall-ranks-$r"
done
/usr/bin/python3 - "$out" "$repeats" <<'PY'
import json, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
def wall(kind, r):  # the command's whole wall time, start-up and MPI_Init included
    a, b = map(float, open(f"{out}/wall-{kind}-{r}").read().split())
    return b - a
ratios, one, ranks = [], [], []
for r in range(1, repeats + 1):
    s1 = json.load(open(f"{out}/one-{r}/summary.json"))
    s2 = json.load(open(f"{out}/ranks-{r}/summary.json"))
    assert s1["fingerprint"] == s2["fingerprint"], (s1["fingerprint"], s2["fingerprint"])
    one.append(wall("one", r)); ranks.append(wall("ranks", r))
    ratios.append(one[-1] / ranks[-1])
rss_one = statistics.median(int(open(f"{out}/rss-one-{r}").read().split()[-1]) for r in range(1, repeats + 1))
rss_rank = [statistics.median(int(open(f"{out}/rss-ranks-{r}-{k}").read().split()[-1])
                              for r in range(1, repeats + 1)) for k in (0, 1)]
print(f"one process, 2 threads: median {statistics.median(one):.2f} s, peak RSS {rss_one / 1024:.0f} MB")
print(f"2 ranks, 1 thread each: median {statistics.median(ranks):.2f} s, peak RSS per rank "
      f"{rss_rank[0] / 1024:.0f} MB and {rss_rank[1] / 1024:.0f} MB")
print(f"speed of 2 ranks / one process: median of {repeats} pairs {statistics.median(ratios):.3f} "
      f"({', '.join(f'{x:.3f}' for x in ratios)})")
PY
