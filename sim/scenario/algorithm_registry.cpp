#include "sim/scenario/algorithm_registry.hpp"

#include <array>

#include "sim/scenario/scenario_spec.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

// Each defined in its own file of sim/scenario/algorithms/.
const AlgorithmDescriptor& centralized_descriptor();
const AlgorithmDescriptor& no_communication_descriptor();
const AlgorithmDescriptor& dpsgd_descriptor();
const AlgorithmDescriptor& detsgrad_descriptor();
const AlgorithmDescriptor& gossip_descriptor();
const AlgorithmDescriptor& elastic_gossip_descriptor();
const AlgorithmDescriptor& allreduce_descriptor();
const AlgorithmDescriptor& local_sgd_descriptor();
const AlgorithmDescriptor& easgd_descriptor();
const AlgorithmDescriptor& choco_descriptor();
const AlgorithmDescriptor& eventgrad_descriptor();

std::span<const AlgorithmDescriptor* const> algorithm_descriptors() {
  static const std::array<const AlgorithmDescriptor*, 11> kAll = {
      &centralized_descriptor(), &no_communication_descriptor(), &dpsgd_descriptor(),
      &detsgrad_descriptor(),    &gossip_descriptor(),           &elastic_gossip_descriptor(),
      &allreduce_descriptor(),   &local_sgd_descriptor(),        &easgd_descriptor(),
      &choco_descriptor(),       &eventgrad_descriptor()};
  return kAll;
}

const AlgorithmDescriptor* find_algorithm(std::string_view name) {
  for (const AlgorithmDescriptor* d : algorithm_descriptors())
    if (d->name() == name) return d;
  return nullptr;
}

topo::Graph AlgorithmDescriptor::network_graph(const World& w) const { return w.graph; }

std::string_view AlgorithmSpec::name() const { return descriptor ? descriptor->name() : "?"; }

}  // namespace dlsim
