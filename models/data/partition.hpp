// Partitioners: split a train set over agents as index lists (shards). All draws come from one
// RandomStream(seed, "partition", 0), so a partition depends only on (dataset, request, seed).
//  - iid: shuffle all samples, agent a gets the a-th block of floor(n / agents); the n mod agents
//    samples left at the end of the shuffled order are used by no agent (all shards equal).
//  - by_label(k): agent i holds classes (i*k + j) mod C for j < k (the non-i.i.d. split of the
//    DETSGRAD paper: 10 agents, k = 1 gives agent i only digit i), then as explicit lists.
//  - explicit class lists: each class's samples are shuffled and split evenly among the agents
//    that hold it, in agent order; the first (n_c mod holders) holders get one sample more.
//    Classes that no agent holds are unused.
//  - Dirichlet(alpha): per class c in order, shuffle its samples, draw p ~ Dir(alpha) over agents
//    (normalised Gamma(alpha) draws), agent a gets the samples between round(n_c * P_{a-1}) and
//    round(n_c * P_a), P the cumulative sums; every sample is used.
// Every shard is sorted ascending and must be non-empty.
#pragma once

#include <cstdint>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

enum class PartitionKind { kIid, kByLabel, kDirichlet, kExplicit };

struct PartitionSpec {
  PartitionKind kind = PartitionKind::kIid;
  uint32_t labels_per_agent = 1;                     // by_label: k
  double alpha = 0.5;                                // dirichlet: concentration (> 0)
  std::vector<std::vector<uint32_t>> agent_classes;  // explicit: one class list per agent
};

struct Partition {
  std::vector<std::vector<uint32_t>> shards;        // [agent] -> ascending indices into train
  std::vector<std::vector<uint32_t>> class_counts;  // [agent][class] -> samples in the shard
};

/// Equal i.i.d. shards of floor(n / agents) samples. InputError if agents == 0 or > n.
Partition partition_iid(const Dataset& train, uint32_t agents, uint64_t seed);
/// k classes per agent, round robin. InputError if k == 0, k > num_classes or a shard is empty.
Partition partition_by_label(const Dataset& train, uint32_t agents, uint32_t labels_per_agent,
                             uint64_t seed);
/// Dirichlet label skew. InputError if alpha <= 0 (or not finite) or a shard is empty.
Partition partition_dirichlet(const Dataset& train, uint32_t agents, double alpha, uint64_t seed);
/// Explicit class lists, one per agent. InputError on an empty list, a class id >= num_classes,
/// a class listed twice for one agent, or an empty shard.
Partition partition_classes(const Dataset& train,
                            const std::vector<std::vector<uint32_t>>& agent_classes, uint64_t seed);

/// Dispatches on spec.kind. For kExplicit, spec.agent_classes.size() must equal `agents`.
Partition make_partition(const PartitionSpec& spec, const Dataset& train, uint32_t agents,
                         uint64_t seed);

}  // namespace dlsim::models
