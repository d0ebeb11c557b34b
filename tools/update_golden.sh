#!/usr/bin/env bash
# Re-records tests/golden/smoke_fingerprints.json from scenarios/smoke/*.json with build/dlsim.
# Run it only after a change that is meant to change results, and say why in the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tmp=$(mktemp -d)
key=$("$build"/dlsim version | sed -n 's/^build: //p')
{
  echo "{"
  echo "  \"build\": \"$key\","
  echo "  \"fingerprints\": {"
  first=1
  for f in scenarios/smoke/*.json; do
    name=$(basename "$f" .json)
    "$build"/dlsim run "$f" -o "$tmp/$name" --quiet >/dev/null
    fp=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['fingerprint'])" "$tmp/$name/summary.json")
    [ $first = 1 ] || echo ","
    printf '    "%s": "%s"' "$name" "$fp"
    first=0
  done
  echo
  echo "  }"
  echo "}"
} > tests/golden/smoke_fingerprints.json.tmp
mv tests/golden/smoke_fingerprints.json.tmp tests/golden/smoke_fingerprints.json
rm -rf "$tmp"
echo "recorded $(grep -c '"0x' tests/golden/smoke_fingerprints.json) fingerprints"
