// The random structures. Erdos-Renyi and Watts-Strogatz come from Boost.Graph's generators
// driven by RandomStreamEngine; random regular (pairing model), Barabasi-Albert (preferential
// attachment) and random geometric graphs are written here.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/erdos_renyi_generator.hpp>
#include <boost/graph/small_world_generator.hpp>
#include <cmath>
#include <set>
#include <span>
#include <unordered_set>

#include "topologies/generator_kinds.hpp"
#include "topologies/random_engine.hpp"

namespace dlsim::topo::detail {
namespace {

using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

uint64_t pair_key(uint32_t a, uint32_t b) {
  return (uint64_t{std::min(a, b)} << 32) | std::max(a, b);
}

// True when two distinct stub nodes that are not yet adjacent remain: the pairing can still
// finish. Stubs left over are few, so the quadratic scan is cheap.
bool can_still_pair(std::vector<uint32_t> stubs, const std::unordered_set<uint64_t>& edges) {
  std::sort(stubs.begin(), stubs.end());
  stubs.erase(std::unique(stubs.begin(), stubs.end()), stubs.end());
  for (size_t i = 0; i < stubs.size(); ++i)
    for (size_t j = i + 1; j < stubs.size(); ++j)
      if (!edges.contains(pair_key(stubs[i], stubs[j]))) return true;
  return false;
}

}  // namespace

std::optional<NodePairs> random_regular_pairs(uint32_t n, uint32_t degree, RandomStream& rng) {
  // Configuration (pairing) model with local retries, as in Steger and Wormald (1999): shuffle
  // the stubs, keep the pairs that make a new simple edge, reshuffle the rest. A draw whose
  // leftover stubs can no longer pair fails as a whole.
  constexpr int kMaxRounds = 1000;
  std::vector<uint32_t> stubs;
  stubs.reserve(size_t{n} * degree);
  for (uint32_t i = 0; i < n; ++i) stubs.insert(stubs.end(), degree, i);
  std::unordered_set<uint64_t> edges;  // membership only: its order is never used
  edges.reserve(stubs.size() / 2);
  NodePairs pairs;
  for (int round = 0; !stubs.empty(); ++round) {
    if (round == kMaxRounds) return std::nullopt;
    rng.shuffle(std::span(stubs));
    std::vector<uint32_t> left;
    for (size_t i = 0; i + 1 < stubs.size(); i += 2) {
      const uint32_t a = stubs[i], b = stubs[i + 1];
      if (a != b && edges.insert(pair_key(a, b)).second) {
        pairs.emplace_back(a, b);
      } else {
        left.push_back(a);
        left.push_back(b);
      }
    }
    if (left.size() == stubs.size() && !can_still_pair(left, edges)) return std::nullopt;
    stubs = std::move(left);
  }
  return pairs;
}

NodePairs erdos_renyi_pairs(uint32_t n, double p, RandomStream& rng) {
  // Boost's sorted generator skips over absent pairs with geometric draws: O(n + edges).
  RandomStreamEngine engine(rng);
  using Iterator = boost::sorted_erdos_renyi_iterator<RandomStreamEngine, BoostGraph>;
  NodePairs pairs;
  for (Iterator it(engine, n, p, false), end; it != end; ++it) pairs.emplace_back(*it);
  return pairs;
}

NodePairs watts_strogatz_pairs(uint32_t n, uint32_t k, double beta, RandomStream& rng) {
  // Boost rewires an edge's far end to a uniform node outside the source's lattice window, so
  // two rewirings can draw the same pair: such duplicates are dropped (the edge count can fall
  // slightly below n * k / 2).
  RandomStreamEngine engine(rng);
  using Iterator = boost::small_world_iterator<RandomStreamEngine, BoostGraph>;
  std::set<uint64_t> seen;
  NodePairs pairs;
  for (Iterator it(engine, n, k, beta, false), end; it != end; ++it) {
    const auto [a, b] = *it;
    const auto u = static_cast<uint32_t>(a), v = static_cast<uint32_t>(b);
    if (u != v && seen.insert(pair_key(u, v)).second) pairs.emplace_back(u, v);
  }
  return pairs;
}

NodePairs barabasi_albert_pairs(uint32_t n, uint32_t m, RandomStream& rng) {
  // Start from the complete graph on m + 1 nodes; each new node links to m distinct nodes drawn
  // with probability proportional to degree: uniform picks from a list holding every node once
  // per incident edge end (Barabasi and Albert 1999; networkx's construction).
  NodePairs pairs = complete_pairs(m + 1);
  std::vector<uint32_t> ends;
  for (const auto& [a, b] : pairs) {
    ends.push_back(a);
    ends.push_back(b);
  }
  std::vector<uint32_t> targets;
  for (uint32_t v = m + 1; v < n; ++v) {
    targets.clear();
    while (targets.size() < m) {
      const uint32_t t = ends[rng.below(ends.size())];
      if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
    }
    for (uint32_t t : targets) {
      pairs.emplace_back(t, v);
      ends.push_back(t);
      ends.push_back(v);
    }
  }
  return pairs;
}

NodePairs random_geometric_pairs(uint32_t n, double radius, RandomStream& rng) {
  // Points uniform in [0, 1)^2, linked when their distance is <= radius. Points are bucketed
  // into square cells of side >= radius, so only the 3 x 3 neighbouring cells are compared.
  std::vector<double> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = rng.uniform();
    y[i] = rng.uniform();
  }
  const auto cells = static_cast<uint32_t>(std::clamp(std::floor(1.0 / radius), 1.0, 1024.0));
  const auto cell_of = [&](double c) { return std::min(cells - 1, uint32_t(c * cells)); };
  std::vector<std::vector<uint32_t>> bucket(size_t{cells} * cells);
  for (uint32_t i = 0; i < n; ++i)
    bucket[size_t{cell_of(y[i])} * cells + cell_of(x[i])].push_back(i);
  NodePairs pairs;
  const double r2 = radius * radius;
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t cx = cell_of(x[i]), cy = cell_of(y[i]);
    for (int64_t gy = std::max<int64_t>(0, cy - 1); gy <= std::min<int64_t>(cells - 1, cy + 1);
         ++gy)
      for (int64_t gx = std::max<int64_t>(0, cx - 1); gx <= std::min<int64_t>(cells - 1, cx + 1);
           ++gx)
        for (uint32_t j : bucket[size_t(gy) * cells + size_t(gx)]) {
          const double dx = x[i] - x[j], dy = y[i] - y[j];
          if (j > i && dx * dx + dy * dy <= r2) pairs.emplace_back(i, j);
        }
  }
  return pairs;
}

}  // namespace dlsim::topo::detail
