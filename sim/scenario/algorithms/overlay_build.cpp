#include "sim/scenario/algorithms/overlay_build.hpp"

#include <utility>

namespace dlsim {

Overlay make_overlay(World& w, topo::MixingRule mixing) {
  const ScenarioSpec& s = w.spec;
  if (!s.dynamic) return Overlay(w.graph, mixing);
  // Async mode: each agent draws its own targets (the capabilities admit only the kinds and
  // algorithms that can).
  return Overlay(*s.dynamic, std::move(w.dynamic_graphs), s.agents, mixing, s.seed, s.time.mode);
}

uint32_t consensus_degree(const World& w) {
  const ScenarioSpec& s = w.spec;
  if (!s.dynamic) return w.degrees.largest;
  switch (s.dynamic->kind) {
    case topo::DynamicKind::kOnePeerExponential:
    case topo::DynamicKind::kRandomMatching:
      return 1;
    case topo::DynamicKind::kEpidemic:
      return s.dynamic->s;
    case topo::DynamicKind::kSequence:
      return w.degrees.dynamic_largest;
  }
  return 0;
}

}  // namespace dlsim
