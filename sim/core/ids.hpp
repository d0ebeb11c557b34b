// Strong id types, so an agent index cannot be passed where a link index is expected.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace dlsim {

/// A node of the graph: an agent, or an extra node such as a parameter server.
struct AgentId {
  uint32_t value = 0;
  constexpr auto operator<=>(const AgentId&) const = default;
};

/// A directed link of the network.
struct LinkId {
  uint32_t value = 0;
  constexpr auto operator<=>(const LinkId&) const = default;
};

}  // namespace dlsim
