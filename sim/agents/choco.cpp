#include "sim/agents/choco.hpp"

#include <algorithm>
#include <cmath>

#include "sim/agents/checkpoint_io.hpp"
#include "sim/agents/neighbour_index.hpp"
#include "sim/core/error.hpp"

namespace dlsim {
namespace {

double norm_of(const ParamVector& v, DriftNorm norm) {
  switch (norm) {
    case DriftNorm::kL2: return std::sqrt(static_cast<double>(v.squaredNorm()));
    case DriftNorm::kL1: return static_cast<double>(v.lpNorm<1>());
    case DriftNorm::kLinf: return static_cast<double>(v.lpNorm<Eigen::Infinity>());
  }
  return 0.0;
}

}  // namespace

Choco::Choco(const topo::Graph& graph, topo::MixingRule rule, double gamma,
             const TriggerSpec& trigger, const CompressionSpec& compression, int64_t local_steps)
    : weights_(graph, rule),
      gamma_(gamma),
      local_steps_(local_steps),
      trigger_(trigger),
      compression_(compression) {
  DLSIM_CHECK(local_steps >= 1, "local_steps {}", local_steps);
}

void Choco::start(std::span<Agent> agents) {
  DLSIM_CHECK(agents.size() == weights_.node_count(), "{} agents, mixing weights for {}",
              agents.size(), weights_.node_count());
  state_.assign(agents.size(), PerAgent{});
  compression_.start(agents);
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    s.own = ParamVector::Zero(a.x.size());
    s.held.assign(weights_.neighbors(a.id.value).size(), ParamVector::Zero(a.x.size()));
  }
}

void Choco::prepare(Agent& a) { state_[a.id.value].stepped = false; }

void Choco::after_gradient(Agent& a) {
  PerAgent& s = state_[a.id.value];
  a.learner->apply_step(a.x, a.g, a.iteration);
  s.stepped = true;
  s.pending = nullptr;
  if (a.iteration % local_steps_ != 0) return;
  // x - x^_i, in a buffer per thread: the difference lives only until it is compressed.
  thread_local ParamVector diff;
  diff = a.x - s.own;
  s.drift = trigger_.needs_drift() ? norm_of(diff, trigger_.spec().norm) : 0.0;
  // Every agent decides at every communication round (an outside decider counts on it), even
  // one with nobody to send to.
  if (!trigger_.decide(a.id, {a.iteration, s.drift, 0.0}, a.trigger_rng) ||
      weights_.neighbors(a.id.value).empty())
    return;
  s.pending = compression_.delta(a, std::span<const float>(diff.data(),
                                                           static_cast<size_t>(diff.size())));
  s.pending->add_to(std::span<float>(s.own.data(), static_cast<size_t>(s.own.size())));
}

void Choco::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  DLSIM_CHECK(s.stepped, "CHOCO's local step did not run before agent {} communicated (async?)",
              a.id.value);
  if (!s.pending) return;
  out.event(a);
  for (uint32_t j : weights_.neighbors(a.id.value))
    out.send(compression_.message(MessageKind::kParams, a, AgentId{j}, s.pending));
  s.pending = nullptr;
}

void Choco::receive(Agent& a, const Message& m, Outbox&) {
  DLSIM_CHECK(m.kind == MessageKind::kParams && m.delta, "CHOCO got a message of kind {}",
              static_cast<int>(m.kind));
  const size_t n = neighbour_index(weights_.neighbors(a.id.value), m.from);
  ParamVector& copy = state_[a.id.value].held[n];
  m.delta->add_to(std::span<float>(copy.data(), static_cast<size_t>(copy.size())));
}

void Choco::update(Agent& a) {
  if (a.iteration % local_steps_ != 0) return;  // a local step only
  PerAgent& s = state_[a.id.value];
  const auto w = weights_.weights(a.id.value);
  // sum_j w_ij (x^_j - x^_i), neighbour by neighbour in neighbour order (floats are not
  // associative), in one pass over x per neighbour.
  for (size_t n = 0; n < s.held.size(); ++n)
    a.x += static_cast<float>(gamma_ * w[n]) * (s.held[n] - s.own);
}

// The drift is recomputed at the next decision; messages in flight are the swarm's.
void Choco::save(SnapshotSaver& out) const {
  StateWriter& w = out.out();
  w.put<uint64_t>(state_.size());
  for (const PerAgent& s : state_) {
    save_params(s.own, w);
    w.put<uint64_t>(s.held.size());
    for (const ParamVector& h : s.held) save_params(h, w);
    out.put(s.pending);
    w.put(s.stepped);
  }
}

void Choco::load(SnapshotLoader& in) {
  StateReader& r = in.in();
  if (r.get<uint64_t>() != state_.size()) r.fail("another number of agents");
  for (PerAgent& s : state_) {
    load_params(s.own, r);
    if (r.get<uint64_t>() != s.held.size()) r.fail("another graph: a list of copies differs");
    for (ParamVector& h : s.held) load_params(h, r);
    s.pending = in.get_delta();
    s.stepped = r.get<bool>();
  }
}

}  // namespace dlsim
