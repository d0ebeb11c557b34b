#!/usr/bin/env bash
# Enforces the dependency direction (CONTRIBUTING.md; the table in docs/architecture.md, "Floors"):
# each folder may include only what its row allows.
# Prints every offending include as file:line; exits 1 if there is any.
set -u
cd "$(dirname "$0")/.."
# folder <TAB> allowed project include prefixes (regex) <TAB> banned third-party prefixes (regex)
rules=$(cat <<'RULES'
sim/core/	^sim/core/	^(Eigen/|boost/|nlohmann/)
models/	^(sim/core/|models/)	^(boost/|nlohmann/)
topologies/	^(sim/core/|topologies/)	^nlohmann/
sim/network/	^(sim/core/|topologies/|sim/network/)	^(Eigen/|nlohmann/)
sim/compression/	^(sim/core/|sim/compression/)	^(boost/|nlohmann/)
sim/robust/	^(sim/core/|sim/robust/)	^(Eigen/|boost/|nlohmann/)
sim/agents/	^(sim/core/|topologies/|sim/network/|sim/compression/|sim/robust/|sim/agents/|models/[a-z_]+\.hpp|models/data/)	^nlohmann/
sim/scenario/	^(sim/core/|topologies/|sim/network/|sim/compression/|sim/robust/|sim/agents/|sim/scenario/|models/[a-z_]+\.hpp|models/data/)	^$
sim/metrics/	^(sim/core/|topologies/|sim/network/|sim/compression/|sim/agents/|sim/metrics/|models/[a-z_]+\.hpp|models/data/)	^$
sim/run/	^(sim/core/|sim/network/|sim/compression/|sim/agents/|sim/scenario/|sim/metrics/|sim/run/|models/data/)	^$
sim/distributed/	^(sim/core/|sim/distributed/)	^(Eigen/|boost/|nlohmann/)
sim/sweep/	^(sim/core/|sim/scenario/|sim/metrics/|sim/run/|sim/sweep/|models/data/)	^$
sim/cli/	^(sim/cli/|sim/scenario/|sim/metrics/|sim/run/|sim/sweep/|sim/distributed/|sim/core/|topologies/|models/data/)	^$
python/	^(python/|sim/core/|sim/agents/trigger\.hpp|sim/scenario/|sim/metrics/|sim/run/|sim/sweep/|models/data/)	^$
RULES
)
# Every folder of sim/ needs a row: a new layer cannot slip past the check.
status=0
for dir in sim/*/; do
  grep -q "^${dir}	" <<<"$rules" || { echo "tools/check_includes.sh: no rule for ${dir}" >&2; status=1; }
done
# Tracked or new source files that exist (not those deleted since the last commit).
files=$(git ls-files -co --exclude-standard -- sim models topologies python | grep -E '\.(hpp|cpp|h)$' |
        while read -r f; do [ -f "$f" ] && echo "$f"; done)
# shellcheck disable=SC2086
awk -v rules="$rules" '
  BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) { split(lines[i], f, "\t"); folder[i] = f[1]; allow[i] = f[2]; ban[i] = f[3] }
  }
  /^[ \t]*#include[ \t]*[<"]/ {
    inc = $0; sub(/^[^<"]*[<"]/, "", inc); sub(/[>"].*$/, "", inc)
    for (i = 1; i <= n; i++) {
      if (index(FILENAME, folder[i]) != 1) continue
      if (inc ~ /^(sim|models|topologies)\// && inc !~ allow[i]) {
        printf "%s:%d: %s may not include %s\n", FILENAME, FNR, folder[i], inc; bad = 1
      } else if (inc !~ /^(sim|models|topologies)\// && inc ~ ban[i]) {
        printf "%s:%d: %s may not use %s\n", FILENAME, FNR, folder[i], inc; bad = 1
      }
    }
  }
  END { exit bad }
' $files || status=1
exit $status
