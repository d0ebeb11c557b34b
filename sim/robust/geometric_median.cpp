// The geometric median of {x_i} + {x_j} by smoothed Weiszfeld iterations (Pillutla, Kakade &
// Harchaoui 2022, "Robust aggregation for federated learning", RFA).
#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

void geometric_median(const Neighbourhood& in, uint32_t iterations, double nu, std::span<float> out,
                      AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  DLSIM_CHECK(nu > 0.0, "geometric_median: nu {} must be > 0", nu);
  const size_t n = in.others.size() + 1;
  // Start at the members' mean, as RFA's reference implementation does.
  for (size_t e = 0; e < out.size(); ++e) {
    double sum = 0.0;
    for (size_t a = 0; a < n; ++a) sum += static_cast<double>(member(in, a)[e]);
    out[e] = static_cast<float>(sum / static_cast<double>(n));
  }
  std::span<double> beta = ws.per_member().first(n);
  for (uint32_t t = 0; t < iterations; ++t) {
    // All weights from the current z first: then z can be overwritten in place.
    double total = 0.0;
    for (size_t a = 0; a < n; ++a) {
      beta[a] = 1.0 / std::max(nu, std::sqrt(squared_distance(member(in, a), out)));
      total += beta[a];
    }
    for (size_t e = 0; e < out.size(); ++e) {
      double sum = 0.0;
      for (size_t a = 0; a < n; ++a) sum += beta[a] * static_cast<double>(member(in, a)[e]);
      out[e] = static_cast<float>(sum / total);
    }
  }
}

}  // namespace dlsim
