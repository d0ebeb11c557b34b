// The max-min solver alone: rates derived by hand with the bottleneck algorithm.
#include "sim/network/fair_share.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace dlsim;

namespace {

std::vector<double> solve(const std::vector<double>& capacity,
                          const std::vector<std::vector<uint32_t>>& routes) {
  std::vector<uint32_t> begin{0};
  std::vector<uint32_t> flat;
  for (const auto& r : routes) {
    flat.insert(flat.end(), r.begin(), r.end());
    begin.push_back(static_cast<uint32_t>(flat.size()));
  }
  std::vector<double> rates(routes.size(), -1.0);
  MaxMinSolver solver;
  solver.solve(capacity, begin, flat, rates);
  return rates;
}

}  // namespace

TEST_CASE("max-min: flows on one resource share it equally") {
  CHECK(solve({9e6}, {{0}, {0}, {0}}) == std::vector<double>{3e6, 3e6, 3e6});
}

TEST_CASE("max-min: the textbook case, a long flow over two links and one short flow on each") {
  // Link 0: 10 Mbps, link 1: 4 Mbps. Flow 0 crosses both, flow 1 link 0, flow 2 link 1.
  // Link 1 is the bottleneck (4/2 = 2 < 10/2 = 5): flows 0 and 2 get 2 Mbps; link 0 has 8 left
  // for flow 1 alone.
  CHECK(solve({10e6, 4e6}, {{0, 1}, {0}, {1}}) == std::vector<double>{2e6, 8e6, 2e6});
  // Equal links: both bottlenecks at 5 Mbps, everyone gets 5.
  CHECK(solve({10e6, 10e6}, {{0, 1}, {0}, {1}}) == std::vector<double>{5e6, 5e6, 5e6});
}

TEST_CASE("max-min: a flow limited elsewhere leaves its unused share to the others") {
  // Resource 0 (an uplink, 1 Mbps) limits flow 0; on resource 1 (12 Mbps) flows 1 and 2 split
  // the 11 Mbps flow 0 does not take.
  CHECK(solve({1e6, 12e6}, {{0, 1}, {1}, {1}}) == std::vector<double>{1e6, 5.5e6, 5.5e6});
}

TEST_CASE("max-min: a chain of bottlenecks is resolved in order") {
  // r0 = 3 (flows a, b), r1 = 10 (b, c), r2 = 4 (c, d): r0 share 1.5 freezes a, b; r1 then has
  // 8.5 for c, r2 offers c and d 2 each: c = d = 2.
  CHECK(solve({3, 10, 4}, {{0}, {0, 1}, {1, 2}, {2}}) == std::vector<double>{1.5, 1.5, 2, 2});
}

TEST_CASE("max-min: the solver keeps no state between problems") {
  MaxMinSolver solver;
  std::vector<double> big(3), small(1);
  const std::vector<uint32_t> begin3{0, 2, 3, 4}, routes3{0, 1, 0, 1};
  solver.solve(std::vector<double>{10e6, 4e6}, begin3, routes3, big);
  const std::vector<uint32_t> begin1{0, 1}, routes1{0};
  solver.solve(std::vector<double>{7.0}, begin1, routes1, small);
  CHECK(small[0] == 7.0);
  solver.solve(std::vector<double>{10e6, 4e6}, begin3, routes3, big);
  CHECK(big == std::vector<double>{2e6, 8e6, 2e6});
}
