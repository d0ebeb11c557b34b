// Elastic Gossip (Pramod 2018; docs/algorithms.md, "Elastic Gossip"). When its trigger fires, agent
// i picks a random neighbour j; both send each other their parameters (two full-size messages) and
// both move: x_i <- x_i - step_i - alpha * sum_{j in P_i} (x_i - x_j), where P_i is i's own peer
// plus every agent that picked i, the x are values before this iteration's optimizer step, and the
// optimizer's momentum is not touched by the pull. alpha = 0.5 lands a pair on its midpoint. In
// sync mode, when i and j pick each other in the same round, each one's kParams answers the
// other's: the pair exchanges once (two messages, not four). In async mode a receiver cannot tell
// whether its own current pick of the sender is the same exchange (the sender may have moved on
// since), so every kParams is answered: a mutual pick costs four messages there, and no pick is
// ever left unanswered. On a dynamic overlay (overlay.hpp) the peer is drawn among the round's
// targets (the single one on one-peer graphs and matchings; none: no pick that round), in async
// mode among the targets the agent drew for its own iteration; the exchange is still two-way.
#pragma once

#include <optional>
#include <vector>

#include "sim/agents/agent_compression.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/peer_choice.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim {

class ElasticGossip final : public Algorithm {
 public:
  /// Peers are drawn among the overlay's targets: a static graph's neighbours (a fixed
  /// overlay), or each round's, or in async mode each agent's own iteration's (GossipPeers).
  ElasticGossip(double alpha, const TriggerSpec& trigger, Overlay overlay, TimeMode mode,
                const CompressionSpec& compression = {});

  void start(std::span<Agent> agents) override;
  void begin_round(int64_t k, SimTime now) override { peers_.begin_round(k, now); }
  void prepare(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void archive(AgentArchive& ar) override;

 private:
  struct PerAgent : GossipTurn {    // current: x_i before this iteration's step
    std::vector<Message> partners;  // one message per member of P_i
    ParamVector pull;               // workspace: sum_{j in P_i} (x_i - x_j)
  };

  void add_partner(PerAgent& s, const Message& m);

  double alpha_;
  GossipPeers peers_;
  TimeMode mode_;
  AgentCompression compression_;  // naive: models travel as C(x)
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
