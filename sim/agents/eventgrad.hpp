// EventGraD (Ghosh, Aquino, Gupta 2021; docs/algorithms.md, "EventGraD"): D-PSGD's averaging with
// per-tensor event-triggered sends. Every iteration agent i averages each tensor with the copies
// last received and steps with its gradient at the x it had before averaging:
//   x_i <- W_ii x_i + sum_j W_ij x^_j - step(g_i(x_i))   (a copy not yet received counts as x_i)
// and sends only the tensors whose trigger fired (tensor_events.hpp: the adaptive threshold as
// published, or a threshold per tensor); neighbours replace only the tensors that arrived.
// Its copies are per tensor and per neighbour, for good: it runs on a static overlay only.
// A robust rule (set_aggregation) may replace the weighted mean, as in D-PSGD (mixing_step.hpp).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/tensor_events.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

class Eventgrad final : public Algorithm {
 public:
  /// W: the overlay's weights. Precondition: the overlay is static (the loader refuses a dynamic
  /// topology: a new neighbour would hold no tensors to update); per_tensor(trigger) holds.
  Eventgrad(Overlay overlay, const TriggerSpec& trigger);
  /// Before start(): the held copies are combined by `rule` (every neighbourhood plus the agent
  /// must pass refusal()), with balance's progress = iteration / `iterations`. kMean keeps the
  /// weighted mean.
  void set_aggregation(const AggregationSpec& rule, int64_t iterations) {
    aggregation_ = rule;
    iterations_ = iterations;
  }

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
    // A robust rule's scratch, sized in start(); not inline: most agents have none.
    std::unique_ptr<AggregationWorkspace> robust;
  };

  Overlay overlay_;
  TensorEvents events_;
  std::vector<PerAgent> state_;
  AggregationSpec aggregation_;
  int64_t iterations_ = 0;  // the run's T, for balance's progress t / T
};

}  // namespace dlsim
