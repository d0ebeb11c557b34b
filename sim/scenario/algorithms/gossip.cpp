// "gossip": Gossiping SGD, pull or push with one random peer when the trigger fires
// (docs/algorithms.md, "Gossiping SGD").
#include "sim/scenario/algorithms/gossip.hpp"

#include "sim/scenario/algorithms/mixing_json.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

class GossipDescriptor final : public DescriptorWith<GossipOptions> {
 public:
  GossipDescriptor()
      : DescriptorWith("gossip", "Gossiping SGD: pull or push one random peer's model",
                       gossip_capabilities()) {}
  void check(const ScenarioSpec& s) const override {
    if (s.algorithm.options_as<GossipOptions>().order == MixingOrder::kAdaptThenCombine &&
        s.time.mode == TimeMode::kAsync)
      throw InputError(
          fmt::format("{}: /algorithm/order: gossip's \"adapt_then_combine\" runs "
                      "in sync mode only (it picks its peer before the step; use "
                      "\"combine_then_adapt\" or \"dpsgd\" in async mode)",
                      s.file));
  }
  // This and last iteration's snapshot.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {2.0, 0.0, AlgorithmCopies::Sends::kOnePeer};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const auto& g = w.spec.algorithm.options_as<GossipOptions>();
    const TriggerSpec trigger = w.spec.trigger.value_or(TriggerSpec{});
    const CompressionSpec& c = w.spec.algorithm.compression;
    // One peer at a time, averaged pairwise: the overlay's weights are not read.
    return std::make_unique<GossipSgd>(
        g.mode, trigger, make_overlay(w, topo::MixingRule::kMetropolisHastings), c, g.order);
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext&, GossipOptions& g) const override {
    g.mode = o.choice<GossipMode>(
        "mode", {{"pull", GossipMode::kPull}, {"push", GossipMode::kPush}}, GossipMode::kPull);
    g.order = parse_order(o);
  }
  void write(const GossipOptions& g, nlohmann::json& j) const override {
    j["mode"] = g.mode == GossipMode::kPull ? "pull" : "push";
    j["order"] = std::string(to_string(g.order));
  }
};

}  // namespace

AlgorithmCapabilities gossip_capabilities() {
  using T = TriggerKind;
  AlgorithmCapabilities c;
  c.dynamic = c.dynamic_async = c.churn = c.compression = true;
  c.triggers = {T::kAlways, T::kNever, T::kPeriodic, T::kProbability};
  return c;
}

const AlgorithmDescriptor& gossip_descriptor() { return the_descriptor<GossipDescriptor>(); }

}  // namespace dlsim
