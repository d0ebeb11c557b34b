#include "sim/robust/selection_network.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/robust/batcher_network.hpp"
#include "sim/robust/unrolled_networks.hpp"

namespace dlsim {

SelectionNetwork::SelectionNetwork(size_t n, size_t first, size_t last)
    : n_(n), first_(first), last_(last) {
  DLSIM_CHECK(n >= 1 && n <= kMaxInputs && first <= last && last < n,
              "a selection network for ranks [{}, {}] of {} values", first, last, n);
  const ComparatorList network = batcher_selection(n, first, last);
  std::copy_n(network.list.begin(), network.size, list_.begin());
  size_ = network.size;
  unrolled_ = unrolled_network(n, first, last);
}

namespace {

// Lane by lane with fixed bounds through non-aliasing pointers (two distinct rows), so that the
// compiler turns it into one vector min and one vector max.
inline void compare_exchange(float* __restrict lo, float* __restrict hi) {
  for (size_t l = 0; l < kTileLanes; ++l) {
    const float a = lo[l], b = hi[l];
    lo[l] = b < a ? b : a;
    hi[l] = a < b ? b : a;
  }
}

}  // namespace

void SelectionNetwork::run(std::span<TileRow> rows) const {
  DLSIM_CHECK(rows.size() >= n_, "{} tile rows for a network of {}", rows.size(), n_);
  if (unrolled_) {
    unrolled_(rows);
    return;
  }
  for (const Comparator c : comparators()) compare_exchange(rows[c.lo].data(), rows[c.hi].data());
}

}  // namespace dlsim
