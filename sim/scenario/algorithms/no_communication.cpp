// "centralized" (one model trained on every agent's data with a batch of batch_size x agents: the
// reference the decentralized runs are compared with) and "none" (every agent trains alone on its
// own shard): the two runs without messages (docs/algorithms.md, "Centralized and none").
#include "sim/agents/no_communication.hpp"

#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {
namespace {

class NoCommunicationDescriptor final : public AlgorithmDescriptor {
 public:
  NoCommunicationDescriptor(std::string_view name, std::string_view summary, bool centralized,
                            std::string advice)
      : AlgorithmDescriptor(name, summary, capabilities_with(centralized)),
        advice_(std::move(advice)) {}
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override { return {}; }
  std::string learning_suspect(const ScenarioSpec&) const override { return advice_; }
  std::unique_ptr<Algorithm> build(World&) const override {
    return std::make_unique<NoCommunication>();
  }

 private:
  static AlgorithmCapabilities capabilities_with(bool centralized) {
    AlgorithmCapabilities c;
    c.centralized = centralized;
    return c;
  }

  std::string advice_;  // empty: the generic advice
};

}  // namespace

const AlgorithmDescriptor& centralized_descriptor() {
  static const NoCommunicationDescriptor kDescriptor(
      "centralized", "one model on all the data (batch x agents): the reference", true, "");
  return kDescriptor;
}

const AlgorithmDescriptor& no_communication_descriptor() {
  static const NoCommunicationDescriptor kDescriptor(
      "none", "no communication: each agent alone", false,
      "check /data/partition: every agent trains alone on its own shard, and a shard of few "
      "classes scores about its share of the test set");
  return kDescriptor;
}

}  // namespace dlsim
