// Per-tensor triggers (EventGraD, Ghosh et al. 2021; docs/algorithms.md, "Per-tensor triggers"):
// each tensor of the parameter vector (a layer's weights, its bias) is checked on its own, and an
// event sends only the tensors that fired. Two rules:
// - threshold, granularity "layer": tensor p fires when ||x_p - x^_p|| > v_k (x^_p: its value at
//   its last send; the same v_k as the whole-model threshold, in the trigger's norm);
// - adaptive (EventGraD's): every iteration thr_p <- thr_p * horizon, then tensor p fires when
//   | ||x_p|| - ||x_p at its last send|| | >= thr_p, or always while k < warmup; on a send,
//   slope = that change / iterations since the previous send, and thr_p = the mean of the last
//   two slopes (the first send's predecessor counts as 0).
// Senders keep x^ as one vector: its fired tensors are replaced at each event, and the message
// shares that vector and lists the tensors it carries; a receiver copies only those
// (PartialCopies).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/agents/learner.hpp"
#include "sim/agents/message.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim {

class AgentArchive;
class StateArchive;

class TensorEvents {
 public:
  /// spec: per_tensor(spec) holds.
  explicit TensorEvents(const TriggerSpec& spec);

  /// layout: the tensors that tile vectors of `size` parameters, in memory order (empty: the
  /// whole vector is one tensor).
  void start(size_t agents, std::vector<TensorRange> layout, Eigen::Index size);
  const std::vector<TensorRange>& layout() const { return layout_; }

  /// The tensors agent i sends at iteration k, in layout order (empty: no event). x: its
  /// parameters now; sent: x^, what its neighbours hold (null before its first event: every
  /// tensor fires unless the threshold is infinite). alpha_k: the step size
  /// (ThresholdForm::kAlpha). The list is shared by the event's messages; its buffer is reused once
  /// nobody holds it. Touches only agent i's state: safe in the parallel phase.
  Parts decide(uint32_t i, int64_t k, const ParamVector& x, const ParamVector* sent,
               double alpha_k);

  /// Payload bytes of a message carrying `parts`: 4 per parameter of those tensors, and a mask of
  /// one bit per tensor saying which (none when the vector is one tensor).
  uint64_t payload_bytes(const std::vector<uint32_t>& parts) const;
  /// x^ after an event: `base` (null before the first: zeros) with the tensors in `parts`
  /// replaced by x's. From `pool`, whose use counts must be exact (SnapshotPool).
  Snapshot next_sent(SnapshotPool& pool, const ParamVector* base, const ParamVector& x,
                     const std::vector<uint32_t>& parts) const;
  /// copy's tensors in `parts` <- from's.
  void copy_parts(ParamVector& copy, const ParamVector& from,
                  const std::vector<uint32_t>& parts) const;

  /// The adaptive threshold thr_p of agent i's tensor p after its last decision (kAdaptive).
  double threshold(uint32_t i, size_t p) const {
    return tensors_[i * layout_.size() + p].threshold;
  }

  /// For checkpoints; loading fails when the saved number of tensors or agents differs.
  void archive(StateArchive& ar);

 private:
  struct PerTensor {  // kAdaptive's memory of one tensor at one agent
    double threshold = 0.0;
    double last_norm = 0.0;  // ||x_p|| at its last send (0 before any)
    int64_t last_k = -1;     // the iteration of its last send
    double slopes[2] = {0.0, 0.0};
  };
  bool fires(PerTensor& t, int64_t k, const ParamVector& x, const ParamVector* sent,
             const TensorRange& r, double alpha_k) const;

  TriggerSpec spec_;
  Trigger rule_;  // granularity "layer": the whole-model threshold rule, per tensor
  std::vector<TensorRange> layout_;
  std::vector<PerTensor> tensors_;  // agent i's: [i * T, (i + 1) * T)
  std::vector<std::vector<std::shared_ptr<std::vector<uint32_t>>>> lists_;  // per agent, reused
};

/// What one agent holds of its neighbours' x^ under per-tensor events: a holder that received
/// every message of a sender shares the sender's x^ (the same bits as copying the parts into its
/// copy); after a lost message its copy is its own (from its pool) and later parts are copied in.
/// A copy that starts without the first message starts from the holder's own x.
class PartialCopies {
 public:
  void start(size_t neighbours) {
    held.assign(neighbours, nullptr);
    received.assign(neighbours, 0);
    own.assign(neighbours, 0);
  }
  /// Message m (numbered by its TensorParts' sequence from 1 per sender) from neighbour n arrived
  /// at an agent whose parameters are x.
  void receive(const TensorEvents& events, SnapshotPool& pool, size_t n, const Message& m,
               const ParamVector& x);
  /// For checkpoints; loading fails when the saved number of neighbours differs.
  void archive(AgentArchive& ar);

  std::vector<Snapshot> held;      // per neighbour (null: nothing yet)
  std::vector<uint32_t> received;  // the number of the last message per neighbour
  std::vector<char> own;           // the copy is this agent's own (a message was lost)
};

}  // namespace dlsim
