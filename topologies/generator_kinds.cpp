// The deterministic structures (ring, line, complete, star, grid, torus, hypercube,
// exponential) and the union-find component count used to condition random draws.
#include "topologies/generator_kinds.hpp"

#include <algorithm>
#include <numeric>

namespace dlsim::topo::detail {

NodePairs ring_pairs(uint32_t n) {
  NodePairs pairs;
  for (uint32_t i = 0; i < n; ++i) pairs.emplace_back(i, (i + 1) % n);
  return pairs;
}

NodePairs line_pairs(uint32_t n) {
  NodePairs pairs;
  for (uint32_t i = 0; i + 1 < n; ++i) pairs.emplace_back(i, i + 1);
  return pairs;
}

NodePairs complete_pairs(uint32_t n) {
  NodePairs pairs;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j) pairs.emplace_back(i, j);
  return pairs;
}

NodePairs star_pairs(uint32_t n) {
  NodePairs pairs;
  for (uint32_t i = 1; i < n; ++i) pairs.emplace_back(0, i);
  return pairs;
}

NodePairs grid_pairs(uint32_t rows, uint32_t cols) {
  NodePairs pairs;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const uint32_t i = r * cols + c;
      if (c + 1 < cols) pairs.emplace_back(i, i + 1);
      if (r + 1 < rows) pairs.emplace_back(i, i + cols);
    }
  return pairs;
}

NodePairs torus_pairs(uint32_t rows, uint32_t cols) {
  // rows, cols >= 3, so the wrap-around edges never repeat a lattice edge.
  NodePairs pairs;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const uint32_t i = r * cols + c;
      pairs.emplace_back(i, r * cols + (c + 1) % cols);
      pairs.emplace_back(i, ((r + 1) % rows) * cols + c);
    }
  return pairs;
}

NodePairs hypercube_pairs(uint32_t n) {
  NodePairs pairs;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t bit = 1; bit < n; bit <<= 1)
      if ((i & bit) == 0) pairs.emplace_back(i, i | bit);
  return pairs;
}

std::vector<uint32_t> exponential_offsets(uint32_t n) {
  std::vector<uint32_t> offsets;
  for (uint64_t step = 1; step < n; step <<= 1) {
    offsets.push_back(static_cast<uint32_t>(step));
    offsets.push_back(static_cast<uint32_t>(n - step));
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

NodePairs exponential_pairs(uint32_t n) {
  // Offsets come in pairs d, n - d; taking each unordered pair once: i -- i + d for d <= n / 2
  // covers i -- i - d as well, and d == n / 2 (n even) must be added only from i < n / 2.
  NodePairs pairs;
  for (uint32_t d : exponential_offsets(n)) {
    if (2 * uint64_t{d} > n) continue;
    for (uint32_t i = 0; i < n; ++i)
      if (2 * uint64_t{d} < n || i < d) pairs.emplace_back(i, (i + d) % n);
  }
  return pairs;
}

uint32_t count_components(uint32_t n, const NodePairs& pairs) {
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  const auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];  // path halving
    return x;
  };
  uint32_t components = n;
  for (const auto& [a, b] : pairs) {
    const uint32_t ra = find(a), rb = find(b);
    if (ra == rb) continue;
    parent[std::max(ra, rb)] = std::min(ra, rb);
    --components;
  }
  return components;
}

}  // namespace dlsim::topo::detail
