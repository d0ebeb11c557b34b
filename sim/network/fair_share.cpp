#include "sim/network/fair_share.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// std::push_heap with this comparison keeps the smallest share (then lowest index) on top.
constexpr auto after = [](const auto& l, const auto& r) {
  return l.share > r.share || (l.share == r.share && l.resource > r.resource);
};

}  // namespace

void MaxMinSolver::solve(std::span<const double> capacity_bps,
                         std::span<const uint32_t> route_begin, std::span<const uint32_t> routes,
                         std::span<double> rates_bps) {
  const size_t resources = capacity_bps.size();
  const size_t flows = rates_bps.size();
  DLSIM_CHECK(route_begin.size() == flows + 1, "{} route bounds for {} flows", route_begin.size(),
              flows);
  left_.assign(capacity_bps.begin(), capacity_bps.end());
  unfrozen_.assign(resources, 0);
  for (const uint32_t r : routes) ++unfrozen_[r];
  // The flows of each resource, in flow order (a counting sort of the routes).
  by_begin_.assign(resources + 1, 0);
  for (size_t r = 0; r < resources; ++r) by_begin_[r + 1] = by_begin_[r] + unfrozen_[r];
  by_flow_.resize(routes.size());
  for (size_t f = 0; f < flows; ++f)
    for (uint32_t k = route_begin[f]; k < route_begin[f + 1]; ++k)
      by_flow_[by_begin_[routes[k] + 1] - unfrozen_[routes[k]]--] = static_cast<uint32_t>(f);
  for (const uint32_t r : routes) ++unfrozen_[r];
  frozen_.assign(flows, 0);
  heap_.clear();
  for (size_t r = 0; r < resources; ++r)
    if (unfrozen_[r] != 0) heap_.push_back({left_[r] / unfrozen_[r], static_cast<uint32_t>(r)});
  std::make_heap(heap_.begin(), heap_.end(), after);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), after);
    const Candidate c = heap_.back();
    heap_.pop_back();
    const uint32_t r = c.resource;
    if (unfrozen_[r] == 0 || c.share != left_[r] / unfrozen_[r]) continue;  // stale
    for (uint32_t i = by_begin_[r]; i < by_begin_[r + 1]; ++i) {
      const uint32_t f = by_flow_[i];
      if (frozen_[f]) continue;
      frozen_[f] = 1;
      rates_bps[f] = c.share;
      for (uint32_t k = route_begin[f]; k < route_begin[f + 1]; ++k) {
        const uint32_t q = routes[k];
        left_[q] = std::max(0.0, left_[q] - c.share);
        if (--unfrozen_[q] != 0 && q != r) {
          heap_.push_back({left_[q] / unfrozen_[q], q});
          std::push_heap(heap_.begin(), heap_.end(), after);
        }
      }
    }
  }
}

}  // namespace dlsim
