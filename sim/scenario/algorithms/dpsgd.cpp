// "dpsgd": D-PSGD, every agent averages with its neighbours each iteration through a mixing
// matrix, in either order (docs/algorithms.md, "D-PSGD").
#include "sim/scenario/algorithms/dpsgd.hpp"

#include "sim/agents/dpsgd.hpp"
#include "sim/scenario/algorithms/mixing_json.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

AlgorithmCapabilities capabilities_of_dpsgd() {
  AlgorithmCapabilities c;
  c.dynamic = c.dynamic_async = c.churn = c.compression = true;
  return c;
}

class DpsgdDescriptor final : public AlgorithmDescriptor {
 public:
  DpsgdDescriptor()
      : AlgorithmDescriptor("dpsgd",
                            "D-PSGD: average with the neighbours every iteration (mixing weights)",
                            capabilities_of_dpsgd()) {}
  std::shared_ptr<const AlgorithmOptions> parse(JsonObject& o,
                                                const AlgorithmParseContext&) const override {
    auto d = std::make_shared<DpsgdOptions>();
    d->mixing = parse_mixing(o);
    d->order = parse_order(o);
    return d;
  }
  void to_json(const AlgorithmOptions* options, nlohmann::json& j) const override {
    const auto& d = dynamic_cast<const DpsgdOptions&>(*options);
    j["weights"] = std::string(topo::to_string(d.mixing));
    j["order"] = std::string(to_string(d.order));
  }
  // This and last iteration's snapshot, the mixing workspace.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {3.0, 0.0, AlgorithmCopies::Sends::kNeighbours};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const auto& d = w.spec.algorithm.options_as<DpsgdOptions>();
    return naming_weights(w, [&]() -> std::unique_ptr<Algorithm> {
      return std::make_unique<Dpsgd>(make_overlay(w, d.mixing), w.spec.algorithm.compression,
                                     d.order);
    });
  }
};

}  // namespace

const AlgorithmDescriptor& dpsgd_descriptor() {
  static const DpsgdDescriptor kDescriptor;
  return kDescriptor;
}

}  // namespace dlsim
