// One evaluation point of a run: every agent's test loss and accuracy on the fixed evaluation
// subset, the parameter-averaged ("aggregate") model's, the consensus distance and the
// communication counters so far. Agents are evaluated in parallel, each with its own model
// workspace; the averaged model is summed in agent order (float addition is not associative).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/thread_pool.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

struct ModelScore {
  double loss = 0.0;
  double accuracy = 0.0;           // NaN for quadratic models
  double optimum_distance = 0.0;   // quadratic: ||x - x*||; NaN otherwise
};

struct AgentPoint {
  ModelScore score;
  uint64_t events = 0;         // trigger firings so far
  uint64_t messages_sent = 0;  // network counters so far (bytes include headers)
  uint64_t bytes_sent = 0;
};

struct EvalPoint {
  int64_t iteration = 0;
  SimTime time;
  std::vector<AgentPoint> agents;
  ModelScore aggregate;               // the parameter-averaged model
  // The algorithm's centre model (EASGD's z), if it has one, with its server's counters
  // (events 0: a server has no trigger).
  std::optional<AgentPoint> center;
  double consensus_distance = 0.0;    // sqrt(mean_i ||x_i - x_bar||^2)
};

/// Reusable buffers for evaluations of one world (no allocation per point after the first).
class Evaluator {
 public:
  explicit Evaluator(World& world) : world_(world) {}
  /// Scores the world as it is now. Agents run in parallel on `pool`.
  void evaluate(ThreadPool& pool, int64_t iteration, EvalPoint& out);

 private:
  ModelScore score(size_t agent_index, const ParamVector& x);

  World& world_;
  ParamVector mean_;           // the averaged model, summed in float as agents would
  Eigen::VectorXd mean_exact_;  // the same in double: identical agents are at distance 0
  std::vector<models::EvalResult> results_;
};

}  // namespace dlsim
