// CHOCO-SGD (Koloskova, Stich, Jaggi 2019; docs/algorithms.md, "CHOCO-SGD"): compressed gossip
// with error feedback. Every agent keeps a public copy x^_i of its model and one of each
// neighbour's, x^_j, all starting at 0. One iteration of agent i:
//   x_i <- x_i - step(g_i)                       (local step: after_gradient)
//   if the trigger fires: q_i = C(x_i - x^_i), x^_i += q_i, send q_i to the neighbours
//   x^_j += q_j for every q_j received           (each holder applies the same q: receive)
//   x_i <- x_i + gamma sum_j w_ij (x^_j - x^_i)  (consensus: update)
// The copies of x^_i stay equal at sender and receivers as long as no message is lost, so what C
// drops is sent later (error feedback by construction), and the agents' average of x is kept
// exactly by the consensus step (W symmetric). A lost q leaves that receiver's copy behind for
// good, as it would on a real network. Runs in sync mode: the local step must come before the
// send, which async mode's order (send, then compute) does not give.
// On a dynamic overlay (overlay.hpp; local_steps 1) i sends q_i to the round's targets and mixes
// its sources' copies with the overlay's weights. A copy lives as long as its edge: when j -> i
// appears (it was not in the previous round's graph), j sends i its whole x^_j (after this
// round's q_j; uncompressed, a message but not an event) instead of q_j, and i's copy becomes it
// (unless x^_j is still 0: i's copy then starts at 0, as on a static graph); when the edge goes,
// i drops the copy. A holder whose whole copy was lost has none until the edge comes back: it
// leaves that source out and ignores its q's.
#pragma once

#include <algorithm>
#include <vector>

#include "sim/agents/agent_compression.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/trigger.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

class Choco final : public Algorithm {
 public:
  /// gamma: consensus step size in (0, 1]; W: the overlay's weights (a static graph is a fixed
  /// overlay). With local_steps H, only iterations k with k % H == 0 decide, send and apply the
  /// consensus step; the others are local steps (SPARQ-SGD's H). A dynamic overlay takes
  /// local_steps 1 (the loader refuses the rest: an edge would appear in a local step).
  Choco(Overlay overlay, double gamma, const TriggerSpec& trigger,
        const CompressionSpec& compression, int64_t local_steps = 1);

  void start(std::span<Agent> agents) override;
  void begin_round(int64_t k, SimTime now) override;
  void prepare(Agent& a) override;
  void after_gradient(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  bool set_trigger_decider(TriggerDecider& decider) override {
    trigger_.set_decider(decider);
    return true;
  }
  void archive(AgentArchive& ar) override;

  /// x^_i as agent i holds it, and agent i's copy of neighbour number n's (neighbour order; on
  /// a dynamic overlay source order, meaningful only while holds_copy).
  const ParamVector& public_copy(AgentId i) const { return state_[i.value].own; }
  const ParamVector& neighbour_copy(AgentId i, size_t n) const { return state_[i.value].held[n]; }
  bool holds_copy(AgentId i, size_t n) const {
    const PerAgent& s = state_[i.value];
    return s.have.empty() || s.have[n];
  }

 private:
  struct PerAgent {
    ParamVector own;                // x^_i
    std::vector<ParamVector> held;  // x^_j per neighbour, in neighbour order
    Delta pending;                  // q_i to send this iteration (null: the trigger did not fire)
    bool stepped = false;           // after_gradient ran this iteration
    double drift = 0.0;             // ||x_i - x^_i|| at the last decision (threshold trigger)
    // Dynamic overlay only: the sources `held` is parallel to (ascending), whether each copy is
    // held, the targets new this round (ascending), x^_i for them, and storage for new copies.
    std::vector<uint32_t> sources;
    std::vector<char> have;
    std::vector<uint32_t> fresh;
    Snapshot whole;
    SnapshotPool pool;
    std::vector<ParamVector> spare;
    bool published = false;  // x^_i has taken a q (it is no longer 0)
  };

  std::span<const uint32_t> targets(uint32_t i) const {
    return overlay_.dynamic() ? overlay_.targets(i) : overlay_.neighbours(i);
  }
  std::span<const uint32_t> sources(uint32_t i) const {
    return overlay_.dynamic() ? std::span<const uint32_t>(state_[i].sources)
                              : overlay_.neighbours(i);
  }
  std::span<const double> weights(uint32_t i) const { return overlay_.weights(i); }
  bool fresh_target(const PerAgent& s, uint32_t j) const {
    return overlay_.dynamic() && std::binary_search(s.fresh.begin(), s.fresh.end(), j);
  }

  Overlay overlay_;
  double gamma_;
  int64_t local_steps_;
  Trigger trigger_;
  AgentCompression compression_;
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
