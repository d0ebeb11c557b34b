// The options several mixing algorithms share: the mixing weights and the order of the gradient
// step and the averaging (docs/algorithms.md, "Mixing weights", "Order of mixing").
#pragma once

#include <string_view>

#include "sim/agents/mixing_step.hpp"
#include "sim/scenario/json_object.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

/// /algorithm/weights, default Metropolis-Hastings.
topo::MixingRule parse_mixing(JsonObject& o);
/// /algorithm/order, default combine-then-adapt.
MixingOrder parse_order(JsonObject& o);
std::string_view to_string(MixingOrder order);

}  // namespace dlsim
