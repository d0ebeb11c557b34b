// A dataset cut down to the samples some shards use: a rank of a run over MPI ranks keeps only
// its agents' training samples (docs/partitioned-runs.md, "Each rank's shards").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Keeps only the samples of `d` that some shard lists, in their order, and renumbers each
/// shard's indices into the smaller set. The renumbering keeps the indices' order, so a shard
/// stays ascending and every shuffle of it draws the same samples as before. The samples move
/// within their buffer, which then shrinks: no second copy of the dataset is made.
void keep_shard_samples(Dataset& d, std::span<std::vector<uint32_t>> shards);

}  // namespace dlsim::models
