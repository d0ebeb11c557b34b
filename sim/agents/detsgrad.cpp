#include "sim/agents/detsgrad.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/error.hpp"

namespace dlsim {

Detsgrad::Detsgrad(const DetsgradSpec& spec, const TriggerSpec& trigger, const topo::Graph& graph)
    : spec_(spec), trigger_(trigger), graph_(graph) {}

void Detsgrad::start(std::span<Agent> agents) {
  DLSIM_CHECK(agents.size() == graph_.node_count(), "{} agents on a graph of {} nodes",
              agents.size(), graph_.node_count());
  state_.assign(agents.size(), PerAgent{});
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    s.held.assign(graph_.degree(a.id.value), nullptr);
    s.held_sum = ParamVector::Zero(a.x.size());
    s.consensus = ParamVector::Zero(a.x.size());
  }
}

double Detsgrad::drift_norm(const Agent& a) const {
  const PerAgent& s = state_[a.id.value];
  if (!s.broadcast) return std::numeric_limits<double>::infinity();
  const auto diff = a.x - *s.broadcast;
  switch (trigger_.spec().norm) {
    case DriftNorm::kL1: return diff.lpNorm<1>();
    case DriftNorm::kLinf: return diff.lpNorm<Eigen::Infinity>();
    case DriftNorm::kL2: break;
  }
  return diff.norm();
}

void Detsgrad::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const int64_t k = a.iteration;
  s.drift = trigger_.needs_drift() ? drift_norm(a) : 0.0;
  const bool fire = trigger_.decide({k, s.drift, spec_.alpha.at(k)}, a.trigger_rng);
  // The copy is made here, in the parallel phase; sending it later only shares the pointer.
  s.pending = fire ? std::make_shared<const ParamVector>(a.x) : nullptr;
}

void Detsgrad::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.pending) return;
  ++a.events;
  s.broadcast = std::move(s.pending);
  s.dirty = true;
  for (uint32_t j : graph_.neighbors(a.id.value))
    out.send(Message{MessageKind::kParams, a.id, AgentId{j}, s.broadcast, 0.0, 0,
                     payload_bytes(*s.broadcast)});
}

void Detsgrad::receive(Agent& a, const Message& m, Outbox&) {
  DLSIM_CHECK(m.kind == MessageKind::kParams && m.params, "DETSGRAD got a message of kind {}",
              static_cast<int>(m.kind));
  const auto neighbours = graph_.neighbors(a.id.value);
  const auto it = std::lower_bound(neighbours.begin(), neighbours.end(), m.from.value);
  DLSIM_CHECK(it != neighbours.end() && *it == m.from.value, "message from non-neighbour {}",
              m.from.value);
  PerAgent& s = state_[a.id.value];
  s.held[static_cast<size_t>(it - neighbours.begin())] = m.params;
  s.dirty = true;
}

void Detsgrad::refresh(PerAgent& s) const {
  s.held_count = 0;
  for (const Snapshot& copy : s.held) s.held_count += copy ? 1 : 0;
  // Before i's first broadcast, x^_i is its own state (nothing differs from what it would send).
  const bool from_broadcast = spec_.consensus == ConsensusBase::kBroadcast && s.broadcast;
  ParamVector& out = from_broadcast ? s.consensus : s.held_sum;
  const float held = static_cast<float>(s.held_count);
  // One pass in cache-sized blocks: out = held * x^_i - sum_j x^_j (broadcast) or sum_j x^_j
  // (state), neighbours in order. The models are larger than the caches, so passes, not
  // flops, are what this costs.
  constexpr Eigen::Index kBlock = 2048;
  for (Eigen::Index start = 0; start < out.size(); start += kBlock) {
    const Eigen::Index len = std::min(kBlock, out.size() - start);
    auto block = out.segment(start, len);
    if (from_broadcast) block = held * s.broadcast->segment(start, len);
    else block.setZero();
    for (const Snapshot& copy : s.held) {
      if (!copy) continue;
      if (from_broadcast) block -= copy->segment(start, len);
      else block += copy->segment(start, len);
    }
  }
  s.dirty = false;
}

void Detsgrad::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const int64_t k = a.iteration;
  if (s.dirty) refresh(s);
  const float beta = static_cast<float>(spec_.beta.at(k));
  const float alpha_s = static_cast<float>(spec_.alpha.at(k) * spec_.gradient_scale);
  if (spec_.consensus == ConsensusBase::kBroadcast && s.broadcast) {
    a.x.noalias() -= beta * s.consensus + alpha_s * a.g;  // one pass over the parameters
  } else {
    // sum_j (x_i - x^_j) = held * x_i - sum_j x^_j, with x_i this iteration's state.
    const float held = static_cast<float>(s.held_count);
    a.x = a.x - beta * (held * a.x - s.held_sum) - alpha_s * a.g;
  }
}

}  // namespace dlsim
