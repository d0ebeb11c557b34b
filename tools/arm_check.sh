#!/usr/bin/env bash
# tools/arm_check.sh [BUILD_DIR]: cross-builds the models library and its tests (tests/models) for
# 64-bit ARM in BUILD_DIR (default build-arm/) and runs them under user-mode QEMU, so that the NEON
# backend of models/layers/simd.hpp and Eigen's NEON code run on an x86 machine. Exit 0: every
# test passed; 77: skipped (no cross compiler or no QEMU here; `tools/setup.sh --tests` installs
# g++-aarch64-linux-gnu and qemu-user), or a test skipped itself (tests/skip.hpp) and none
# failed; anything else: the build or a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm}

for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  if ! command -v "$tool" >/dev/null; then
    echo "arm_check: skipped: no $tool (bash tools/setup.sh --tests installs it)"
    exit 77
  fi
done

# Only sim/core's part the models use, the models library and tests/models, with header-only
# Eigen, doctest and fmt (DLSIM_MODELS_ONLY; Debian has no arm64 builds of them without
# multiarch). -O2 for the armv8-a baseline (cmake/aarch64-linux-gnu.cmake), NEON included, and no
# debug information. No precompiled headers: for these few files their holders only serialise
# the build (measured once on a shared 2-core machine with -j2: the same CPU time, 138 s of wall
# time with them against 107 s without).
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build"
start=$SECONDS
cmake -S . -B "$build" --toolchain "$PWD/cmake/aarch64-linux-gnu.cmake" -DDLSIM_MODELS_ONLY=ON \
      -DDLSIM_NATIVE=OFF -DDLSIM_PYTHON=OFF -DDLSIM_PCH=OFF -DDLSIM_WERROR=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
      >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
# tests/models/simd_test.cpp does not compile for AArch64 unless simd.hpp chose the NEON backend.
if ! cmake --build "$build" -j"$jobs" --target test_models >"$build/build.log" 2>&1; then
  grep -E 'error|Error' "$build/build.log" | head -40 >&2
  echo "arm_check: build failed; the full log is $build/build.log" >&2
  exit 1
fi
echo "arm_check: built $build/tests/test_models for aarch64 in $((SECONDS - start)) s"

# Every test case of tests/models runs: none reads data files or expects x86's results.
start=$SECONDS
status=0
qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/tests/test_models" || status=$?
echo "arm_check: ran under qemu-aarch64 in $((SECONDS - start)) s, exit code $status"
exit "$status"
