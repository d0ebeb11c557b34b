// The communication graph of the current iteration: whom each agent sends to, whose copies it
// averages and with which weights. Static topologies fix it once (the graph and its mixing
// weights); dynamic ones (topologies/dynamic_graphs.hpp) draw it anew when the driver starts a
// round (begin_round), from streams (seed, purpose, agent), so it is the same for every thread
// count. The physical network underneath does not change: a message between agents that are
// not physically adjacent is routed (sim/network/router.hpp).
// Weights per kind (topologies/README.md, "Dynamic topologies"): static graphs and sequence
// members use the algorithm's mixing rule (Metropolis by default); a matching averages pairs
// (1/2, 1/2); one-peer exponential: x_i <- (x_i + x_{i - 2^m}) / 2; epidemic: an agent averages
// its own model and every model it received, uniformly (1 / (1 + received)).
// In async mode there are no rounds: each agent draws its own targets when it starts an
// iteration (begin_iteration), from its own stream; receivers average whatever arrived
// (topologies/README.md, "Dynamic topologies in async mode").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/core/time.hpp"
#include "topologies/dynamic_graphs.hpp"
#include "topologies/mixing.hpp"

namespace dlsim {

class Overlay {
 public:
  /// A static overlay: `graph` with `rule`'s weights, the same every iteration; every agent's
  /// targets and sources are then its neighbours in `graph`, ascending (the weights matter only
  /// to the algorithms that mix by them). Throws InputError as topo::MixingWeights does.
  explicit Overlay(const topo::Graph& graph,
                   topo::MixingRule rule = topo::MixingRule::kMetropolisHastings);
  /// A dynamic overlay over n agents. `graphs` are spec.graphs built (random_matching's base,
  /// sequence's members), each of n nodes. Throws InputError when `rule` cannot weigh a sequence
  /// member (uniform on an irregular graph). `clock` kAsync: per-agent draws (begin_iteration);
  /// a sequence is then a broken invariant (the loader refuses it).
  Overlay(const topo::DynamicSpec& spec, std::vector<topo::Graph> graphs, uint32_t n,
          topo::MixingRule rule, uint64_t seed, TimeMode clock = TimeMode::kSync);

  bool dynamic() const { return dynamic_; }
  /// Async mode on a dynamic overlay: each agent draws its own targets, and has no sources or
  /// weights (receivers average what arrived, uniformly).
  bool per_agent() const { return per_agent_; }
  uint32_t node_count() const { return n_; }
  /// Makes iteration k's graph current (sync rounds: called once per round, before any agent
  /// prepares; `now` is the round's start, for sequences switching at simulated times).
  /// Serial. Returns true when the graph may differ from the previous one.
  bool begin_round(int64_t k, SimTime now);

  /// Per-agent mode: draws agent i's targets for its own iteration k from its own stream,
  /// leaving every other agent's; serial (async prepare() runs in event order, so the draws do
  /// not depend on the thread count). Does nothing otherwise.
  void begin_iteration(uint32_t i, int64_t k);

  /// Whom agent i sends to this iteration, ascending.
  std::span<const uint32_t> targets(uint32_t i) const {
    if (per_agent_) return {own_.data() + size_t{i} * stride_, own_count_[i]};
    return row(out_, out_begin_, i);
  }
  /// A static overlay's neighbours of agent i, ascending: its targets and its sources, for
  /// good. Precondition: !dynamic().
  std::span<const uint32_t> neighbours(uint32_t i) const { return row(out_, out_begin_, i); }
  /// Whose copies agent i averages this iteration, ascending; parallel to weights(i).
  std::span<const uint32_t> sources(uint32_t i) const { return row(in_, in_begin_, i); }
  std::span<const double> weights(uint32_t i) const {
    return {in_weight_.data() + in_begin_[i], in_weight_.data() + in_begin_[i + 1]};
  }
  double self_weight(uint32_t i) const { return self_weight_[i]; }
  /// Incremented whenever begin_round() may have changed the graph (never for a static one).
  uint64_t generation() const { return generation_; }

  /// The draws' positions and the current graph's index, for checkpoints (taken between rounds:
  /// the next begin_round() draws the next graph from them).
  void archive(StateArchive& ar);

 private:
  static std::span<const uint32_t> row(const std::vector<uint32_t>& items,
                                       const std::vector<uint32_t>& begin, uint32_t i) {
    return {items.data() + begin[i], items.data() + begin[i + 1]};
  }
  void set_symmetric(const topo::MixingWeights& w);
  void set_matching();
  void set_one_peer(int64_t k);
  void set_epidemic();
  size_t sequence_index(int64_t k, SimTime now) const;
  uint32_t pairwise_target(uint32_t i);

  uint32_t n_ = 0;
  bool dynamic_ = false;
  topo::DynamicSpec spec_;
  std::vector<topo::Graph> graphs_;
  std::vector<topo::MixingWeights> sequence_weights_;
  size_t current_ = static_cast<size_t>(-1);  // sequence: index of the current member
  uint64_t generation_ = 0;
  RandomStream matching_rng_;
  std::vector<RandomStream> agent_rng_;  // epidemic: (seed, "epidemic", agent); async
                                         // random_matching: (seed, "pairwise", agent)
  std::vector<uint32_t> partner_;        // random_matching: partner (or self) per agent
  std::vector<uint32_t> workspace_;      // shuffled orders, fill positions

  // The current graph, CSR: out_[out_begin_[i] .. out_begin_[i + 1]) are i's targets.
  std::vector<uint32_t> out_begin_, out_;
  std::vector<uint32_t> in_begin_, in_;
  std::vector<double> in_weight_, self_weight_;

  // Per-agent mode: agent i's targets are own_[i * stride_ ..][0 .. own_count_[i]), ascending.
  bool per_agent_ = false;
  uint32_t stride_ = 0;
  std::vector<uint32_t> own_, own_count_;
};

}  // namespace dlsim
