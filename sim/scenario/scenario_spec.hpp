// A scenario as validated plain structs: what load_scenario produces and build_world consumes.
// Every key, unit and default is documented in scenarios/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/data/load_dataset.hpp"
#include "models/data/partition.hpp"
#include "models/model_spec.hpp"
#include "models/optimizer.hpp"
#include "sim/agents/churn.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/agents/gossip.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/compression/compression_spec.hpp"
#include "sim/network/network.hpp"
#include "topologies/mixing.hpp"
#include "topologies/dynamic_graphs.hpp"
#include "topologies/topology_spec.hpp"

namespace dlsim {

enum class AlgorithmKind {
  kCentralized,    // one model, all the data: the reference
  kNone,           // no communication
  kDpsgd,          // D-PSGD with a mixing matrix
  kDetsgrad,       // event-triggered consensus + innovation
  kGossip,         // Gossiping SGD, pull or push
  kElasticGossip,  // Elastic Gossip
  kAllReduce,      // all-reduce SGD (gradient averaging)
  kLocalSgd,       // periodic model averaging
  kEasgd,          // elastic averaging around a parameter server's centre variable
  kChoco,          // CHOCO-SGD: compressed gossip with error feedback
  kEventgrad,      // EventGraD: D-PSGD's averaging, per-tensor event-triggered sends
};

/// EASGD: the moving rate and the server node's links (scenarios/README.md, "algorithm").
struct EasgdSpec {
  double alpha = 0.1;                // moving rate, in (0, 1]
  SimTime server_latency;            // of every server link (resolved: the network's default)
  uint64_t server_bandwidth_bps = 0; // of every server link (resolved: the network's default)
  std::vector<uint32_t> server_links;  // workers linked directly to the server; empty: all
};

struct AlgorithmSpec {
  AlgorithmKind kind = AlgorithmKind::kDetsgrad;
  DetsgradSpec detsgrad;                    // kDetsgrad
  bool gradient_scale_is_n = false;         // kDetsgrad: "gradient_scale": "n"
  GossipMode gossip_mode = GossipMode::kPull;  // kGossip
  double elastic_alpha = 0.5;               // kElasticGossip
  topo::MixingRule mixing = topo::MixingRule::kMetropolisHastings;  // kDpsgd, kChoco, kEventgrad
  MixingOrder order = MixingOrder::kCombineThenAdapt;               // kDpsgd, kGossip
  EasgdSpec easgd;                          // kEasgd
  double choco_gamma = 0.0;                 // kChoco: consensus step size, in (0, 1]
  int64_t local_steps = 1;                  // kChoco: H (DETSGRAD's is in `detsgrad`)
  CompressionSpec compression;              // algorithms that send parameter vectors
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
