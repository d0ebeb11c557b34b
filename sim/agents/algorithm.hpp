// The contract between the drivers (sync rounds, async clocks; sim/run) and a decentralized
// algorithm. One iteration of agent a runs as:
//   prepare(a)      local work on x_k: trigger decision, snapshot, drift norm. Must not read a.g
//                   (async mode computes g_k after it). Touches only a's state: the driver runs
//                   it for many agents in parallel.
//   (the gradient)  the driver computes a.g and a.loss at a.x, in the same parallel phase.
//   after_gradient(a)  optional: local work that needs this iteration's gradient before anything
//                   is sent (CHOCO's local step, adapt-then-combine). Sync mode: in the same
//                   parallel phase. Async mode: at a's next step event, just before update(a);
//                   what it prepares is sent by communicate() of the iteration starting then.
//   communicate(a)  at a's step event, in event order: send what prepare decided, and report
//                   an event (Outbox::event) when the trigger fired.
//   receive(a, m)   when a message reaches a; may answer (pull requests).
//   update(a)       apply iteration k's update; touches only a's state and immutable snapshots,
//                   so it too runs in parallel. The driver then advances a.iteration.
// What only some algorithms need lives behind optional interfaces, each an extension point the
// drivers look up once per run: round_hooks.hpp (every agent at once at a sync barrier:
// all-reduce, EASGD), service_node.hpp (a node that is not an agent: EASGD's server) and
// sync_fast_path.hpp (speed paths that bend this contract).
#pragma once

#include <span>

#include "sim/agents/agent.hpp"
#include "sim/agents/message.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

class AgentArchive;
class TriggerDecider;

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  /// Called once, after every agent's x holds its initial parameters.
  virtual void start(std::span<Agent> agents) = 0;
  /// Sync rounds: called once before round k's prepare(), serially, with the round's start time
  /// (a dynamic overlay draws this iteration's graph here). Never in async mode: there each
  /// agent draws its own targets in prepare() (Overlay::begin_iteration).
  virtual void begin_round(int64_t /*k*/, SimTime /*now*/) {}
  virtual void prepare(Agent& a) = 0;
  /// Async mode calls it at the next step event, before update() (see the contract above);
  /// the loader refuses async mode where that order is not the algorithm's (CHOCO; gossip with
  /// order "adapt_then_combine").
  virtual void after_gradient(Agent&) {}
  virtual void communicate(Agent& a, Outbox& out) = 0;
  virtual void receive(Agent& a, const Message& m, Outbox& out) = 0;
  virtual void update(Agent& a) = 0;
  /// Lets `decider` replace the trigger's rule (trigger.hpp, TriggerDecider); false when this
  /// algorithm's trigger has no drift to give it (DETSGRAD, CHOCO and EASGD compute one).
  virtual bool set_trigger_decider(TriggerDecider&) { return false; }
  /// The run replaced a.x from outside the algorithm (churn's rejoin pull copies a neighbour's
  /// model in): forget whatever was computed from the old x. An extension point: DETSGRAD is
  /// its only user today, as the only algorithm that caches what it computed from x.
  virtual void model_replaced(Agent&) {}

  /// The algorithm's state between two events (held copies, snapshots not yet sent, messages
  /// kept for the next update, counters), for checkpoints, listed once for saving and loading
  /// (sim/agents/agent_archive.hpp). A loading archive is walked on an algorithm started on the
  /// same scenario, which then continues exactly where the saved one was; saving changes
  /// nothing. Snapshots go through the archive so that a buffer shared by several holders is
  /// shared again when loaded.
  virtual void archive(AgentArchive& ar) = 0;
};

/// a / (eps*k + 1)^d: the decaying step-size and threshold form (docs/algorithms.md,
/// "Step-size schedules").
struct DecaySchedule {
  double a = 0.1;
  double d = 1.0;
  double eps = 1e-5;
  double at(int64_t k) const;
};

}  // namespace dlsim
