#include "sim/agents/easgd.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <limits>

#include "sim/agents/agent_archive.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

Easgd::Easgd(double alpha, const TriggerSpec& trigger, TimeMode mode)
    : alpha_(alpha), trigger_(trigger), mode_(mode) {}

void Easgd::start(std::span<Agent> agents) {
  n_ = static_cast<uint32_t>(agents.size());
  state_.assign(n_, PerAgent{});
  // The mean in double: n identical float vectors (common init) give exactly that vector.
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(agents.front().x.size());
  for (const Agent& a : agents) mean += a.x.cast<double>();
  z_ = (mean / static_cast<double>(n_)).cast<float>();
  round_.reserve(n_);
}

double Easgd::drift_norm(const Agent& a) const {
  const PerAgent& s = state_[a.id.value];
  if (!s.sent) return std::numeric_limits<double>::infinity();
  const auto diff = a.x - *s.sent;
  switch (trigger_.spec().norm) {
    case DriftNorm::kL1:
      return diff.lpNorm<1>();
    case DriftNorm::kLinf:
      return diff.lpNorm<Eigen::Infinity>();
    case DriftNorm::kL2:
      break;
  }
  return diff.norm();
}

void Easgd::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const double drift = trigger_.needs_drift() ? drift_norm(a) : 0.0;
  const bool fire = trigger_.decide(a.id, {a.iteration, drift, alpha_}, a.trigger_rng);
  // The copy is made here, in the parallel phase; sending it only shares the pointer. The pool's
  // use counts are exact: other owners of i's copies (messages, the server while it reads one)
  // live in the event loop, which does not run concurrently with prepare().
  s.pending = nullptr;
  if (fire) s.pending = s.pool.take_copy(a.x);
}

void Easgd::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.pending) return;
  out.event(a);
  s.sent = std::move(s.pending);
  out.send(Message{MessageKind::kParams, a.id, server(), s.sent, payload_bytes(*s.sent)});
}

void Easgd::receive_service(const Message& m, Outbox& out) {
  DLSIM_CHECK(m.kind == MessageKind::kParams && m.to == server(),
              "EASGD server got message kind {} for node {}", static_cast<int>(m.kind), m.to.value);
  // In the event loop: the workers drop their d's in update(), never concurrently with it.
  auto delta = replies_.take(z_.size());
  delta->noalias() = static_cast<float>(alpha_) * (*m.params - z_);
  if (mode_ == TimeMode::kAsync)
    z_ += *delta;  // the paper's asynchronous update: at once
  else
    round_.push_back(Pending{m.from, delta});  // sync: z_k holds for the whole round
  out.send(Message{MessageKind::kElasticDelta, server(), m.from, delta, payload_bytes(*delta)});
}

void Easgd::receive(Agent& a, const Message& m, Outbox&) {
  DLSIM_CHECK(m.kind == MessageKind::kElasticDelta, "EASGD worker {} got message kind {}",
              a.id.value, static_cast<int>(m.kind));
  state_[a.id.value].deltas.push_back(m.params);
}

void Easgd::before_updates(std::span<Agent>) {
  // Sync mode, after the round's last arrival: z_{k+1} = z_k + alpha sum_i (x_i - z_k), summed in
  // sender order (float addition is not associative).
  std::stable_sort(round_.begin(), round_.end(),
                   [](const Pending& l, const Pending& r) { return l.from < r.from; });
  for (const Pending& p : round_) z_ += *p.delta;
  round_.clear();
}

void Easgd::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  a.learner->apply_step(a.x, a.g, a.iteration);
  for (const Snapshot& d : s.deltas) a.x -= *d;
  s.deltas.clear();
}

void Easgd::archive(AgentArchive& ar) {
  ar.params(z_);
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    ar.snapshot(s.pending);
    ar.snapshot(s.sent);
    ar.list(s.deltas);
  }
  ar.items(round_, [&](Pending& p) {
    ar.value(p.from);
    ar.snapshot(p.delta);
  });
}
}  // namespace dlsim
