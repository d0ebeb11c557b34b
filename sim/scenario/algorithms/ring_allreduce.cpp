// "allreduce" (all-reduce SGD: the gradients averaged over a ring every iteration) and
// "local_sgd" (periodic model averaging over the same ring): one collective, two reductions
// (docs/algorithms.md, "All-reduce SGD and Local SGD").
#include "sim/agents/ring_allreduce.hpp"

#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {
namespace {

class RingAllReduceDescriptor final : public AlgorithmDescriptor {
 public:
  RingAllReduceDescriptor(std::string_view name, std::string_view summary, ReduceWhat what,
                          std::vector<TriggerKind> triggers)
      : AlgorithmDescriptor(name, summary, capabilities_with(std::move(triggers))), what_(what) {}
  // The reduced vector.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {0.0, 1.0, AlgorithmCopies::Sends::kNone};
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    return std::make_unique<RingAllReduce>(what_, w.spec.trigger.value_or(TriggerSpec{}));
  }

 private:
  static AlgorithmCapabilities capabilities_with(std::vector<TriggerKind> triggers) {
    AlgorithmCapabilities c;
    c.lossy_links = false;     // a ring all-reduce needs every chunk
    c.rounds_in_async = true;  // every agent in the same iteration (RoundHooks::collective)
    c.triggers = std::move(triggers);
    return c;
  }

  ReduceWhat what_;
};

}  // namespace

const AlgorithmDescriptor& allreduce_descriptor() {
  static const RingAllReduceDescriptor kDescriptor(
      "allreduce", "all-reduce SGD: the gradients averaged over a ring every iteration",
      ReduceWhat::kGradients, {});
  return kDescriptor;
}

const AlgorithmDescriptor& local_sgd_descriptor() {
  static const RingAllReduceDescriptor kDescriptor(
      "local_sgd", "local SGD: the models averaged over a ring when the trigger fires",
      ReduceWhat::kModels, {TriggerKind::kAlways, TriggerKind::kPeriodic});
  return kDescriptor;
}

}  // namespace dlsim
