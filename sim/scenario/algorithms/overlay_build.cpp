#include "sim/scenario/algorithms/overlay_build.hpp"

#include <algorithm>

#include "topologies/generators.hpp"

namespace dlsim {

Overlay make_overlay(const World& w, topo::MixingRule mixing) {
  const ScenarioSpec& s = w.spec;
  if (!s.dynamic) return Overlay(w.graph, mixing);
  std::vector<topo::Graph> graphs;
  for (const topo::TopologySpec& g : s.dynamic->graphs)
    graphs.push_back(topo::build_topology(g, s.seed));
  // Async mode: each agent draws its own targets (the capabilities admit only the kinds and
  // algorithms that can).
  return Overlay(*s.dynamic, std::move(graphs), s.agents, mixing, s.seed, s.time.mode);
}

uint32_t consensus_degree(const World& w) {
  const ScenarioSpec& s = w.spec;
  uint32_t max_degree = 0;
  const auto largest = [&max_degree](const topo::Graph& g) {
    for (uint32_t i = 0; i < g.node_count(); ++i) max_degree = std::max(max_degree, g.degree(i));
  };
  if (!s.dynamic) {
    largest(w.graph);
    return max_degree;
  }
  switch (s.dynamic->kind) {
    case topo::DynamicKind::kOnePeerExponential:
    case topo::DynamicKind::kRandomMatching:
      return 1;
    case topo::DynamicKind::kEpidemic:
      return s.dynamic->s;
    case topo::DynamicKind::kSequence:
      for (const topo::TopologySpec& g : s.dynamic->graphs)
        largest(topo::build_topology(g, s.seed));
      return max_degree;
  }
  return max_degree;
}

}  // namespace dlsim
