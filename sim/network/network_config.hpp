// The network's settings as plain data, filled by the scenario layer: link loss and jitter, the
// header, the agents' NICs, the send buffers, how links are shared and how they fail.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/network/link.hpp"
#include "sim/network/link_failures.hpp"
#include "sim/network/send_buffers.hpp"

namespace dlsim {

/// How a link or NIC carries the messages that cross it at the same time.
enum class Sharing : uint8_t {
  kFifo,    ///< one after another, in the order they reach it (store-and-forward per hop)
  kMaxMin,  ///< all at once, each flow at its max-min fair share of every resource on its route
};

/// Network-wide settings, plain data (the scenario layer fills it).
struct NetworkConfig {
  double loss_probability = 0.0;  ///< each message on each link is lost with this probability
  SimTime jitter{};               ///< extra propagation delay per message and link, U[0, jitter]
  uint64_t header_bytes = 0;      ///< added to every message's size on the wire
  uint64_t nic_uplink_bps = 0;    ///< every agent's NIC uplink; 0 = none
  uint64_t nic_downlink_bps = 0;  ///< every agent's NIC downlink; 0 = none
  /// Per-agent overrides: empty, or one entry per node (0 = that agent has none).
  std::vector<uint64_t> nic_uplink_bps_per_agent;
  std::vector<uint64_t> nic_downlink_bps_per_agent;
  SendBufferConfig send_buffer;  ///< default: unbounded (the scenario layer sets its bound)
  Sharing sharing = Sharing::kFifo;
  LinkFailureSpec failures;      ///< default: links never fail
  /// Set: the physical graph is complete, every link with this latency and bandwidth (loss and
  /// jitter from above), and kept implicit (complete_links.hpp); the graph given to the Network
  /// then has the nodes and no edges. Only with FIFO sharing and without failures.
  std::optional<LinkSpec> complete_underlay;
};

}  // namespace dlsim
