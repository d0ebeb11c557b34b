#!/usr/bin/env bash
# The second configuration CI keeps working: a portable build (-DDLSIM_NATIVE=OFF: no
# -march=native, the scalar and SSE code paths) with AddressSanitizer and UndefinedBehaviorSanitizer,
# in build-sanitize/, running the whole test suite. Needs what tools/setup.sh --tests installed.
# Without precompiled headers (DLSIM_PCH=OFF): every file then compiles with its own includes
# only, so one that leans on a precompiled header fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DDLSIM_NATIVE=OFF -DDLSIM_SANITIZE=ON \
      -DDLSIM_WERROR=ON -DDLSIM_PCH=OFF >/dev/null
if ! cmake --build build-sanitize -j"$jobs" >build-sanitize/build.log 2>&1; then
  grep -E 'error|Error' build-sanitize/build.log | head -40 >&2
  echo "sanitizer build failed; the full log is build-sanitize/build.log" >&2
  exit 1
fi
ctest --test-dir build-sanitize --output-on-failure --no-tests=error -j"$jobs"
