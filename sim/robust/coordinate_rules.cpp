// Coordinate-wise median and trimmed mean over {x_i} + {x_j} (Yin et al. 2018), by selection
// rather than sorting. The selected values are unique whatever the std library; the kept values
// of the trimmed mean are summed in member order, so the result is too.
#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

namespace {

// Copies coordinate e of every member into `column` (member order) and `sorted`.
void gather(const Neighbourhood& in, size_t e, std::span<float> column, std::span<float> sorted) {
  bool finite = true;
  for (size_t k = 0; k < column.size(); ++k) {
    column[k] = member(in, k)[e];
    sorted[k] = column[k];
    finite = finite && std::isfinite(column[k]);
  }
  // Selection needs a strict weak order, which NaN breaks.
  DLSIM_CHECK(finite, "robust aggregation: a non-finite value at coordinate {}", e);
}

float select(std::span<float> values, size_t rank) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

}  // namespace

void coordinate_median(const Neighbourhood& in, std::span<float> out, AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  const size_t n = in.others.size() + 1;
  std::span<float> column = ws.column().first(n);
  std::span<float> sorted = ws.column_sorted().first(n);
  for (size_t e = 0; e < out.size(); ++e) {
    gather(in, e, column, sorted);
    const float upper = select(sorted, n / 2);
    if (n % 2 == 1) {
      out[e] = upper;
      continue;
    }
    // Even count: after the selection, [0, n/2) holds the n/2 smallest; the lower middle is
    // their maximum. The mean is taken in double so that two large values cannot overflow.
    const float lower = *std::max_element(sorted.begin(), sorted.begin() + n / 2);
    out[e] = static_cast<float>(0.5 * (static_cast<double>(lower) + static_cast<double>(upper)));
  }
}

void trimmed_mean(const Neighbourhood& in, uint32_t b, std::span<float> out,
                  AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  const size_t n = in.others.size() + 1;
  DLSIM_CHECK(n > 2 * static_cast<size_t>(b), "trimmed_mean drops 2b = {} values, has {}", 2 * b,
              n);
  std::span<float> column = ws.column().first(n);
  std::span<float> sorted = ws.column_sorted().first(n);
  const size_t first_kept = b, last_kept = n - b - 1;  // ranks kept: [b, n - b)
  for (size_t e = 0; e < out.size(); ++e) {
    gather(in, e, column, sorted);
    const float lo = select(sorted, first_kept);
    // Everything right of rank b is >= lo: the second selection only looks there.
    const float hi = last_kept == first_kept
                         ? lo
                         : select(sorted.subspan(first_kept + 1), last_kept - first_kept - 1);
    // A member's rank orders by value, then by member index: a value equal to lo or hi is kept
    // when its rank falls in [b, n - b).
    size_t below_lo = 0, below_hi = 0;
    for (float v : column) {
      below_lo += v < lo;
      below_hi += v < hi;
    }
    size_t seen_lo = 0, seen_hi = 0;
    double sum = 0.0;
    for (float v : column) {
      size_t rank;
      if (v == lo)
        rank = below_lo + seen_lo++;
      else if (v == hi)
        rank = below_hi + seen_hi++;
      else if (v > lo && v < hi)
        rank = first_kept;  // strictly inside: kept
      else
        continue;
      if (rank >= first_kept && rank <= last_kept) sum += static_cast<double>(v);
    }
    out[e] = static_cast<float>(sum / static_cast<double>(n - 2 * b));
  }
}

}  // namespace dlsim
