// "elastic_gossip": Elastic Gossip, a pairwise elastic pull towards one random peer
// (docs/algorithms.md, "Elastic Gossip").
#include "sim/agents/elastic_gossip.hpp"

#include "sim/scenario/algorithms/gossip.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

struct ElasticGossipOptions final : AlgorithmOptions {
  double alpha = 0.5;  // the elastic moving rate
};

class ElasticGossipDescriptor final : public DescriptorWith<ElasticGossipOptions> {
 public:
  ElasticGossipDescriptor()
      : DescriptorWith("elastic_gossip", "Elastic Gossip: an elastic pull between two random peers",
                       gossip_capabilities()) {}
  // Two snapshots and the pull workspace.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {3.0, 0.0, AlgorithmCopies::Sends::kOnePeer};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const double alpha = w.spec.algorithm.options_as<ElasticGossipOptions>().alpha;
    const TriggerSpec trigger = w.spec.trigger.value_or(TriggerSpec{});
    const CompressionSpec& c = w.spec.algorithm.compression;
    // The overlay's weights are not read: the pull weighs every partner by alpha.
    return std::make_unique<ElasticGossip>(alpha, trigger,
                                           make_overlay(w, topo::MixingRule::kMetropolisHastings),
                                           w.spec.time.mode, c);
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext&, ElasticGossipOptions& e) const override {
    e.alpha = o.number("alpha", 0.5, 0.0, 1.0);
  }
  void write(const ElasticGossipOptions& e, nlohmann::json& j) const override {
    j["alpha"] = e.alpha;
  }
};

}  // namespace

const AlgorithmDescriptor& elastic_gossip_descriptor() {
  return the_descriptor<ElasticGossipDescriptor>();
}

}  // namespace dlsim
