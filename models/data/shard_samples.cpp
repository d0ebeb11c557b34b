#include "models/data/shard_samples.hpp"

#include <limits>

#include "sim/core/error.hpp"

namespace dlsim::models {

void keep_shard_samples(Dataset& d, std::span<std::vector<uint32_t>> shards) {
  constexpr uint32_t kUnused = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> renumbered(d.size(), kUnused);
  for (const std::vector<uint32_t>& shard : shards)
    for (uint32_t i : shard) {
      DLSIM_CHECK(i < d.size(), "a shard lists sample {} of {}", i, d.size());
      renumbered[i] = 0;
    }
  // Ascending, so each kept sample moves to a column at or before its own.
  uint32_t kept = 0;
  for (uint32_t i = 0; i < renumbered.size(); ++i) {
    if (renumbered[i] == kUnused) continue;
    if (kept != i) {
      d.features.col(kept) = d.features.col(i);
      d.labels[kept] = d.labels[i];
    }
    renumbered[i] = kept++;
  }
  d.features.conservativeResize(Eigen::NoChange, kept);
  d.labels.resize(kept);
  d.labels.shrink_to_fit();
  for (std::vector<uint32_t>& shard : shards)
    for (uint32_t& i : shard) i = renumbered[i];
}

}  // namespace dlsim::models
