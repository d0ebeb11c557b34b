// Krum and Multi-Krum (Blanchard, El Mhamdi, Guerraoui & Stainer 2017) over {x_i} + {x_j}.
#include <algorithm>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

void multi_krum(const Neighbourhood& in, uint32_t f, uint32_t m, std::span<float> out,
                AggregationWorkspace& ws) {
  check_fits(in, out, ws);
  const size_t n = in.others.size() + 1;
  DLSIM_CHECK(n >= 2 * static_cast<size_t>(f) + 3,
              "krum needs at least 2f + 3 = {} models (own included) for f = {}, has {}",
              2 * static_cast<size_t>(f) + 3, f, n);
  DLSIM_CHECK(m >= 1 && m <= n, "multi_krum: m = {} outside [1, {}]", m, n);
  std::span<double> dist = ws.distances().first(n * n);  // (n, n), squared
  for (size_t a = 0; a < n; ++a) {
    dist[a * n + a] = 0.0;
    for (size_t c = a + 1; c < n; ++c)
      dist[a * n + c] = dist[c * n + a] = squared_distance(member(in, a), member(in, c));
  }
  // score(a) = sum of the n - f - 2 smallest squared distances from a to the others, summed
  // smallest first (a sorted row, so the order does not depend on the std library).
  const size_t nearest = n - f - 2;
  std::span<double> score = ws.per_member().first(n);
  std::span<double> row = ws.row().first(n - 1);
  for (size_t a = 0; a < n; ++a) {
    size_t r = 0;
    for (size_t c = 0; c < n; ++c)
      if (c != a) row[r++] = dist[a * n + c];
    std::sort(row.begin(), row.end());
    score[a] =
        std::accumulate(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(nearest), 0.0);
  }
  std::span<uint32_t> order = ws.order().first(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
    return score[a] < score[c] || (score[a] == score[c] && a < c);  // ties: lower index
  });
  // The m chosen, averaged in member order.
  std::span<double> chosen = ws.per_member2().first(n);
  std::fill(chosen.begin(), chosen.end(), 0.0);
  for (size_t r = 0; r < m; ++r) chosen[order[r]] = 1.0;
  for (size_t e = 0; e < out.size(); ++e) {
    double sum = 0.0;
    for (size_t a = 0; a < n; ++a)
      if (chosen[a] != 0.0) sum += static_cast<double>(member(in, a)[e]);
    out[e] = static_cast<float>(sum / static_cast<double>(m));
  }
}

}  // namespace dlsim
