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
#include "sim/core/rank_collectives.hpp"
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
  /// The same in one run over MPI ranks (collective), this rank scoring its agents [first, end)
  /// (the ranks hold contiguous blocks, in rank order); `comm` is comm_over_ranks()'s. The
  /// averaged model's sums go from rank to rank in agent order, so on rank 0 `out` has one
  /// process's bits; the other ranks' `out` is not complete. No centre model.
  void evaluate_over_ranks(ThreadPool& pool, const EvalInput& in, const CommRecorder& comm,
                           EvalPoint& out, RankCollectives& ranks, uint32_t first, uint32_t end);

 private:
  bool quadratic() const { return eval_set_ == nullptr; }
  ModelScore score(size_t agent_index, const ParamVector& x);
  /// out's iteration, time and agents' counts, online and Byzantine flags (scores untouched).
  void fill_counts(const EvalInput& in, const CommRecorder& comm, EvalPoint& out) const;
  /// Whether agent i counts in the averaged model: honest, and online unless none is.
  static bool counted(const AgentPoint& a, size_t online) {
    return !a.byzantine && (online == 0 || a.online);
  }
  /// Scores the averaged model (mean_, divided) with agent 0's workspace.
  void score_aggregate(EvalPoint& out);

  std::span<ModelLearner* const> learners_;
  const models::Dataset* eval_set_;
  size_t eval_batch_;
  std::vector<uint32_t> byzantine_;
  ParamVector mean_;            // the averaged model, summed in float as agents would
  Eigen::VectorXd mean_exact_;  // the same in double: identical agents are at distance 0
  std::vector<models::EvalResult> results_;
};

}  // namespace dlsim
