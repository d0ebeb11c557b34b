// A scenario as validated plain structs: what load_scenario produces and build_world consumes.
// Every key, unit and default is documented in scenarios/README.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/data/load_dataset.hpp"
#include "models/data/partition.hpp"
#include "models/model_spec.hpp"
#include "models/optimizer.hpp"
#include "sim/agents/byzantine.hpp"
#include "sim/agents/churn.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/compression/compression_spec.hpp"
#include "sim/network/network.hpp"
#include "sim/robust/aggregation_rule.hpp"
#include "topologies/dynamic_graphs.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim {

class AlgorithmDescriptor;
struct AlgorithmOptions;

/// The "algorithm" section: which algorithm (its descriptor, sim/scenario/algorithms/) and its
/// options, of the descriptor's own type.
struct AlgorithmSpec {
  const AlgorithmDescriptor* descriptor = nullptr;  // set by parse_algorithm; never null after
  std::shared_ptr<const AlgorithmOptions> options;  // null for algorithms without options
  CompressionSpec compression;  // algorithms that send parameter vectors
  AggregationSpec aggregation;  // how held copies are mixed (mean: the plain weighted sum)

  /// /algorithm/kind.
  std::string_view name() const;
  bool is(std::string_view kind) const { return name() == kind; }
  /// The options as the descriptor's type (sim/scenario/algorithms/<name>.hpp).
  template <class T>
  const T& options_as() const {
    return dynamic_cast<const T&>(*options);
  }
};

/// Per-step compute time: a fixed duration, or FLOPs of one training step / agent speed.
struct ComputeSpec {
  std::optional<SimTime> step;          // "step": fixed time per step
  double gflops = 50.0;                 // otherwise: agent speed in GFLOP/s
  std::vector<double> speed_factors;    // "speeds": per-agent multipliers (empty: all 1)
  double speed_min = 1.0, speed_max = 1.0;  // "heterogeneity": uniform multiplier range
  double straggler_fraction = 0.0;      // "stragglers": this share of agents ...
  double straggler_factor = 1.0;        // ... is this many times slower
};

struct TimeSpec {
  TimeMode mode = TimeMode::kSync;
  ComputeSpec compute;
};

enum class InitKind { kCommon, kIndependent };

struct DataSection {
  models::DataSpec dataset;
  models::PartitionSpec partition;
  uint32_t batch_size = 32;
};

struct RunSpec {
  int64_t iterations = 0;
  int64_t eval_every = 0;        // 0: only at iteration 0 and at the end
  uint32_t eval_samples = 2000;  // test samples per evaluation (a random subset fixed by the seed)
  uint32_t eval_batch = 500;
};

struct ScenarioSpec {
  std::string file;  // where it was read from, for messages and relative paths
  std::string name;
  uint64_t seed = 1;
  uint32_t agents = 1;
  /// The physical network: the graph whose edges are links. For a static topology it is also the
  /// agents' communication graph; with `dynamic` it is the underlay (network.underlay, default:
  /// a complete graph with the network's latency and bandwidth).
  topo::TopologySpec topology;
  std::optional<topo::DynamicSpec> dynamic;  ///< a communication graph that changes (overlay.hpp)
  NetworkConfig network;
  std::optional<ChurnSpec> churn;  ///< agents that leave and return (churn.hpp)
  std::optional<ByzantineSpec> byzantine;  ///< agents that attack (byzantine.hpp)
  TimeSpec time;
  std::optional<DataSection> data;  // absent for quadratic models
  models::ModelSpec model;
  InitKind init = InitKind::kCommon;
  models::OptimizerSpec optimizer;
  AlgorithmSpec algorithm;
  std::optional<TriggerSpec> trigger;  // for algorithms that take one
  RunSpec run;
};

}  // namespace dlsim
