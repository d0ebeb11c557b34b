#include "sim/scenario/algorithms/overlay_build.hpp"

#include <algorithm>
#include <utility>

#include "sim/robust/aggregation_rule.hpp"

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

void check_aggregation_fits(const World& w) {
  const AggregationSpec& rule = w.spec.algorithm.aggregation;
  if (rule.kind == AggregationKind::kMean) return;
  bool skipped = false;
  uint32_t smallest = w.spec.agents > 1 ? w.graph.node_count() : 0;
  for (uint32_t i = 0; i < w.graph.node_count(); ++i) {
    if (w.spec.byzantine && w.spec.byzantine->mixes_with_mean(i)) {
      skipped = true;
      continue;
    }
    smallest = std::min(smallest, w.graph.degree(i));
  }
  const std::string why = refusal(rule, size_t{smallest} + 1);
  if (!why.empty())
    throw InputError(
        fmt::format("{}: /algorithm/aggregation: {} (the graph's smallest "
                    "neighbourhood{}: degree {})",
                    w.spec.file, why, skipped ? " of an honest agent" : "", smallest));
}

}  // namespace dlsim
