// Batcher's odd-even merge sort pruned to the comparators some ranks depend on, as a constexpr
// function: the selection networks (selection_network.hpp) build their lists with it at run
// time, and the unrolled kernels for small neighbourhoods (unrolled_networks.hpp) at compile
// time, so both run the same comparators and give the same bits.
#pragma once

#include <array>
#include <cstddef>

#include "sim/robust/selection_network.hpp"

namespace dlsim {

struct ComparatorList {
  static constexpr size_t kMaxComparators = 191;  // Batcher's network for 32 inputs
  std::array<Comparator, kMaxComparators> list{};
  size_t size = 0;
};

/// The comparators, in order, that leave ranks [first, last] of n values where a sort would put
/// them. Needs 1 <= n <= SelectionNetwork::kMaxInputs and first <= last < n (unchecked here).
constexpr ComparatorList batcher_selection(size_t n, size_t first, size_t last) {
  // Batcher's odd-even merge sort for any n (Knuth, TAOCP vol. 3, 5.3.4, algorithm M): the
  // network for the next power of two without the comparators that reach past n, which would
  // only compare with +infinity.
  ComparatorList sort;
  for (size_t p = 1; p < n; p += p)
    for (size_t k = p; k >= 1; k /= 2)
      for (size_t j = k % p; j + k < n; j += 2 * k)
        for (size_t i = 0; i < k && i + j + k < n; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
            sort.list[sort.size++] = {static_cast<uint8_t>(i + j), static_cast<uint8_t>(i + j + k)};
  // Pruned from the end: a comparator whose outputs no kept comparator and no chosen rank reads
  // changes nothing that is asked for.
  std::array<bool, SelectionNetwork::kMaxInputs> needed{};
  for (size_t r = first; r <= last; ++r) needed[r] = true;
  std::array<bool, ComparatorList::kMaxComparators> keep{};
  for (size_t c = sort.size; c-- > 0;) {
    keep[c] = needed[sort.list[c].lo] || needed[sort.list[c].hi];
    if (keep[c]) needed[sort.list[c].lo] = needed[sort.list[c].hi] = true;
  }
  ComparatorList out;
  for (size_t c = 0; c < sort.size; ++c)
    if (keep[c]) out.list[out.size++] = sort.list[c];
  return out;
}

}  // namespace dlsim
