// Selection networks compiled for the neighbourhood sizes most graphs have: each comparator's
// rows are compile-time indices, so a tile's rows stay in vector registers for the whole network
// instead of being loaded and stored at every compare-exchange (which bounds the generic loop by
// store throughput, twice as hard with AVX2's 8 lanes as with AVX-512's 16). The comparators are
// batcher_selection's, the compare-exchange the generic one's: the same bits.
#pragma once

#include <cstddef>

#include "sim/robust/selection_network.hpp"

namespace dlsim {

/// The unrolled kernel for ranks [first, last] of n values, or null when none is compiled: the
/// median's ranks for n <= kMaxUnrolled, the trimmed mean's [b, n - b) for b <= kMaxUnrolledTrim.
SelectionNetwork::Kernel unrolled_network(size_t n, size_t first, size_t last);

inline constexpr size_t kMaxUnrolled = 17;      // up to 16 neighbours and the own model
inline constexpr size_t kMaxUnrolledTrim = 3;

}  // namespace dlsim
