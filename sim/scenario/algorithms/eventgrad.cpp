// "eventgrad": EventGraD, D-PSGD's averaging with a threshold per tensor deciding which tensors
// are sent (docs/algorithms.md, "EventGraD").
#include "sim/agents/eventgrad.hpp"

#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/algorithms/mixing_json.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

struct EventgradOptions final : AlgorithmOptions {
  topo::MixingRule mixing = topo::MixingRule::kMetropolisHastings;
};

AlgorithmCapabilities capabilities_of_eventgrad() {
  AlgorithmCapabilities c;
  c.churn = c.per_tensor = c.aggregation = true;
  c.model_trigger = false;
  c.triggers = {TriggerKind::kThreshold, TriggerKind::kAdaptive};
  return c;
}

class EventgradDescriptor final : public DescriptorWith<EventgradOptions> {
 public:
  EventgradDescriptor()
      : DescriptorWith("eventgrad", "EventGraD: D-PSGD's averaging, a send threshold per tensor",
                       capabilities_of_eventgrad()) {}
  // x^_i, the pending snapshot, the mixing workspace; async as DETSGRAD's.
  AlgorithmCopies copies(const ScenarioSpec& s, const GraphDegrees&) const override {
    return {s.time.mode == TimeMode::kAsync ? 3.6 : 3.0, 0.0, AlgorithmCopies::Sends::kNeighbours};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const topo::MixingRule mixing = w.spec.algorithm.options_as<EventgradOptions>().mixing;
    check_aggregation_fits(w);
    // A static overlay: the capabilities refuse a dynamic topology (/topology/dynamic).
    return naming_weights(w, [&]() -> std::unique_ptr<Algorithm> {
      auto a = std::make_unique<Eventgrad>(make_overlay(w, mixing),
                                           w.spec.trigger.value_or(TriggerSpec{}));
      a->set_aggregation(w.spec.algorithm.aggregation, w.spec.run.iterations);
      return a;
    });
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext&, EventgradOptions& e) const override {
    e.mixing = parse_mixing(o);
  }
  void write(const EventgradOptions& e, nlohmann::json& j) const override {
    j["weights"] = std::string(topo::to_string(e.mixing));
  }
};

}  // namespace

const AlgorithmDescriptor& eventgrad_descriptor() { return the_descriptor<EventgradDescriptor>(); }

}  // namespace dlsim
