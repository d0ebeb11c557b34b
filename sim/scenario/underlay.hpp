// Whether a scenario's physical network is the implicit complete underlay (complete_links.hpp):
// a dynamic topology over a complete graph whose links are all alike, with FIFO sharing, no link
// failures and no EASGD server. The world then builds no edges, and the memory estimate counts
// no links.
#pragma once

#include <optional>

#include "sim/network/link.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// The links' latency and bandwidth when `s` runs over an implicit complete underlay.
std::optional<LinkSpec> implicit_complete_underlay(const ScenarioSpec& s);

}  // namespace dlsim
