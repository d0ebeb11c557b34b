// The world of one run, built from a validated scenario: what every run has. The communication
// graph and the network (which owns the physical graph: the agents, plus any service node an
// algorithm adds), the shared dataset and the shards, one Agent per node with its model,
// optimizer, learner and streams, the algorithm (which owns what only it needs), each agent's
// compute time, and the simulator. Built once; the run layer (sim/run) then drives it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/data/data_paths.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/churn.hpp"
#include "sim/agents/model_learner.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/thread_pool.hpp"
#include "sim/network/network.hpp"
#include "sim/scenario/run_plan.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

struct World {
  ScenarioSpec spec;
  Simulator sim;
  topo::Graph graph;  // the agents' graph of links (with a dynamic topology: the underlay)
  /// A dynamic topology's graphs (RunPlan::dynamic_graphs) until its overlay takes them.
  std::vector<topo::Graph> dynamic_graphs;
  GraphDegrees degrees;              // of `graph` and `dynamic_graphs` (RunPlan::degrees)
  std::unique_ptr<Network> network;  // over the physical graph, network->graph()
  std::shared_ptr<const models::DatasetSplit> data;  // null for quadratic models
  models::Dataset eval_set;                          // the fixed test subset every evaluation uses
  std::vector<std::vector<uint32_t>> class_counts;   // [agent][class] of the shards
  /// The agents this process holds in full (RunPlan::held): all, or over MPI ranks its block.
  /// The others are place-holders (Agent::held()), their learners null.
  NodeBlock held;
  std::vector<Agent> agents;
  std::vector<ModelLearner*> learners;  // agents[i].learner, typed (null when not held)
  std::unique_ptr<Algorithm> algorithm;
  std::unique_ptr<Churn> churn;       // null without churn
  std::vector<SimTime> compute_time;  // per agent: simulated time of one local step
  std::vector<std::string> warnings;  // shown to the user, not fatal

  explicit World(const ScenarioSpec& s) : spec(s), sim(s.seed) {}
  bool is_quadratic() const { return !data; }
  uint64_t parameter_count() const { return static_cast<uint64_t>(first_held(agents).x.size()); }
};

/// Builds everything a run needs (loads the dataset from `paths`). InputError for data that is
/// missing or malformed. Centralized SGD becomes one agent holding all the training data with a
/// batch of batch_size x agents (the same samples per iteration as the decentralized runs).
std::unique_ptr<World> build_world(const ScenarioSpec& spec, const models::DataPaths& paths);
/// Same, with `pool` doing the parallel parts (the dataset's files, the evaluation set, the
/// agents' models and buffers); the same world for every thread count.
std::unique_ptr<World> build_world(const ScenarioSpec& spec, const models::DataPaths& paths,
                                   ThreadPool& pool);
/// Same, over the graphs of `plan` (plan_run(spec): the estimate checked first), which the world
/// takes over; the others plan the run themselves.
std::unique_ptr<World> build_world(const ScenarioSpec& spec, RunPlan plan,
                                   const models::DataPaths& paths, ThreadPool& pool);
std::unique_ptr<World> build_world(const ScenarioSpec& spec, RunPlan plan,
                                   const models::DataPaths& paths);

/// Per-agent compute time of one step (time.compute; see scenarios/README.md).
std::vector<SimTime> compute_times(const ScenarioSpec& spec, uint32_t agents,
                                   double flops_per_step);

}  // namespace dlsim
