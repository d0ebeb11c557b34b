// The partitioners of partition.hpp; each ends in finish(), which sorts, counts and rejects empty
// shards.
#include "models/data/partition.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models {
namespace {

using Shards = std::vector<std::vector<uint32_t>>;

RandomStream partition_stream(uint64_t seed) { return RandomStream(seed, "partition", 0); }

void require_agents(uint32_t agents, const char* kind) {
  if (agents == 0) throw InputError(fmt::format("{} partition: needs at least one agent", kind));
}

// Sample indices of each class, ascending.
Shards indices_by_class(const Dataset& train) {
  Shards by_class(train.num_classes);
  for (size_t i = 0; i < train.size(); ++i) {
    DLSIM_CHECK(train.labels[i] < train.num_classes, "label {} of sample {} >= {} classes",
                train.labels[i], i, train.num_classes);
    by_class[train.labels[i]].push_back(static_cast<uint32_t>(i));
  }
  return by_class;
}

Partition finish(Shards shards, const Dataset& train, const std::string& kind, const char* remedy) {
  Partition p;
  p.class_counts.assign(shards.size(), std::vector<uint32_t>(train.num_classes, 0));
  for (size_t a = 0; a < shards.size(); ++a) {
    if (shards[a].empty()) {
      throw InputError(fmt::format("{} partition of {} ({} samples): agent {} gets no samples; {}",
                                   kind, train.name, train.size(), a, remedy));
    }
    std::sort(shards[a].begin(), shards[a].end());
    for (uint32_t i : shards[a]) ++p.class_counts[a][train.labels[i]];
  }
  p.shards = std::move(shards);
  return p;
}

void validate_class_lists(const Shards& agent_classes, uint32_t num_classes) {
  require_agents(static_cast<uint32_t>(agent_classes.size()), "explicit");
  for (size_t a = 0; a < agent_classes.size(); ++a) {
    const auto& list = agent_classes[a];
    if (list.empty())
      throw InputError(fmt::format("explicit partition: agent {} has no classes", a));
    for (size_t j = 0; j < list.size(); ++j) {
      if (list[j] >= num_classes) {
        throw InputError(fmt::format("explicit partition: agent {}: class {} out of range [0, {})",
                                     a, list[j], num_classes));
      }
      if (std::find(list.begin(), list.begin() + static_cast<ptrdiff_t>(j), list[j]) !=
          list.begin() + static_cast<ptrdiff_t>(j)) {
        throw InputError(
            fmt::format("explicit partition: agent {}: class {} listed twice", a, list[j]));
      }
    }
  }
}

// Dir(alpha) proportions over `agents` as cumulative sums; all-zero Gamma draws (possible for tiny
// alpha through underflow) give the whole class to one agent drawn uniformly.
std::vector<double> dirichlet_cumulative(uint32_t agents, double alpha, RandomStream& rng) {
  std::vector<double> cumulative(agents);
  double sum = 0.0;
  for (uint32_t a = 0; a < agents; ++a) cumulative[a] = sum += rng.gamma(alpha);
  if (sum == 0.0) {
    const uint64_t winner = rng.below(agents);
    for (uint32_t a = 0; a < agents; ++a) cumulative[a] = a >= winner ? 1.0 : 0.0;
    return cumulative;
  }
  for (double& c : cumulative) c /= sum;
  return cumulative;
}

// Each class's samples, shuffled, split evenly among the agents listing it (see the header).
Partition split_by_class_lists(const Dataset& train, const Shards& agent_classes, uint64_t seed,
                               const std::string& kind) {
  Shards holders(train.num_classes);  // [class] -> agents holding it, ascending
  for (size_t a = 0; a < agent_classes.size(); ++a) {
    for (uint32_t c : agent_classes[a]) holders[c].push_back(static_cast<uint32_t>(a));
  }
  Shards by_class = indices_by_class(train);
  RandomStream rng = partition_stream(seed);
  Shards shards(agent_classes.size());
  for (uint32_t c = 0; c < train.num_classes; ++c) {
    rng.shuffle(std::span<uint32_t>(by_class[c]));
    const size_t m = holders[c].size(), n = by_class[c].size();
    size_t start = 0;
    for (size_t r = 0; r < m; ++r) {
      const size_t take = n / m + (r < n % m ? 1 : 0);
      auto& shard = shards[holders[c][r]];
      shard.insert(shard.end(), by_class[c].begin() + static_cast<ptrdiff_t>(start),
                   by_class[c].begin() + static_cast<ptrdiff_t>(start + take));
      start += take;
    }
  }
  return finish(std::move(shards), train, kind,
                "its classes have fewer samples than agents sharing them");
}

}  // namespace

Partition partition_iid(const Dataset& train, uint32_t agents, uint64_t seed) {
  require_agents(agents, "iid");
  std::vector<uint32_t> order(train.size());
  std::iota(order.begin(), order.end(), 0u);
  RandomStream rng = partition_stream(seed);
  rng.shuffle(std::span<uint32_t>(order));
  const size_t per_agent = order.size() / agents;
  Shards shards(agents);
  for (uint32_t a = 0; a < agents; ++a) {
    const auto begin = order.begin() + static_cast<ptrdiff_t>(a * per_agent);
    shards[a].assign(begin, begin + static_cast<ptrdiff_t>(per_agent));
  }
  return finish(std::move(shards), train, "iid", "use fewer agents than samples");
}

Partition partition_classes(const Dataset& train, const Shards& agent_classes, uint64_t seed) {
  validate_class_lists(agent_classes, train.num_classes);
  return split_by_class_lists(train, agent_classes, seed, "explicit");
}

Partition partition_by_label(const Dataset& train, uint32_t agents, uint32_t labels_per_agent,
                             uint64_t seed) {
  require_agents(agents, "by_label");
  if (labels_per_agent == 0 || labels_per_agent > train.num_classes) {
    throw InputError(
        fmt::format("by_label partition: labels_per_agent must be in [1, {}] (the "
                    "classes of {}), got {}",
                    train.num_classes, train.name, labels_per_agent));
  }
  Shards lists(agents);
  for (uint32_t i = 0; i < agents; ++i) {
    for (uint32_t j = 0; j < labels_per_agent; ++j) {
      lists[i].push_back(
          static_cast<uint32_t>((uint64_t{i} * labels_per_agent + j) % train.num_classes));
    }
  }
  return split_by_class_lists(train, lists, seed, fmt::format("by_label(k={})", labels_per_agent));
}

Partition partition_dirichlet(const Dataset& train, uint32_t agents, double alpha, uint64_t seed) {
  require_agents(agents, "dirichlet");
  if (!(alpha > 0.0) || !std::isfinite(alpha)) {
    throw InputError(fmt::format("dirichlet partition: alpha must be > 0, got {}", alpha));
  }
  Shards by_class = indices_by_class(train);
  RandomStream rng = partition_stream(seed);
  Shards shards(agents);
  for (uint32_t c = 0; c < train.num_classes; ++c) {
    rng.shuffle(std::span<uint32_t>(by_class[c]));
    const std::vector<double> cumulative = dirichlet_cumulative(agents, alpha, rng);
    const size_t n = by_class[c].size();
    size_t start = 0;
    for (uint32_t a = 0; a < agents; ++a) {
      const size_t end = a + 1 == agents ? n : static_cast<size_t>(std::llround(n * cumulative[a]));
      shards[a].insert(shards[a].end(), by_class[c].begin() + static_cast<ptrdiff_t>(start),
                       by_class[c].begin() + static_cast<ptrdiff_t>(end));
      start = end;
    }
  }
  return finish(std::move(shards), train, fmt::format("dirichlet(alpha={})", alpha),
                "raise alpha or use fewer agents");
}

Partition make_partition(const PartitionSpec& spec, const Dataset& train, uint32_t agents,
                         uint64_t seed) {
  switch (spec.kind) {
    case PartitionKind::kIid:
      return partition_iid(train, agents, seed);
    case PartitionKind::kByLabel:
      return partition_by_label(train, agents, spec.labels_per_agent, seed);
    case PartitionKind::kDirichlet:
      return partition_dirichlet(train, agents, spec.alpha, seed);
    case PartitionKind::kExplicit:
      if (spec.agent_classes.size() != agents) {
        throw InputError(fmt::format("explicit partition: {} class lists for {} agents",
                                     spec.agent_classes.size(), agents));
      }
      return partition_classes(train, spec.agent_classes, seed);
  }
  check_failed(__FILE__, __LINE__, "known kind", fmt::format("PartitionKind {}", int(spec.kind)));
}

}  // namespace dlsim::models
