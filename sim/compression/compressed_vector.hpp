// One compressed vector as its receivers decode it: the indices that travelled (ascending) and
// their decoded values, or every value when nothing was sparsified. The coded form itself is not
// built: a simulation needs only what the receiver reconstructs and how many bits it took on the
// wire (CompressionSpec::wire_bytes gives the coding, documented in docs/compression.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

class StateArchive;

struct CompressedVector {
  uint64_t dimension = 0;          ///< d of the vector it came from
  bool sparse = false;             ///< only `indices` travelled
  std::vector<uint32_t> indices;   ///< ascending; empty when dense
  std::vector<float> values;       ///< decoded: one per index, or d when dense
  uint64_t wire_bytes = 0;         ///< payload on the wire (without the network's header)

  /// target += decoded vector. Touches only the sent entries when sparse.
  void add_to(std::span<float> target) const;
  /// target = decoded vector (zero where nothing was sent).
  void assign_to(std::span<float> target) const;

  /// For checkpoints; loading fails when the indices and values do not match.
  void archive(StateArchive& ar);
};

}  // namespace dlsim
