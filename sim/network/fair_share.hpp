// Max-min fair bandwidth sharing (network.sharing "maxmin"): the rate of every flow crossing a
// set of shared resources (links, NIC uplinks and downlinks), by the bottleneck ("progressive
// filling") algorithm of SimGrid's CM02/LV08 models without their TCP corrections.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

/// Solves one max-min problem at a time; the scratch vectors are kept between calls, so a
/// solve allocates nothing once they have reached the problem's size.
class MaxMinSolver {
 public:
  /// Resources are 0..capacity_bps.size()-1 (capacity > 0, bits/s); flow f crosses the distinct
  /// resources routes[route_begin[f] .. route_begin[f+1]) (at least one). Writes each flow's
  /// max-min fair rate to rates_bps (one per flow). Repeatedly: the resource whose remaining
  /// capacity / unfrozen flows is smallest (ties: lowest resource index) is the bottleneck; its
  /// unfrozen flows are frozen at that share, which is subtracted from every resource they
  /// cross. The result depends only on the inputs (not on any earlier call).
  void solve(std::span<const double> capacity_bps, std::span<const uint32_t> route_begin,
             std::span<const uint32_t> routes, std::span<double> rates_bps);

 private:
  struct Candidate {  // a resource's share when it was pushed; stale once it changed
    double share;
    uint32_t resource;
  };
  std::vector<double> left_;        // per resource: capacity not yet given to frozen flows
  std::vector<uint32_t> unfrozen_;  // per resource: its flows not yet frozen
  std::vector<uint32_t> by_begin_;  // per resource: its flows in by_flow_[by_begin_[r] ..)
  std::vector<uint32_t> by_flow_;
  std::vector<uint8_t> frozen_;  // per flow
  std::vector<Candidate> heap_;
};

}  // namespace dlsim
