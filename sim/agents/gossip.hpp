// Gossiping SGD (Jin et al. 2016), both variants (docs/algorithms.md, "Gossiping SGD"):
// - pull: when its trigger fires, agent i asks one random neighbour j for x_j and then moves to
//   (x_i + x_j)/2 before its optimizer step; only the initiator moves, j only answers.
// - push: when its trigger fires, agent i sends (x_i, w_i/2) to one random neighbour and keeps
//   weight w_i/2; a receiver mixes what it got with push-sum weights: x <- sum w x / sum w.
// On a dynamic overlay (overlay.hpp) the peer is drawn among the round's targets (the single one
// on one-peer graphs and matchings; none: no gossip that round), in async mode among the targets
// the agent drew for its own iteration.
// Adapt-then-combine (MixingOrder, sync mode) takes the optimizer step first, in
// after_gradient(): what travels and is mixed are the stepped models.
#pragma once

#include <optional>
#include <vector>

#include "sim/agents/agent_compression.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/peer_choice.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim {

enum class GossipMode { kPull, kPush };

class GossipSgd final : public Algorithm {
 public:
  /// Peers are drawn among the overlay's targets: a static graph's neighbours (a fixed
  /// overlay), or each round's (GossipPeers).
  GossipSgd(GossipMode mode, const TriggerSpec& trigger, Overlay overlay,
            const CompressionSpec& compression = {},
            MixingOrder order = MixingOrder::kCombineThenAdapt);

  void start(std::span<Agent> agents) override;
  void begin_round(int64_t k, SimTime now) override { peers_.begin_round(k, now); }
  void prepare(Agent& a) override;
  void after_gradient(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void archive(AgentArchive& ar) override;

  /// Push-sum weight of agent i (1 at start; the weights of all agents always sum to n).
  double weight(AgentId i) const { return state_[i.value].weight; }

 private:
  struct PerAgent : GossipTurn {
    std::vector<Message> inbox;  // pull replies / pushed models of this iteration
    double weight = 1.0;         // push-sum weight
  };

  GossipMode mode_;
  MixingOrder order_;
  GossipPeers peers_;
  AgentCompression compression_;  // naive: models travel as C(x)
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
