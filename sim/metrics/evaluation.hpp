// One evaluation point of a run: every agent's test loss and accuracy on the fixed evaluation
// subset, the parameter-averaged ("aggregate") model's, the consensus distance, and the
// communication counts so far (from the CommRecorder). The run layer hands it what to score;
// it never reaches into the world. Agents are evaluated in parallel, each with its own model
// workspace; the averaged model is summed in agent order (float addition is not associative).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"
#include "sim/agents/agent.hpp"
#include "sim/agents/model_learner.hpp"
#include "sim/core/thread_pool.hpp"
#include "sim/metrics/comm_recorder.hpp"

namespace dlsim {

struct ModelScore {
  double loss = 0.0;
  double accuracy = 0.0;          // NaN for quadratic models
  double optimum_distance = 0.0;  // quadratic: ||x - x*||; NaN otherwise
};

struct AgentPoint {
  ModelScore score;
  uint64_t events = 0;         // trigger firings so far
  uint64_t messages_sent = 0;  // so far; bytes are wire bytes (payload + header)
  uint64_t bytes_sent = 0;
  uint64_t tensor_sends = 0;   // so far: the model tensors its messages carried, summed
  bool online = true;          // churn: online at this point
  bool byzantine = false;      // an attacker: left out of the averaged model and consensus
};

struct EvalPoint {
  int64_t iteration = 0;
  SimTime time;
  std::vector<AgentPoint> agents;
  ModelScore aggregate;  // the parameter-averaged model of the online honest agents
  // The algorithm's centre model (EASGD's z), if it has one, with its server's counts
  // (events 0: a server has no trigger).
  std::optional<AgentPoint> center;
  double consensus_distance = 0.0;  // sqrt(mean_i ||x_i - x_bar||^2) over the same agents
};

/// What one evaluation point scores: the agents as they are now, and the algorithm's centre
/// model (null when it has none) with the network node that holds it.
struct EvalInput {
  int64_t iteration = 0;
  SimTime time;
  std::span<const Agent> agents;
  const ParamVector* center = nullptr;
  AgentId center_node;
};

/// Reusable buffers for the evaluations of one run (no allocation per point after the first).
class Evaluator {
 public:
  /// learners: each agent's (their models score the parameters). eval_set: the fixed test
  /// subset, null for quadratic models (scored by their distance to the optimum). All outlive
  /// the evaluator. byzantine: the Byzantine agents' ids (each still scored, but not averaged).
  Evaluator(std::span<ModelLearner* const> learners, const models::Dataset* eval_set,
            size_t eval_batch, std::vector<uint32_t> byzantine = {})
      : learners_(learners),
        eval_set_(eval_set),
        eval_batch_(eval_batch),
        byzantine_(std::move(byzantine)) {}
  /// Scores `in` into `out`. Agents run in parallel on `pool`.
  void evaluate(ThreadPool& pool, const EvalInput& in, const CommRecorder& comm, EvalPoint& out);

 private:
  bool quadratic() const { return eval_set_ == nullptr; }
  ModelScore score(size_t agent_index, const ParamVector& x);

  std::span<ModelLearner* const> learners_;
  const models::Dataset* eval_set_;
  size_t eval_batch_;
  std::vector<uint32_t> byzantine_;
  ParamVector mean_;            // the averaged model, summed in float as agents would
  Eigen::VectorXd mean_exact_;  // the same in double: identical agents are at distance 0
  std::vector<models::EvalResult> results_;
};

}  // namespace dlsim
