// What the algorithms that mix over neighbours build from a world: their communication overlay
// and the largest number of neighbours an agent averages.
#pragma once

#include <cstdint>

#include "sim/agents/overlay.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

/// The agents' communication graph: the physical graph itself, or a dynamic overlay on it
/// (which takes w.dynamic_graphs over).
Overlay make_overlay(World& w, topo::MixingRule mixing);

/// The most neighbours an agent's consensus term sums: the graph's largest degree; on a dynamic
/// topology the largest in-degree of its graphs (one per round for one-peer and matchings;
/// epidemic: s, the mean, as any in-degree up to n - 1 can be drawn; a sequence: its graphs').
uint32_t consensus_degree(const World& w);

/// A robust rule (/algorithm/aggregation) must fit the smallest neighbourhood of an agent that
/// applies it (trim, Krum's 2f + 3): every agent but the attackers that keep the plain mean
/// (ByzantineSpec::mixes_with_mean, the predicate the algorithms skip them by). InputError
/// naming /algorithm/aggregation otherwise; nothing for the mean.
void check_aggregation_fits(const World& w);

/// Rethrows a mixing-weights error of an algorithm's constructor as one naming
/// /algorithm/weights.
template <class Build>
auto naming_weights(const World& w, Build build) {
  try {
    return build();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: /algorithm/weights: {}", w.spec.file, e.what()));
  }
}

}  // namespace dlsim
