#!/usr/bin/env bash
# Enforces STYLE.md's dependency direction: each folder may include only what its row allows.
# Prints every offending include with file and line; exits 1 if there is any.
set -u
cd "$(dirname "$0")/.."
status=0
# folder | allowed project include prefixes | third-party headers it must not use
check() {
  local folder=$1 allowed=$2 banned=$3
  [ -d "$folder" ] || return 0
  while IFS= read -r hit; do
    local file=${hit%%:*} rest=${hit#*:}
    local line=${rest%%:*} inc
    inc=$(sed -E 's/.*#include[[:space:]]*[<"]([^>"]+)[>"].*/\1/' <<<"${rest#*:}")
    case "$inc" in
      sim/*|models/*|topologies/*)
        if ! grep -qE "^($allowed)" <<<"$inc"; then
          echo "$file:$line: $folder may not include $inc"; status=1
        fi ;;
      *)
        if [ -n "$banned" ] && grep -qE "^($banned)" <<<"$inc"; then
          echo "$file:$line: $folder may not use $inc"; status=1
        fi ;;
    esac
  done < <(grep -rnE '^[[:space:]]*#include' "$folder" --include='*.hpp' --include='*.cpp' \
             --include='*.h' | sed -E 's/^([^:]+):([0-9]+):/\1:\2:/')
}
check sim/core     'sim/core/'                                   'Eigen/|boost/|nlohmann/'
check models       'sim/core/|models/'                           'boost/|nlohmann/'
check topologies   'sim/core/|topologies/'                       'nlohmann/'
check sim/network  'sim/core/|topologies/|sim/network/'          'Eigen/|nlohmann/'
check sim/agents   'sim/core/|topologies/|sim/network/|sim/agents/|models/[a-z_]+\.hpp|models/data/' 'nlohmann/'
check sim/cli      'sim/cli/|sim/scenario/|sim/metrics/|sim/core/' ''
exit $status
