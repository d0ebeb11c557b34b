// What an algorithm is to the rest of dlsim, said once in the algorithm's own file
// (sim/scenario/algorithms/<name>.cpp): its options (read, checked, written back), what it can
// run with (time modes, dynamic graphs, churn, failures, compression, triggers), the copies it
// holds (for the memory estimate), its warnings and how it is built. The registry
// (algorithm_registry.hpp) lists the descriptors; nothing else switches on the algorithm.
// docs/architecture.md, "Adding an algorithm", walks through one.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/scenario/graph_degrees.hpp"
#include "sim/scenario/json_object.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

struct ScenarioSpec;
struct World;
namespace topo {
struct TopologySpec;
}  // namespace topo

/// What an algorithm can run with. A scenario that asks for something marked false is refused
/// with exit 2 naming the key (parse_scenario.cpp, check_capabilities); docs/algorithms.md's
/// capability table is generated from these (`dlsim algorithms`).
struct AlgorithmCapabilities {
  bool async = true;                  // time.mode "async"
  std::string_view sync_only_reason;  // why not, when async is false (for the error message)
  bool rounds_in_async = false;  // a collective: async mode runs it in sync rounds all the same
  bool dynamic = false;          // a dynamic topology (topology.dynamic) in sync mode
  bool dynamic_async = false;    // ... and in async mode
  bool churn = false;            // agents that leave and return
  bool lossy_links = true;       // network.loss and network.failures (lost messages)
  bool compression = false;      // algorithm.compression on the parameter vectors it sends
  bool aggregation = false;      // algorithm.aggregation: a robust rule instead of the mean
  bool per_tensor = false;       // a threshold per tensor (trigger granularity "layer")
  bool model_trigger = true;     // a threshold on the whole model (granularity "model")
  bool alpha_threshold = false;  // trigger form "alpha" (scaled by DETSGRAD's step size)
  bool optimizer = true;         // takes /optimizer (DETSGRAD's step sizes are its own)
  bool service_node = false;     // a node after the agents (EASGD's server) with its own links
  bool centralized = false;      // one agent with all the data: the reference run
  /// The trigger kinds it takes; empty: it takes no trigger.
  std::vector<TriggerKind> triggers;
};

/// An algorithm's own options (mixing weights, step sizes, ...): each descriptor defines its
/// type in its header, and reads it back with AlgorithmSpec::options_as.
struct AlgorithmOptions {
  virtual ~AlgorithmOptions() = default;
};

/// Parameter-sized vectors an algorithm holds besides each agent's x and g (the memory
/// estimate's "algorithm copies").
struct AlgorithmCopies {
  /// In async mode, where each iteration's copy goes (what the links keep in flight when they
  /// are slower than the steps): nowhere, to every neighbour, or to one peer.
  enum class Sends { kNone, kNeighbours, kOnePeer };
  double per_agent = 0.0;  // held by every agent
  double shared = 0.0;     // held once for the run
  Sends async_sends = Sends::kNone;
};

/// What parsing an algorithm's options may depend on besides its own object.
struct AlgorithmParseContext {
  uint32_t agents = 0;
  const topo::TopologySpec* topology = nullptr;  // holding the network's latency and bandwidth
};

class AlgorithmDescriptor {
 public:
  /// `name`: the value of /algorithm/kind; `summary`: one line for `dlsim algorithms`.
  AlgorithmDescriptor(std::string_view name, std::string_view summary,
                      AlgorithmCapabilities capabilities)
      : name_(name), summary_(summary), capabilities_(std::move(capabilities)) {}
  virtual ~AlgorithmDescriptor() = default;
  AlgorithmDescriptor(const AlgorithmDescriptor&) = delete;
  AlgorithmDescriptor& operator=(const AlgorithmDescriptor&) = delete;

  std::string_view name() const { return name_; }
  std::string_view summary() const { return summary_; }
  const AlgorithmCapabilities& capabilities() const { return capabilities_; }

  /// Reads the options keys of /algorithm (not "kind", "compression" or "aggregation"); null when it has none.
  virtual std::shared_ptr<const AlgorithmOptions> parse(JsonObject& /*o*/,
                                                        const AlgorithmParseContext&) const {
    return nullptr;
  }
  /// Writes every option back, defaults filled in: parse(to_json(o)) gives o again.
  virtual void to_json(const AlgorithmOptions* /*options*/, nlohmann::json& /*out*/) const {}
  /// Refusals that depend on its options together with other sections (beyond what
  /// capabilities() says alone); InputError naming the file and key.
  virtual void check(const ScenarioSpec&) const {}

  /// `degrees`: of the graphs the run builds; all 0 before they are built, for the estimate's
  /// lower bound, so the copies must not decrease as a degree grows.
  virtual AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees& degrees) const = 0;
  /// The physical network's graph: the agents' graph, plus the service nodes of algorithms that
  /// have some (capabilities().service_node).
  virtual topo::Graph network_graph(const World& w) const;
  /// Warnings about a built world (unstable step sizes, ...), added to w.warnings.
  virtual void warn(World&) const {}
  /// What to check first when a run does not learn (the run's "learning suspect" line), or
  /// empty for the generic advice.
  virtual std::string learning_suspect(const ScenarioSpec&) const { return {}; }
  /// The last advice when nothing more specific applies: which step sizes to check.
  virtual std::string step_size_advice() const { return "check the step size /optimizer/lr"; }
  /// The algorithm over w's graph (or overlay), agents and network; w.algorithm is still null.
  virtual std::unique_ptr<Algorithm> build(World& w) const = 0;

 private:
  std::string_view name_, summary_;  // literals
  AlgorithmCapabilities capabilities_;
};

/// A descriptor whose options are an `Options` (deriving from AlgorithmOptions, its defaults in
/// its member initializers). Making the options and casting them back is said here once, so a
/// descriptor states only its own keys: what it reads, and how it writes them back.
template <class Options>
class DescriptorWith : public AlgorithmDescriptor {
 public:
  using AlgorithmDescriptor::AlgorithmDescriptor;

  std::shared_ptr<const AlgorithmOptions> parse(JsonObject& o,
                                                const AlgorithmParseContext& context) const final {
    auto options = std::make_shared<Options>();
    read(o, context, *options);
    return options;
  }
  void to_json(const AlgorithmOptions* options, nlohmann::json& out) const final {
    write(dynamic_cast<const Options&>(*options), out);
  }

 protected:
  /// Reads the options keys of /algorithm into `options`, which holds the defaults.
  virtual void read(JsonObject& o, const AlgorithmParseContext& context,
                    Options& options) const = 0;
  /// Writes every option back, defaults filled in: read(write(options)) gives options again.
  virtual void write(const Options& options, nlohmann::json& out) const = 0;
};

/// The one instance of `Descriptor`, made on first use: what an algorithm's accessor returns.
template <class Descriptor>
const AlgorithmDescriptor& the_descriptor() {
  static const Descriptor kDescriptor;
  return kDescriptor;
}

}  // namespace dlsim
