// DETSGRAD (George & Gurram 2019): event-triggered consensus + innovation. Agent i broadcasts x_i
// to its neighbours only when ||x_i - x^_i|| > v_k (x^_i: the value it last broadcast), and every
// neighbour holds that copy until the next event. Update (ALGORITHMS.md, "DETSGRAD"):
//   x_i <- x_i - beta_k * sum_{j in N_i} (x^_i - x^_j) - alpha_k * s * g_i.
#pragma once

#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/trigger.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

enum class ConsensusBase { kBroadcast, kState };  // x^_i - x^_j, or x_i - x^_j

struct DetsgradSpec {
  DecaySchedule alpha{0.1, 1.0, 1e-5};     // innovation step alpha_k
  DecaySchedule beta{0.2525, 0.1, 1e-5};   // consensus step beta_k
  double gradient_scale = 1.0;             // s: 1, or n (n*g_i estimates the full gradient)
  ConsensusBase consensus = ConsensusBase::kBroadcast;
};

class Detsgrad final : public Algorithm {
 public:
  /// graph: the agents' communication graph (outlives this object).
  Detsgrad(const DetsgradSpec& spec, const TriggerSpec& trigger, const topo::Graph& graph);

  std::string_view name() const override { return "detsgrad"; }
  void start(std::span<Agent> agents) override;
  void prepare(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;

  /// The drift ||x_i - x^_i|| computed by the last prepare() (the trigger's statistic).
  double last_drift(AgentId i) const { return state_[i.value].drift; }

 private:
  struct PerAgent {
    Snapshot broadcast;             // x^_i: what i last sent (null before its first event)
    std::vector<Snapshot> held;     // x^_j per neighbour, in neighbour order (null: none yet)
    Snapshot pending;               // prepared snapshot to send, when the trigger fired
    // Cached consensus inputs, recomputed only after an event changed a copy (own or held):
    // between events the consensus term stays fixed, so an iteration costs one vector pass.
    ParamVector held_sum;           // kState: sum_j x^_j over held copies, in neighbour order
    ParamVector consensus;          // kBroadcast: held * x^_i - sum_j x^_j
    int held_count = 0;
    bool dirty = true;
    double drift = 0.0;
  };

  double drift_norm(const Agent& a) const;
  void refresh(PerAgent& s) const;

  DetsgradSpec spec_;
  Trigger trigger_;
  const topo::Graph& graph_;
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
