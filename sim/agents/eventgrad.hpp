// EventGraD (Ghosh, Aquino, Gupta 2021; docs/algorithms.md, "EventGraD"): D-PSGD's averaging with
// per-tensor event-triggered sends. Every iteration agent i averages each tensor with the copies
// last received and steps with its gradient at the x it had before averaging:
//   x_i <- W_ii x_i + sum_j W_ij x^_j - step(g_i(x_i))   (a copy not yet received counts as x_i)
// and sends only the tensors whose trigger fired (tensor_events.hpp: the adaptive threshold as
// published, or a threshold per tensor); neighbours replace only the tensors that arrived.
#pragma once

#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/tensor_events.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

class Eventgrad final : public Algorithm {
 public:
  /// W by `rule` (InputError as for D-PSGD); trigger: per_tensor(trigger) holds.
  Eventgrad(const topo::Graph& graph, topo::MixingRule rule, const TriggerSpec& trigger)
      : weights_(graph, rule), events_(trigger) {}

  void start(std::span<Agent> agents) override;
  void prepare(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void archive(AgentArchive& ar) override;

  const TensorEvents& events() const { return events_; }
  /// x^_i as i's neighbours hold it (null before its first event), and i's copy of its
  /// neighbour number n's (null: none received yet).
  const ParamVector* public_copy(AgentId i) const { return state_[i.value].sent.get(); }
  const ParamVector* neighbour_copy(AgentId i, size_t n) const {
    return state_[i.value].copies.held[n].get();
  }

 private:
  struct PerAgent {
    Snapshot sent;      // x^_i: the last value sent of each tensor (zeros before its first send)
    Snapshot pending;   // x^_i after this iteration's event, when one fired
    Parts pending_parts;
    uint32_t events_sent = 0;  // each message carries its event's number (PartialCopies)
    PartialCopies copies;
    SnapshotPool pool;  // buffers of i's x^_i and of its own copies
    ParamVector mixed;  // workspace: W_ii x_i + sum_j W_ij x^_j
  };

  topo::MixingWeights weights_;
  TensorEvents events_;
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
