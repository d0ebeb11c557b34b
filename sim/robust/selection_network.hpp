// The fast path of the coordinate-wise median and trimmed mean: a comparator network that puts
// chosen ranks of n <= 32 values in their sorted place (Batcher's odd-even merge sort, pruned to
// the comparators those ranks depend on), run on tiles of kTileLanes coordinates at once, one
// row per member, so that every compare-exchange is a vector min and max across the lanes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace dlsim {

/// Coordinates per tile: one AVX-512 register of floats, two AVX2 ones.
inline constexpr size_t kTileLanes = 16;

/// Row k of a tile: member k's values of kTileLanes consecutive coordinates.
using TileRow = std::array<float, kTileLanes>;

/// One compare-exchange: afterwards value[lo] <= value[hi] (lo < hi).
struct Comparator {
  uint8_t lo, hi;
};

/// The comparators, in order, that leave ranks [first, last] of n values where a sort would put
/// them. Holds them in place: building one allocates nothing.
class SelectionNetwork {
 public:
  static constexpr size_t kMaxInputs = 32;

  /// Needs 1 <= n <= kMaxInputs and first <= last < n.
  SelectionNetwork(size_t n, size_t first, size_t last);

  size_t inputs() const { return n_; }
  size_t first() const { return first_; }
  size_t last() const { return last_; }
  std::span<const Comparator> comparators() const { return std::span(list_).first(size_); }

  /// Runs the network on every lane of `rows` (at least inputs() rows): each lane's chosen ranks
  /// end in their sorted rows (the other rows hold unspecified values). Exact for finite values
  /// (min and max only); the sign of a zero that ties with another zero follows the network,
  /// not the input order. Small networks run unrolled, their rows in vector registers
  /// (unrolled_networks.hpp): the same comparators, the same bits.
  void run(std::span<TileRow> rows) const;
  /// Whether run() takes an unrolled kernel.
  bool unrolled() const { return unrolled_ != nullptr; }

  /// A network compiled for one (n, first, last): runs on `rows`.
  using Kernel = void (*)(std::span<TileRow> rows);

 private:
  static constexpr size_t kMaxComparators = 191;  // Batcher's network for 32 inputs
  size_t n_, first_, last_;
  std::array<Comparator, kMaxComparators> list_{};
  size_t size_ = 0;
  Kernel unrolled_ = nullptr;
};

}  // namespace dlsim
