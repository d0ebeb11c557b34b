// Coordinate-wise median and trimmed mean over {x_i} + {x_j} (Yin et al. 2018). Up to
// SelectionNetwork::kMaxInputs members, tiles of kTileLanes coordinates go through a selection
// network (selection_network.hpp; the workspace builds it once per size); beyond, each coordinate
// is selected or sorted on its own. The chosen ranks hold unique values whatever the path, and the
// trimmed mean sums its kept values in ascending order, so the result does not depend on the path
// or the std library either.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"
#include "sim/robust/selection_network.hpp"
#include "sim/robust/tile_vector.hpp"

namespace dlsim {

namespace {

using Tile = std::array<TileRow, SelectionNetwork::kMaxInputs>;

// Selection needs a strict weak order, which NaN breaks: names the first non-finite coordinate.
[[noreturn]] void refuse_non_finite(const Neighbourhood& in, size_t members) {
  for (size_t e = 0; e < in.own.size(); ++e)
    for (size_t k = 0; k < members; ++k)
      DLSIM_CHECK(std::isfinite(member(in, k)[e]),
                  "robust aggregation: a non-finite value at coordinate {}", e);
  DLSIM_CHECK(false, "robust aggregation: a non-finite value");  // not reached
}

// row = x's kTileLanes values, and finite += x - x, in vectors of the width the network loads
// them in (tile_vector.hpp). A loop over the lanes was copied lane by lane (x might have pointed
// into the tile, whose address the network saw) and its narrow stores stalled the network's
// loads: the gather took about ten times the network's own time (perf, AVX-512).
inline void load_row(const float* x, TileRow& row, FloatVector* finite) {
  for (size_t part = 0; part < kRowParts; ++part) {
    FloatVector v;
    std::memcpy(&v, x + part * kVectorLanes, sizeof v);
    std::memcpy(row.data() + part * kVectorLanes, &v, sizeof v);
    finite[part] += v - v;
  }
}

// Calls finish(rows, e0, count) for each tile of coordinates [e0, e0 + count) once `net` has
// put its ranks in place. A tile's unused lanes hold zeros.
template <class Finish>
void by_tiles(const Neighbourhood& in, const SelectionNetwork& net, Finish finish) {
  const size_t n = net.inputs(), d = in.own.size();
  alignas(64) Tile tile{};
  const std::span<TileRow> rows = std::span(tile).first(n);
  FloatVector finite[kRowParts] = {};  // v - v: 0 for a finite v, NaN for an infinite or NaN one
  for (size_t e0 = 0; e0 < d; e0 += kTileLanes) {
    const size_t count = std::min(kTileLanes, d - e0);
    for (size_t k = 0; k < n; ++k) {
      const float* x = member(in, k).data() + e0;
      if (count == kTileLanes) {
        load_row(x, rows[k], finite);
      } else {
        alignas(64) TileRow padded{};
        std::copy_n(x, count, padded.begin());
        load_row(padded.data(), rows[k], finite);
      }
    }
    net.run(rows);
    finish(rows, e0, count);
  }
  alignas(64) TileRow lanes;
  std::memcpy(lanes.data(), finite, sizeof lanes);
  float total = 0.0f;
  for (float v : lanes) total += v;
  if (!(total == 0.0f)) refuse_non_finite(in, n);
}

// Copies coordinate e of every member into `column`.
void gather(const Neighbourhood& in, size_t e, std::span<float> column) {
  bool finite = true;
  for (size_t k = 0; k < column.size(); ++k) {
    column[k] = member(in, k)[e];
    finite = finite && std::isfinite(column[k]);
  }
  if (!finite) refuse_non_finite(in, column.size());
}

float select(std::span<float> values, size_t rank) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

// The trimmed mean of a tile: mean[l] = (sum of rows [first, end) in double, in row order) / kept,
// rounded to float, in vectors of four lanes (GCC's vector extension): a plain loop over the
// lanes divided them one by one on AVX2 (vdivsd; its cost model) and went through the stack.
// Each lane takes the same IEEE operations either way.
void kept_mean(std::span<const TileRow> rows, size_t first, size_t end, double kept,
               TileRow& mean) {
  using Double4 = double __attribute__((vector_size(32)));
  using Float4 = float __attribute__((vector_size(16)));
  constexpr size_t kQuads = kTileLanes / 4;
  static_assert(kTileLanes % 4 == 0);
  Double4 sum[kQuads] = {};
  for (size_t r = first; r < end; ++r)
    for (size_t q = 0; q < kQuads; ++q) {
      Float4 f;
      std::memcpy(&f, rows[r].data() + 4 * q, sizeof f);
      sum[q] += __builtin_convertvector(f, Double4);
    }
  for (size_t q = 0; q < kQuads; ++q) {
    const Float4 m = __builtin_convertvector(sum[q] / kept, Float4);
    std::memcpy(mean.data() + 4 * q, &m, sizeof m);
  }
}

// The first `count` lanes of `row` to out[e0, e0 + count): one vector store for a whole tile
// (a loop bounded by count copied lane by lane).
void store_tile(const TileRow& row, size_t count, float* out) {
  if (count == kTileLanes)
    std::memcpy(out, row.data(), sizeof(TileRow));
  else
    std::memcpy(out, row.data(), count * sizeof(float));
}

// The mean of the two middle values in double, so that two large values cannot overflow.
float middle(float lower, float upper) {
  return static_cast<float>(0.5 * (static_cast<double>(lower) + static_cast<double>(upper)));
}

}  // namespace

void coordinate_median(const Neighbourhood& in, std::span<float> out, AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  const size_t n = in.others.size() + 1;
  if (n <= SelectionNetwork::kMaxInputs) {
    const SelectionNetwork& net = ws.selection_network(n, (n - 1) / 2, n / 2);
    by_tiles(in, net, [&](std::span<const TileRow> rows, size_t e0, size_t count) {
      const TileRow& upper = rows[n / 2];
      const TileRow& lower = rows[(n - 1) / 2];
      if (n % 2 == 1) return store_tile(upper, count, out.data() + e0);
      alignas(64) TileRow both;
      for (size_t l = 0; l < kTileLanes; ++l) both[l] = middle(lower[l], upper[l]);
      store_tile(both, count, out.data() + e0);
    });
    return;
  }
  std::span<float> column = ws.column().first(n);
  for (size_t e = 0; e < out.size(); ++e) {
    gather(in, e, column);
    const float upper = select(column, n / 2);
    // Even count: after the selection, [0, n/2) holds the n/2 smallest; the lower middle is
    // their maximum.
    out[e] = n % 2 == 1 ? upper
                        : middle(*std::max_element(column.begin(), column.begin() + n / 2), upper);
  }
}

void trimmed_mean(const Neighbourhood& in, uint32_t b, std::span<float> out,
                  AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  const size_t n = in.others.size() + 1;
  DLSIM_CHECK(n > 2 * static_cast<size_t>(b), "trimmed_mean drops 2b = {} values, has {}", 2 * b,
              n);
  const size_t first_kept = b, end_kept = n - b;  // ranks kept: [b, n - b)
  const double kept = static_cast<double>(end_kept - first_kept);
  if (n <= SelectionNetwork::kMaxInputs) {
    const SelectionNetwork& net = ws.selection_network(n, first_kept, end_kept - 1);
    by_tiles(in, net, [&](std::span<const TileRow> rows, size_t e0, size_t count) {
      alignas(64) TileRow mean;
      kept_mean(rows, first_kept, end_kept, kept, mean);
      store_tile(mean, count, out.data() + e0);
    });
    return;
  }
  std::span<float> column = ws.column().first(n);
  for (size_t e = 0; e < out.size(); ++e) {
    gather(in, e, column);
    // The kept values in ascending order, as the network path sums them: the sum is then the
    // same whichever member holds a tied value.
    select(column, first_kept);
    select(column.subspan(first_kept), end_kept - 1 - first_kept);  // all >= rank b's value
    std::sort(column.begin() + static_cast<std::ptrdiff_t>(first_kept),
              column.begin() + static_cast<std::ptrdiff_t>(end_kept));
    double sum = 0.0;
    for (size_t r = first_kept; r < end_kept; ++r) sum += static_cast<double>(column[r]);
    out[e] = static_cast<float>(sum / kept);
  }
}

}  // namespace dlsim
