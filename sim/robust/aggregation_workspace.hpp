// What a robust aggregation rule reads (an agent's own model and the copies it holds of its
// neighbours', with their mixing weights) and the scratch space it needs, sized once so that no
// rule allocates per call (docs/algorithms.md, "Robust aggregation").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/robust/selection_network.hpp"

namespace dlsim {

/// Agent i's view when it mixes. `others` holds one vector of D floats per neighbour in ascending
/// sender id, parallel to `weights` (W_ij). Rules over the set {x_i} + {x_j} number it x_i first,
/// then `others` in order: ties are broken by that index. Nothing is owned.
struct Neighbourhood {
  std::span<const float> own;                      // x_i: D floats
  std::span<const std::span<const float>> others;  // x_j, j in N(i): each D floats
  double self_weight = 1.0;                        // W_ii (mean, clipped_gossip)
  std::span<const double> weights;                 // W_ij, parallel to others (same two)
};

/// Scratch space for every rule, for models of `dimension` floats and at most `max_neighbours`
/// neighbours. Sized in the constructor; the rules only reuse it. One per thread.
class AggregationWorkspace {
 public:
  AggregationWorkspace(size_t dimension, size_t max_neighbours);

  size_t dimension() const { return dimension_; }
  size_t max_neighbours() const { return max_neighbours_; }

  /// Preallocated slots where a caller can gather its neighbours' spans (count <= max).
  std::span<std::span<const float>> views(size_t count);

  // Rule scratch, sized for n = max_neighbours + 1 members (own model included).
  std::span<float> column() { return column_; }             // one coordinate of every member
  std::span<double> per_member() { return per_member_; }    // a number per member
  std::span<double> per_member2() { return per_member2_; }  // a second one
  std::span<uint32_t> order() { return order_; }            // member indices
  std::span<double> distances() { return distances_; }      // (n, n) row-major, squared
  std::span<double> row() { return row_; }                  // one row of distances, reordered

  /// The selection network for ranks [first, last] of n values (median, trimmed mean), built
  /// on first use and kept in place: the last kCachedNetworks distinct (n, first, last) are
  /// held, so a neighbourhood that keeps its size builds once and a new size costs one build,
  /// never an allocation. Valid until the next call.
  const SelectionNetwork& selection_network(size_t n, size_t first, size_t last);

 private:
  static constexpr size_t kCachedNetworks = 4;

  size_t dimension_;
  size_t max_neighbours_;
  std::vector<std::span<const float>> views_;
  std::vector<float> column_;
  std::vector<double> per_member_, per_member2_, distances_, row_;
  std::vector<uint32_t> order_;
  std::array<std::optional<SelectionNetwork>, kCachedNetworks> networks_;
  size_t next_network_ = 0;  // the slot a new key takes, round robin
};

/// Throws InvariantError unless `in` fits `ws` (dimension, neighbour count, parallel weights)
/// and `out` has D floats and overlaps none of the inputs.
void check_fits(const Neighbourhood& in, std::span<const float> out,
                const AggregationWorkspace& ws);

/// Member k of the set {x_i} + {x_j}: k = 0 is x_i, k >= 1 is others[k - 1].
inline std::span<const float> member(const Neighbourhood& in, size_t k) {
  return k == 0 ? in.own : in.others[k - 1];
}

/// Squared Euclidean distance in double: 16 partial sums over the coordinates e = l (mod 16),
/// then added in lane order (vectorizes; the order does not depend on the vector width).
double squared_distance(std::span<const float> a, std::span<const float> b);

}  // namespace dlsim
