#include "sim/agents/overlay.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

Overlay::Overlay(const topo::Graph& graph, topo::MixingRule rule)
    : n_(graph.node_count()), matching_rng_(0) {
  set_symmetric(topo::MixingWeights(graph, rule));
}

Overlay::Overlay(const topo::DynamicSpec& spec, std::vector<topo::Graph> graphs, uint32_t n,
                 topo::MixingRule rule, uint64_t seed, TimeMode clock)
    : n_(n),
      dynamic_(true),
      spec_(spec),
      graphs_(std::move(graphs)),
      matching_rng_(seed, "matching", 0) {
  DLSIM_CHECK(n >= 2, "a dynamic overlay of {} agents", n);
  for (const topo::Graph& g : graphs_)
    DLSIM_CHECK(g.node_count() == n, "a graph of {} nodes for {} agents", g.node_count(), n);
  if (spec.kind == topo::DynamicKind::kSequence)
    for (const topo::Graph& g : graphs_) sequence_weights_.emplace_back(g, rule);
  if (spec.kind == topo::DynamicKind::kEpidemic)
    for (uint32_t i = 0; i < n; ++i) agent_rng_.emplace_back(seed, "epidemic", i);
  if (clock == TimeMode::kAsync) {
    // A sequence switches every agent's graph at once and weighs it (Metropolis), which needs
    // a common round; parse_scenario.cpp refuses it in async mode.
    DLSIM_CHECK(spec.kind != topo::DynamicKind::kSequence, "a sequence in async mode");
    per_agent_ = true;
    stride_ = spec.kind == topo::DynamicKind::kEpidemic ? spec.s : 1;
    own_.assign(size_t{n} * stride_, 0);
    own_count_.assign(n, 0);
    // A stream per agent: its draws depend on its own iterations only, not on who ran before.
    if (spec.kind == topo::DynamicKind::kRandomMatching)
      for (uint32_t i = 0; i < n; ++i) agent_rng_.emplace_back(seed, "pairwise", i);
  }
  // Until the first round: nobody talks (the driver calls begin_round before round 0).
  out_begin_.assign(n + 1, 0);
  in_begin_.assign(n + 1, 0);
  self_weight_.assign(n, 1.0);
}

bool Overlay::begin_round(int64_t k, SimTime now) {
  if (!dynamic_) return false;
  switch (spec_.kind) {
    case topo::DynamicKind::kOnePeerExponential:
      set_one_peer(k);
      break;
    case topo::DynamicKind::kRandomMatching:
      set_matching();
      break;
    case topo::DynamicKind::kEpidemic:
      set_epidemic();
      break;
    case topo::DynamicKind::kSequence: {
      const size_t index = sequence_index(k, now);
      if (index == current_) return false;
      current_ = index;
      set_symmetric(sequence_weights_[index]);
      break;
    }
  }
  ++generation_;
  return true;
}

void Overlay::begin_iteration(uint32_t i, int64_t k) {
  if (!per_agent_) return;
  const std::span<uint32_t> mine = std::span<uint32_t>(own_).subspan(size_t{i} * stride_, stride_);
  switch (spec_.kind) {
    case topo::DynamicKind::kOnePeerExponential:  // by the agent's own iteration count
      mine[0] = topo::one_peer_target(n_, k, i);
      own_count_[i] = 1;
      return;
    case topo::DynamicKind::kEpidemic:
      topo::epidemic_targets(n_, i, agent_rng_[i], mine);
      own_count_[i] = stride_;
      return;
    case topo::DynamicKind::kRandomMatching: {
      // Without rounds there is no matching to draw: one random edge at i, pairwise gossip.
      const uint32_t j = pairwise_target(i);
      mine[0] = j;
      own_count_[i] = j == i ? 0 : 1;
      return;
    }
    case topo::DynamicKind::kSequence:
      break;
  }
  DLSIM_CHECK(false, "a sequence in async mode");
}

// A neighbour of i in the base graph (all others without one) drawn uniformly; i when it has none.
uint32_t Overlay::pairwise_target(uint32_t i) {
  RandomStream& rng = agent_rng_[i];
  if (graphs_.empty()) {
    const auto j = static_cast<uint32_t>(rng.below(n_ - 1));
    return j >= i ? j + 1 : j;
  }
  const auto neighbours = graphs_.front().neighbors(i);
  if (neighbours.empty()) return i;
  return neighbours[rng.below(neighbours.size())];
}

size_t Overlay::sequence_index(int64_t k, SimTime now) const {
  const size_t count = sequence_weights_.size();
  if (spec_.every > 0) return static_cast<size_t>((k / spec_.every) % static_cast<int64_t>(count));
  // The last member whose start time has come (at[0] = 0).
  const auto it = std::upper_bound(spec_.at.begin(), spec_.at.end(), now);
  return static_cast<size_t>(it - spec_.at.begin()) - 1;
}

void Overlay::set_symmetric(const topo::MixingWeights& w) {
  out_begin_.assign(1, 0);
  out_.clear();
  in_weight_.clear();
  self_weight_.resize(n_);
  for (uint32_t i = 0; i < n_; ++i) {
    out_.insert(out_.end(), w.neighbors(i).begin(), w.neighbors(i).end());
    in_weight_.insert(in_weight_.end(), w.weights(i).begin(), w.weights(i).end());
    out_begin_.push_back(static_cast<uint32_t>(out_.size()));
    self_weight_[i] = w.self_weight(i);
  }
  in_ = out_;  // undirected: i hears exactly whom it talks to
  in_begin_ = out_begin_;
}

void Overlay::set_matching() {
  const topo::Graph* base = graphs_.empty() ? nullptr : &graphs_.front();
  partner_.resize(n_);
  topo::random_matching(base, matching_rng_, workspace_, partner_);
  out_begin_.resize(n_ + 1);
  out_.clear();
  in_weight_.clear();
  for (uint32_t i = 0; i < n_; ++i) {
    out_begin_[i] = static_cast<uint32_t>(out_.size());
    const bool matched = partner_[i] != i;
    if (matched) {
      out_.push_back(partner_[i]);
      in_weight_.push_back(0.5);
    }
    self_weight_[i] = matched ? 0.5 : 1.0;
  }
  out_begin_[n_] = static_cast<uint32_t>(out_.size());
  in_ = out_;
  in_begin_ = out_begin_;
}

void Overlay::set_one_peer(int64_t k) {
  out_begin_.resize(n_ + 1);
  in_begin_.resize(n_ + 1);
  out_.resize(n_);
  in_.resize(n_);
  in_weight_.assign(n_, 0.5);
  for (uint32_t i = 0; i < n_; ++i) {
    out_begin_[i] = in_begin_[i] = i;
    out_[i] = topo::one_peer_target(n_, k, i);
    in_[out_[i]] = i;  // the target map is a bijection: each agent hears exactly one
    self_weight_[i] = 0.5;
  }
  out_begin_[n_] = in_begin_[n_] = n_;
}

void Overlay::set_epidemic() {
  const uint32_t s = spec_.s;
  out_begin_.resize(n_ + 1);
  out_.resize(static_cast<size_t>(n_) * s);
  for (uint32_t i = 0; i < n_; ++i) {
    out_begin_[i] = i * s;
    topo::epidemic_targets(n_, i, agent_rng_[i], std::span<uint32_t>(out_).subspan(i * s, s));
  }
  out_begin_[n_] = n_ * s;
  // Receivers' lists by counting: senders visited in ascending order keep every list ascending.
  in_begin_.assign(n_ + 1, 0);
  for (uint32_t t : out_) ++in_begin_[t + 1];
  for (uint32_t i = 0; i < n_; ++i) in_begin_[i + 1] += in_begin_[i];
  in_.resize(out_.size());
  workspace_.assign(in_begin_.begin(), in_begin_.end() - 1);  // next free place per receiver
  for (uint32_t i = 0; i < n_; ++i)
    for (uint32_t t : targets(i)) in_[workspace_[t]++] = i;
  in_weight_.resize(in_.size());
  for (uint32_t i = 0; i < n_; ++i) {
    const uint32_t received = in_begin_[i + 1] - in_begin_[i];
    const double w = 1.0 / (1.0 + received);
    std::fill(in_weight_.begin() + in_begin_[i], in_weight_.begin() + in_begin_[i + 1], w);
    self_weight_[i] = w;
  }
}

void Overlay::archive(StateArchive& ar) {
  ar.value(generation_);
  uint64_t current = current_;
  ar.value(current);
  matching_rng_.archive(ar);
  for (RandomStream& r : agent_rng_) r.archive(ar);
  if (per_agent_) {
    ar.sized_vector(own_count_, "another overlay: per-agent targets differ");
    ar.sized_vector(own_, "another overlay: per-agent targets differ");
    if (ar.loading())
      for (uint32_t c : own_count_)
        if (c > stride_) ar.fail("another overlay: too many targets");
  }
  // Loading: a sequence's weights are rebuilt for the saved member (a fresh overlay holds none).
  if (ar.loading() && current != current_ && current < sequence_weights_.size()) {
    current_ = current;
    set_symmetric(sequence_weights_[current]);
  }
}

}  // namespace dlsim
