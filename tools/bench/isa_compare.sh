#!/usr/bin/env bash
# Training step time of this machine's native build against an AVX2-only build (and, with
# --portable, an x86-64 baseline build: SSE2) on the same machine: configures and builds
# train_step_bench in each configuration, runs them in alternation (native, AVX2, [portable],
# native, ...) so that all see the same moments of a shared host, and prints a markdown table of
# the medians over rounds of each run's median CPU time per step, with the median over rounds of
# the per-round ratio (each round's builds ran within a minute of each other).
# Usage: tools/bench/isa_compare.sh [--portable] [ROUNDS=3] [RUNS=5] [MODEL FILTER]
#   build dirs: $NATIVE_BUILD (build), $AVX2_BUILD (build-avx2), $PORTABLE_BUILD (build-portable)
# e.g.   tools/bench/isa_compare.sh 3 5 lenet
set -euo pipefail
portable=0
if [[ ${1:-} == --portable ]]; then
  portable=1
  shift
fi
rounds=${1:-3}
runs=${2:-5}
filter=${3:-}
cd "$(dirname "$0")/../.."
native=${NATIVE_BUILD:-build}
avx2=${AVX2_BUILD:-build-avx2}
port=${PORTABLE_BUILD:-build-portable}
jobs=${JOBS:-2}

configure() {  # dir, then cmake options
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" --target train_step_bench -j"$jobs" >/dev/null
}
echo "building train_step_bench in $native, $avx2$( ((portable)) && echo ", $port")..." >&2
configure "$native" -DDLSIM_NATIVE=ON
configure "$avx2" -DDLSIM_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=haswell
names=(native avx2)
dirs=("$native" "$avx2")
if ((portable)); then
  configure "$port" -DDLSIM_NATIVE=OFF -DCMAKE_CXX_FLAGS=
  names+=(portable)
  dirs+=("$port")
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  for i in "${!names[@]}"; do
    echo "round $r/$rounds: ${names[$i]}" >&2
    "${dirs[$i]}/tools/bench/train_step_bench" "$runs" "$filter" >"$out/${names[$i]}-$r.txt"
  done
done
native_label="native build"
grep -qm1 avx512f /proc/cpuinfo && native_label="AVX-512 build"

/usr/bin/python3 - "$out" "$rounds" "$native_label" "${names[@]}" <<'PY'
import re, statistics, sys
out, rounds, native_label, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
row_re = re.compile(r"^(.*?)\s+(fused sgd|grad\+step sgd|grad\+step nesterov|eigen reference)"
                    r"\s+cpu median\s+([0-9.]+) us")
def parse(path):  # (network, variant) -> median CPU us, in the bench's printing order
    rows = {}
    for line in open(path):
        if line.startswith("multiply-add peak:"):
            rows["peak"] = float(line.split()[2])
        match = row_re.match(line)
        if match:
            rows[(match[1], match[2])] = float(match[3])
    return rows
runs = {n: [parse(f"{out}/{n}-{r}.txt") for r in range(1, rounds + 1)] for n in names}
labels = {"native": native_label, "avx2": "AVX2 build", "portable": "portable build (SSE2)"}
head = f"| model | {labels['native']} |"
for n in names[1:]:
    head += f" {labels[n]} | ratio |"
print(head)
print("|---" * (2 + 2 * (len(names) - 1)) + "|")
def us(x):
    return f"{x / 1000:.2f} ms" if x >= 1000 else f"{x:.0f} us"
for key in runs["native"][0]:
    if key == "peak":
        continue
    base = [r[key] for r in runs["native"]]
    row = f"| {key[0]}, {key[1]} | {us(statistics.median(base))} |"
    for n in names[1:]:
        other = [r[key] for r in runs[n]]
        ratio = statistics.median(o / b for o, b in zip(other, base))
        row += f" {us(statistics.median(other))} | {ratio:.2f}x |"
    print(row)
if all("peak" in r for n in names for r in runs[n]):
    row = "| multiply-add peak of one core (GFLOP/s) |"
    peak = {n: statistics.median(r["peak"] for r in runs[n]) for n in names}
    for n in names:
        row += f" {peak[n]:.0f} |" + (f" {peak['native'] / peak[n]:.2f}x |" if n != "native" else "")
    print(row)
print(f"\nMedians over {rounds} alternating rounds of each run's median CPU time per step (batch 32,"
      " one thread); ratio: median over rounds of that round's time / the native build's (for the"
      " peak: the native build's / this one's, the best ratio a compute-bound step can reach).")
PY
