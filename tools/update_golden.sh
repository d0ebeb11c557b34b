#!/usr/bin/env bash
# Records tests/golden/smoke_fingerprints.json from scenarios/smoke/*.json with build/dlsim. The
# file holds one set of fingerprints per build key (compiler and instruction set, `dlsim version`):
#   tools/update_golden.sh [BUILD_DIR]        after a change meant to change results: keeps only
#                                             this build's set (the others are stale); say why in
#                                             the commit
#   tools/update_golden.sh [BUILD_DIR] --add  on another kind of machine, results unchanged: adds
#                                             (or replaces) this build's set beside the others
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
mode=replace
for arg in "$@"; do
  case $arg in
    --add) mode=add ;;
    *) build=$arg ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key=$("$build"/dlsim version | sed -n 's/^build: //p')
for f in scenarios/smoke/*.json; do
  "$build"/dlsim run "$f" -o "$tmp/$(basename "$f" .json)" --quiet >/dev/null
done
/usr/bin/python3 - "$tmp" "$key" "$mode" <<'PY'
import json, os, sys
tmp, key, mode = sys.argv[1:4]
path = "tests/golden/smoke_fingerprints.json"
builds = {}
if mode == "add" and os.path.exists(path):
    builds = json.load(open(path))["builds"]
builds[key] = {name: json.load(open(f"{tmp}/{name}/summary.json"))["fingerprint"]
               for name in sorted(os.listdir(tmp))}
with open(path + ".tmp", "w") as out:
    json.dump({"builds": builds}, out, indent=2, sort_keys=True)
    out.write("\n")
os.replace(path + ".tmp", path)
print(f"recorded {len(builds[key])} fingerprints for {key!r}; builds in the file: {len(builds)}")
PY
