#include "sim/robust/unrolled_networks.hpp"

#include <array>
#include <cstring>
#include <utility>

#include "sim/robust/batcher_network.hpp"
#include "sim/robust/tile_vector.hpp"

namespace dlsim {
namespace {

constexpr size_t kLanes = kVectorLanes;
using Vec = FloatVector;

// The generic compare_exchange, lane-wise (selection_network.cpp): the same min and max.
inline void compare_exchange(Vec& lo, Vec& hi) {
  const Vec a = lo, b = hi;
  lo = b < a ? b : a;
  hi = a < b ? b : a;
}

template <size_t N, size_t First, size_t Last>
struct Unrolled {
  static constexpr ComparatorList kNetwork = batcher_selection(N, First, Last);

  template <size_t... C>
  static void apply(Vec* r, std::index_sequence<C...>) {
    (compare_exchange(r[kNetwork.list[C].lo], r[kNetwork.list[C].hi]), ...);
  }

  static void run(std::span<TileRow> rows) {
    for (size_t part = 0; part < kTileLanes; part += kLanes) {
      Vec r[N];
      for (size_t k = 0; k < N; ++k) std::memcpy(&r[k], rows[k].data() + part, sizeof(Vec));
      apply(r, std::make_index_sequence<kNetwork.size>{});
      // Only the chosen ranks are read (SelectionNetwork::run's contract).
      for (size_t k = First; k <= Last; ++k) std::memcpy(rows[k].data() + part, &r[k], sizeof(Vec));
    }
  }
};

// Tables by n (index n, 0 unused): the median's ranks, and the trimmed mean's for b = 1..3.
template <size_t... I>
constexpr auto median_table(std::index_sequence<I...>) {
  return std::array<SelectionNetwork::Kernel, sizeof...(I)>{(
      I == 0
          ? nullptr
          : &Unrolled<(I == 0 ? 1 : I), (I == 0 ? 0 : (I - 1) / 2), (I == 0 ? 0 : I / 2)>::run)...};
}

template <size_t B, size_t... I>
constexpr auto trimmed_table(std::index_sequence<I...>) {
  // n > 2b: ranks [b, n - b - 1]; smaller n gets no kernel (the rule refuses them).
  return std::array<SelectionNetwork::Kernel, sizeof...(I)>{
      (I <= 2 * B
           ? nullptr
           : &Unrolled<(I <= 2 * B ? 2 * B + 1 : I), B, (I <= 2 * B ? B : I - B - 1)>::run)...};
}

constexpr auto kMedian = median_table(std::make_index_sequence<kMaxUnrolled + 1>{});
constexpr std::array kTrimmed = {trimmed_table<1>(std::make_index_sequence<kMaxUnrolled + 1>{}),
                                 trimmed_table<2>(std::make_index_sequence<kMaxUnrolled + 1>{}),
                                 trimmed_table<3>(std::make_index_sequence<kMaxUnrolled + 1>{})};
static_assert(kTrimmed.size() == kMaxUnrolledTrim);

}  // namespace

SelectionNetwork::Kernel unrolled_network(size_t n, size_t first, size_t last) {
  if (n == 0 || n > kMaxUnrolled) return nullptr;
  if (first == (n - 1) / 2 && last == n / 2) return kMedian[n];
  if (first >= 1 && first <= kMaxUnrolledTrim && last == n - first - 1)
    return kTrimmed[first - 1][n];
  return nullptr;
}

}  // namespace dlsim
