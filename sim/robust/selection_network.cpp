#include "sim/robust/selection_network.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

SelectionNetwork::SelectionNetwork(size_t n, size_t first, size_t last)
    : n_(n), first_(first), last_(last) {
  DLSIM_CHECK(n >= 1 && n <= kMaxInputs && first <= last && last < n,
              "a selection network for ranks [{}, {}] of {} values", first, last, n);
  // Batcher's odd-even merge sort for any n (Knuth, TAOCP vol. 3, 5.3.4, algorithm M): the
  // network for the next power of two without the comparators that reach past n, which would
  // only compare with +infinity.
  std::array<Comparator, kMaxComparators> sort{};
  size_t count = 0;
  for (size_t p = 1; p < n; p += p)
    for (size_t k = p; k >= 1; k /= 2)
      for (size_t j = k % p; j + k < n; j += 2 * k)
        for (size_t i = 0; i < k && i + j + k < n; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
            sort[count++] = {static_cast<uint8_t>(i + j), static_cast<uint8_t>(i + j + k)};
  // Pruned from the end: a comparator whose outputs no kept comparator and no chosen rank reads
  // changes nothing that is asked for.
  std::array<bool, kMaxInputs> needed{};
  std::fill(needed.begin() + static_cast<std::ptrdiff_t>(first),
            needed.begin() + static_cast<std::ptrdiff_t>(last) + 1, true);
  std::array<bool, kMaxComparators> keep{};
  for (size_t c = count; c-- > 0;) {
    keep[c] = needed[sort[c].lo] || needed[sort[c].hi];
    if (keep[c]) needed[sort[c].lo] = needed[sort[c].hi] = true;
  }
  for (size_t c = 0; c < count; ++c)
    if (keep[c]) list_[size_++] = sort[c];
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
  for (const Comparator c : comparators()) compare_exchange(rows[c.lo].data(), rows[c.hi].data());
}

}  // namespace dlsim
