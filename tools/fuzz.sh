#!/usr/bin/env bash
# tools/fuzz.sh SECONDS [TARGET...]: builds the libFuzzer harnesses of tools/fuzz with clang in
# build-fuzz/ (-DDLSIM_FUZZ=ON: ASan + UBSan + coverage, only the libraries they need) and runs
# each target (default: all) for SECONDS, one after the other, from a scratch copy of its seed
# corpus tests/fuzz_corpus/TARGET/ (the tree's corpus is not grown). Exit 0: nothing found; 1: a
# harness found a crash, leak, timeout or out-of-memory (its reproducer is printed; rerun it with
# build-fuzz/tools/fuzz/TARGET_fuzz FILE) or the build failed; 2: bad arguments; 5: no clang or
# no libFuzzer here (the project's exit code for environment failures).
set -uo pipefail
cd "$(dirname "$0")/.."

all_targets=(scenario sweep edge_list dot idx digit_json)
usage="usage: tools/fuzz.sh SECONDS [TARGET...]; targets: ${all_targets[*]}"
if [[ $# -lt 1 || ! $1 =~ ^[1-9][0-9]*$ ]]; then echo "$usage" >&2; exit 2; fi
seconds=$1
shift
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target $t; $usage" >&2; exit 2; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/dlsim-fuzz.XXXXXX") || exit 5
trap 'rm -rf "$scratch"' EXIT

# libFuzzer ships with clang (Debian: clang, libclang-rt-dev); a harness that links says both.
probe='extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }'
if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null ||
   ! clang++ -x c++ -fsanitize=fuzzer,address,undefined -o "$scratch/probe" - <<<"$probe" \
        >/dev/null 2>&1; then
  echo "fuzz: no clang++ with libFuzzer here (apt-get install clang libclang-rt-dev)" >&2
  exit 5
fi

jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build-fuzz
if ! CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DDLSIM_FUZZ=ON \
       -DDLSIM_NATIVE=OFF >build-fuzz/configure.log 2>&1 ||
   ! cmake --build build-fuzz -j"$jobs" --target "${targets[@]/%/_fuzz}" >build-fuzz/build.log 2>&1
then
  grep -E 'error|Error' build-fuzz/configure.log build-fuzz/build.log | head -40 >&2
  echo "fuzz: build failed; the logs are build-fuzz/configure.log and build-fuzz/build.log" >&2
  exit 1
fi

status=0
for t in "${targets[@]}"; do
  corpus=$scratch/corpus-$t
  findings=build-fuzz/findings/$t
  cp -r "tests/fuzz_corpus/$t" "$corpus"
  mkdir -p "$findings" "$scratch/tmp-$t"
  log=build-fuzz/findings/$t.log
  # -timeout: seconds per input (a hang is a finding); -rss_limit_mb also caps single mallocs.
  # stdin is /dev/null so that a file name such as /dev/stdin cannot block a harness.
  TMPDIR=$scratch/tmp-$t build-fuzz/tools/fuzz/"$t"_fuzz -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" \
    </dev/null >"$log" 2>&1
  rc=$?
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  echo "fuzz: $t: ${execs:-?} executions; ${coverage:-no coverage line} (log $log)"
  if [[ $rc -ne 0 ]]; then
    status=1
    reproducer=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | cut -d' ' -f5)
    grep -E '^==[0-9]+== ?ERROR|^SUMMARY|runtime error:|^terminate called|^  what\(\)' "$log" |
      head -5 >&2
    echo "fuzz: $t: FOUND a problem (exit $rc): reproducer ${reproducer:-none written}" >&2
  fi
done
exit $status
