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
  c.dynamic = c.dynamic_async = c.churn = c.compression = c.aggregation = true;
  return c;
}

class DpsgdDescriptor final : public DescriptorWith<DpsgdOptions> {
 public:
  DpsgdDescriptor()
      : DescriptorWith("dpsgd",
                       "D-PSGD: average with the neighbours every iteration (mixing weights)",
                       capabilities_of_dpsgd()) {}
  // This and last iteration's snapshot, the mixing workspace.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {3.0, 0.0, AlgorithmCopies::Sends::kNeighbours};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const auto& d = w.spec.algorithm.options_as<DpsgdOptions>();
    check_aggregation_fits(w);
    return naming_weights(w, [&]() -> std::unique_ptr<Algorithm> {
      auto a = std::make_unique<Dpsgd>(make_overlay(w, d.mixing), w.spec.algorithm.compression,
                                       d.order, w.spec.algorithm.aggregation,
                                       w.spec.run.iterations);
      if (w.spec.byzantine) a->set_byzantine(*w.spec.byzantine, w.spec.seed);
      return a;
    });
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext&, DpsgdOptions& d) const override {
    d.mixing = parse_mixing(o);
    d.order = parse_order(o);
  }
  void write(const DpsgdOptions& d, nlohmann::json& j) const override {
    j["weights"] = std::string(topo::to_string(d.mixing));
    j["order"] = std::string(to_string(d.order));
  }
};

}  // namespace

const AlgorithmDescriptor& dpsgd_descriptor() { return the_descriptor<DpsgdDescriptor>(); }

}  // namespace dlsim
