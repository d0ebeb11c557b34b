// "easgd": EASGD's options (docs/algorithms.md, "EASGD").
#pragma once

#include <vector>

#include "sim/core/time.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

/// The moving rate and the server node's links (scenarios/README.md, "algorithm").
struct EasgdOptions final : AlgorithmOptions {
  double alpha = 0.1;                  // moving rate, in (0, 1]
  SimTime server_latency;              // of every server link (resolved: the network's default)
  uint64_t server_bandwidth_bps = 0;   // of every server link (resolved: the network's default)
  std::vector<uint32_t> server_links;  // workers linked directly to the server; empty: all
};

}  // namespace dlsim
