// Where a sender stands in a receiver's sorted neighbour list: the index of the copy the receiver
// keeps of it. A message from a node that is not a neighbour is a broken invariant.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "sim/core/error.hpp"
#include "sim/core/ids.hpp"

namespace dlsim {

inline size_t neighbour_index(std::span<const uint32_t> neighbours, AgentId from) {
  const auto it = std::lower_bound(neighbours.begin(), neighbours.end(), from.value);
  DLSIM_CHECK(it != neighbours.end() && *it == from.value, "message from non-neighbour {}",
              from.value);
  return static_cast<size_t>(it - neighbours.begin());
}

}  // namespace dlsim
