// Test harness for algorithm arithmetic: a quadratic learner with exact gradients and a lockstep
// round (prepare, gradient or fused local step, after_gradient, communicate, deliver in send
// order, update, with the collective hooks) with no network, so expected values can be derived
// by hand. The real drivers are tested with the network model.
#pragma once

#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/round_hooks.hpp"
#include "sim/agents/service_node.hpp"
#include "sim/agents/sync_fast_path.hpp"
#include "sim/agents/trigger.hpp"
#include "topologies/graph.hpp"

namespace dlsim::testing {

/// f(x) = 0.5 * ||x - c||^2: gradient x - c, exactly; optimizer step lr * g, or with
/// decay_every > 0 the decaying step lr / (1 + k / decay_every) * g.
class QuadraticLearner final : public Learner {
 public:
  QuadraticLearner(ParamVector c, float lr, double decay_every = 0.0)
      : c_(std::move(c)), lr_(lr), decay_every_(decay_every) {}
  float gradient(const ParamVector& x, ParamVector& g) override {
    g = x - c_;
    return 0.5f * g.squaredNorm();
  }
  void apply_step(ParamVector& x, const ParamVector& g, int64_t k) override {
    if (decay_every_ <= 0.0) {
      x -= lr_ * g;
      return;
    }
    x -= static_cast<float>(lr_ / (1.0 + static_cast<double>(k) / decay_every_)) * g;
  }
  void archive(StateArchive&) override {}  // stateless
  std::vector<TensorRange> parameter_tensors() const override { return tensors; }

  std::vector<TensorRange> tensors;  // what per-tensor triggers see (empty: one tensor)

 private:
  ParamVector c_;
  float lr_;
  double decay_every_;
};

/// Events per agent, counted across rounds.
using EventCounts = std::vector<int>;

class QueueOutbox final : public Outbox {
 public:
  explicit QueueOutbox(EventCounts* events = nullptr) : events_(events) {}
  void send(Message m) override {
    ++sent;
    queue.push_back(std::move(m));
  }
  void event(const Agent& a) override {
    if (!events_) return;
    if (events_->size() <= a.id.value) events_->resize(a.id.value + 1, 0);
    ++(*events_)[a.id.value];
  }
  std::deque<Message> queue;
  int sent = 0;

 private:
  EventCounts* events_;
};

inline ParamVector vec(std::initializer_list<float> values) {
  ParamVector v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (float x : values) v[i++] = x;
  return v;
}

/// Starting points and targets of `agents` quadratic agents with `dim` parameters each: smooth
/// waves that differ per agent, for tests whose vectors span several blocks of a pass.
struct WaveProblem {
  std::vector<ParamVector> x0, c;
};
inline WaveProblem wave_problem(uint32_t agents, Eigen::Index dim) {
  WaveProblem p;
  for (uint32_t i = 0; i < agents; ++i) {
    ParamVector xi(dim), ci(dim);
    for (Eigen::Index e = 0; e < dim; ++e) {
      xi[e] = static_cast<float>(std::sin(0.37 * static_cast<double>(e) + i));
      ci[e] = static_cast<float>(std::cos(0.11 * static_cast<double>(e) * (i + 1)));
    }
    p.x0.push_back(std::move(xi));
    p.c.push_back(std::move(ci));
  }
  return p;
}

/// Agents with quadratic learners; x0[i] initial parameters, c[i] targets; `tensors` the layout
/// their learners report (empty: one tensor).
inline std::vector<Agent> make_agents(const std::vector<ParamVector>& x0,
                                      const std::vector<ParamVector>& c, float lr = 0.1f,
                                      const std::vector<TensorRange>& tensors = {}) {
  std::vector<Agent> agents;
  for (size_t i = 0; i < x0.size(); ++i) {
    auto learner = std::make_unique<QuadraticLearner>(c[i], lr);
    learner->tensors = tensors;
    agents.emplace_back(AgentId{static_cast<uint32_t>(i)}, 1, std::move(learner), x0[i]);
  }
  return agents;
}

/// The compressed change a message carries (null: it carries none).
inline const CompressedVector* delta_of(const Message& m) {
  const CompressedChange* c = m.payload_if<CompressedChange>();
  return c ? c->delta.get() : nullptr;
}
/// The tensors a per-tensor message carries (null: it is not one).
inline const std::vector<uint32_t>* parts_of(const Message& m) {
  const TensorParts* p = m.payload_if<TensorParts>();
  return p ? p->parts.get() : nullptr;
}

/// Decides whether a message arrives (false: it is lost).
using Delivery = std::function<bool(const Message&)>;

/// One synchronous round of every agent, in agent order; returns the messages sent. Adds the
/// round's events to `events` when given; delivers only what `arrives` accepts, when given.
inline int run_round(Algorithm& alg, std::vector<Agent>& agents, EventCounts* events = nullptr,
                     const Delivery& arrives = {}) {
  QueueOutbox out(events);
  SyncFastPath* const fast = dynamic_cast<SyncFastPath*>(&alg);
  alg.begin_round(agents.front().iteration, SimTime{});
  for (Agent& a : agents) {  // the sync driver's order: prepare, then the (fused) local step
    alg.prepare(a);
    if (!fast || !fast->fused_local_step(a)) a.loss = a.learner->gradient(a.x, a.g);
    alg.after_gradient(a);
  }
  for (Agent& a : agents) alg.communicate(a, out);
  while (!out.queue.empty()) {
    const Message m = out.queue.front();
    out.queue.pop_front();
    if (arrives && !arrives(m)) continue;
    if (m.to.value < agents.size())
      alg.receive(agents[m.to.value], m, out);
    else
      dynamic_cast<ServiceNode&>(alg).receive_service(m, out);  // EASGD's server, node n
  }
  auto* hooks = dynamic_cast<RoundHooks*>(&alg);
  if (hooks) hooks->before_updates(agents);
  for (Agent& a : agents) alg.update(a);
  if (hooks) hooks->after_updates(agents);
  for (Agent& a : agents) ++a.iteration;
  return out.sent;
}

/// True when *a exists and holds b's exact bits.
inline bool same_bits(const ParamVector* a, const ParamVector& b) {
  return a && a->size() == b.size() &&
         std::memcmp(a->data(), b.data(), sizeof(float) * static_cast<size_t>(b.size())) == 0;
}

/// Whether every agent's copy of each neighbour's published vector (alg.neighbour_copy) holds
/// the bits that neighbour published (alg.public_copy), for the senders that published one.
template <class Alg>
bool copies_match_senders(const Alg& alg, const topo::Graph& g) {
  for (uint32_t i = 0; i < g.node_count(); ++i) {
    const auto neighbours = g.neighbors(i);
    for (size_t n = 0; n < neighbours.size(); ++n) {
      const ParamVector* own = alg.public_copy(AgentId{neighbours[n]});
      if (own && !same_bits(alg.neighbour_copy(AgentId{i}, n), *own)) return false;
    }
  }
  return true;
}

/// A threshold decided per tensor (granularity "layer"), constant at v0.
inline TriggerSpec per_tensor_threshold(double v0) {
  TriggerSpec t;
  t.kind = TriggerKind::kThreshold;
  t.granularity = Granularity::kLayer;
  t.v0 = v0;
  t.decay = 0.0;
  return t;
}

}  // namespace dlsim::testing
