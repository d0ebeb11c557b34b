// D-PSGD (Lian et al. 2017; docs/algorithms.md, "D-PSGD"): every iteration each agent sends x_i to
// all its neighbours and sets x_i <- sum_j W_ij x_j - step(g_i(x_i)), W symmetric doubly stochastic
// (topologies/mixing.hpp). A neighbour copy that never arrived (lost) counts as the agent's own
// x_i, so rows still sum to one; after that the last copy that did arrive is held.
// Adapt-then-combine (MixingOrder) takes the step first, in after_gradient(), and sends and mixes
// the stepped models: x_i <- sum_j W_ij (x_j - step(g_j(x_j))). In async mode an agent, at the
// step event that ends an iteration, takes the step, sends the stepped model to the peers of the
// iteration starting then, and averages the stepped model with what has arrived.
// On a dynamic overlay (overlay.hpp) each agent sends to its current targets and averages its
// current sources with the overlay's weights; when the graph changes, every held copy is
// dropped (a source whose copy of this round is lost counts as x_i).
// On a per-agent overlay (async mode) each agent draws its targets when it starts an iteration,
// and a receiver averages its own model and the latest model of every sender heard since its
// last update, uniformly: x_i <- (x_i + sum_j x_j) / (1 + received), then the step
// (docs/algorithms.md, "D-PSGD on dynamic topologies in async mode").
// On a static graph the sum over the held copies may be a robust rule instead
// (sim/robust/aggregation_rule.hpp; docs/algorithms.md, "Robust aggregation").
// With Byzantine agents (set_byzantine), an attacker sends each honest target its own crafted
// vector instead of its snapshot (byzantine.hpp); everything else it does honestly.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sim/agents/agent_compression.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/byzantine.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/robust/aggregation_rule.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

class Dpsgd final : public Algorithm {
 public:
  /// On any overlay: a static graph is a fixed Overlay(graph, rule), whose constructor throws
  /// InputError when the rule does not apply (uniform weights on an irregular graph).
  /// With `compression`, neighbours receive C(x_i) and mix it as x_i (naive compressed gossip).
  /// `order` kAdaptThenCombine: in async mode the stepped model leaves at the next step event.
  /// `aggregation` other than kMean: the held copies are combined by that rule (static overlays
  /// only; every neighbourhood must pass refusal()), with progress = iteration / `iterations`
  /// (balance).
  Dpsgd(Overlay overlay, const CompressionSpec& compression,
        MixingOrder order = MixingOrder::kCombineThenAdapt, const AggregationSpec& aggregation = {},
        int64_t iterations = 0);

  const Overlay& overlay() const { return overlay_; }
  /// The scenario's Byzantine agents; before start(). When their attack crafts messages
  /// (spec.crafts_messages()) they send crafted vectors and mix with the mean
  /// (spec.mixes_with_mean()); a label_flip attack is data-side and changes nothing here.
  void set_byzantine(const ByzantineSpec& spec, uint64_t seed) {
    if (spec.crafts_messages()) byzantine_ = std::make_unique<ByzantineSender>(spec, seed);
  }

  void start(std::span<Agent> agents) override;
  void begin_round(int64_t k, SimTime now) override;
  void prepare(Agent& a) override;
  void after_gradient(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void archive(AgentArchive& ar) override;

 private:
  struct PerAgent {
    Snapshot current;            // what i sends this iteration, shared by all its messages
    std::vector<Snapshot> held;  // x_j per source, in source order
    SnapshotPool pool;           // buffers of i's snapshots
    ParamVector mixed;           // workspace: sum_j W_ij x_j
    std::vector<Message> inbox;  // per-agent overlay: the latest model per sender, any order
    std::vector<double> weights; // workspace: the uniform weights of the inbox
    // A robust rule's scratch, sized in start(); not inline: most agents have none.
    std::unique_ptr<AggregationWorkspace> robust;
  };

  /// Per-agent overlay: s.inbox averaged uniformly with a.x, in sender order.
  void mix_arrivals(PerAgent& s, Agent& a);

  /// s.current <- a copy of a.x (C(a.x) with compression) when a has targets this round.
  void snapshot_to_send(Agent& a);
  /// What a sends to target j: its snapshot, or a Byzantine sender's crafted vector.
  Snapshot params_for(const Agent& a, PerAgent& s, uint32_t j);

  Overlay overlay_;
  AgentCompression compression_;
  MixingOrder order_;
  AggregationSpec aggregation_;
  int64_t iterations_ = 0;  // the run's T, for balance's progress t / T
  std::vector<PerAgent> state_;
  std::unique_ptr<ByzantineSender> byzantine_;  // null without Byzantine senders
};

}  // namespace dlsim
