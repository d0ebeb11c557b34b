// EASGD (Zhang, Choromanska, LeCun 2015; docs/algorithms.md, "EASGD"): elastic averaging around
// a centre variable z held by a parameter server, node n of the network graph (the workers are the
// agents 0..n-1; the server trains nothing and is not evaluated). One protocol in both modes:
//   1. when worker i's trigger fires at iteration k it sends x_i (its parameters before the step
//      of k, full size, kParams) to the server;
//   2. on arrival the server computes d = alpha (x_i - z) with its current z and sends d back
//      (full size, kElasticDelta): two messages per exchange;
//   3. worker i applies every d that has arrived at its next update: x_i <- x_i - step_i - sum d.
// - sync: z holds still during a round, so every d of round k uses z_k; once the round's last
//   message arrived, z <- z + sum_i d_i (sender order) = z + beta (mean_i x_i - z), beta = n alpha,
//   when every worker fired. With the replies inside the round this is the paper's synchronous
//   form x_i <- x_i - step_i - alpha (x_i - z_k).
// - async: the server applies z <- z + d at once, the next arrival sees the new z: the paper's
//   asynchronous form, with x_i as it was sent and d applied when it returns (stale by the round
//   trip, as the paper's worker uses a stale z). Each exchange moves the same d out of x_i and
//   into z (elastic symmetry).
// z starts at the mean of the workers' initial parameters (their common model by default).
// Threshold triggers compare ||x_i - x_i as last sent||.
#pragma once

#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/round_hooks.hpp"
#include "sim/agents/service_node.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim {

class Easgd final : public Algorithm, public RoundHooks, public ServiceNode {
 public:
  /// alpha: moving rate in (0, 1]. mode decides when the server moves z (see above).
  Easgd(double alpha, const TriggerSpec& trigger, TimeMode mode);

  void start(std::span<Agent> agents) override;
  void prepare(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void receive_service(const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  bool set_trigger_decider(TriggerDecider& decider) override {
    trigger_.set_decider(decider);
    return true;
  }
  void archive(AgentArchive& ar) override;
  void before_updates(std::span<Agent> agents) override;

  /// The centre variable z.
  const ParamVector& center() const { return z_; }
  const ParamVector* center_model() const override { return &z_; }
  /// The server's node id: n, after the workers.
  AgentId server() const { return AgentId{n_}; }
  /// Parameter buffers worker i's copies use, and the server's replies (live or kept for reuse).
  size_t worker_buffers(AgentId i) const { return state_[i.value].pool.buffers(); }
  size_t server_buffers() const { return replies_.buffers(); }

 private:
  struct PerAgent {
    Snapshot pending;              // x_i to send this iteration (made in prepare), else null
    Snapshot sent;                 // x_i as last sent (threshold triggers' reference)
    std::vector<Snapshot> deltas;  // d's arrived since the last update, in arrival order
    SnapshotPool pool;             // buffers of i's copies of x_i
  };
  struct Pending {  // sync mode: a d of this round, added to z after the round
    AgentId from;
    Snapshot delta;
  };

  double drift_norm(const Agent& a) const;

  double alpha_;
  Trigger trigger_;
  TimeMode mode_;
  uint32_t n_ = 0;
  ParamVector z_;
  std::vector<PerAgent> state_;
  std::vector<Pending> round_;
  SnapshotPool replies_;  // buffers of the server's d's
};

}  // namespace dlsim
