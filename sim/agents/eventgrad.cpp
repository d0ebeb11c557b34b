#include "sim/agents/eventgrad.hpp"

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/agents/neighbour_index.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

Eventgrad::Eventgrad(Overlay overlay, const TriggerSpec& trigger)
    : overlay_(std::move(overlay)), events_(trigger) {
  DLSIM_CHECK(!overlay_.dynamic(), "EventGraD on a dynamic overlay");
}

void Eventgrad::start(std::span<Agent> agents) {
  DLSIM_CHECK(agents.size() == overlay_.node_count(), "{} agents, an overlay of {}", agents.size(),
              overlay_.node_count());
  DLSIM_CHECK(!agents.empty(), "no agents");
  // Every agent trains the same architecture: the first one's tensors are everyone's.
  const Agent& any = first_held(agents);
  events_.start(agents.size(), any.learner->parameter_tensors(), any.x.size());
  state_.clear();  // a fresh record per agent (not copyable: its workspace is owned)
  state_.resize(agents.size());
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    s.copies.start(overlay_.neighbours(a.id.value).size());
    s.mixed = ParamVector::Zero(a.x.size());
    if (aggregation_.kind == AggregationKind::kMean) continue;
    const size_t sources = overlay_.sources(a.id.value).size();
    DLSIM_CHECK(refusal(aggregation_, sources + 1).empty(), "{}",
                refusal(aggregation_, sources + 1));
    if (a.held())  // not a place-holder's (agent.hpp)
      s.robust = std::make_unique<AggregationWorkspace>(static_cast<size_t>(a.x.size()), sources);
  }
}

void Eventgrad::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  s.pending = nullptr;
  s.pending_parts = nullptr;
  if (overlay_.neighbours(a.id.value).empty()) return;
  s.pending_parts = events_.decide(a.id.value, a.iteration, a.x, s.sent.get(), 0.0);
  // The pool's use counts are exact here: neighbours drop i's copies only in the event loop.
  if (s.pending_parts) s.pending = events_.next_sent(s.pool, s.sent.get(), a.x, *s.pending_parts);
}

void Eventgrad::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.pending) return;
  out.event(a);
  s.sent = std::move(s.pending);
  ++s.events_sent;
  const uint64_t bytes = events_.payload_bytes(*s.pending_parts);
  for (uint32_t j : overlay_.neighbours(a.id.value)) {
    out.send(Message(MessageKind::kParams, a.id, AgentId{j}, s.sent, bytes,
                     TensorParts{s.pending_parts, s.events_sent}));
  }
  s.pending_parts = nullptr;
}

void Eventgrad::receive(Agent& a, const Message& m, Outbox&) {
  DLSIM_CHECK(m.kind == MessageKind::kParams, "EventGraD got a message of kind {}",
              static_cast<int>(m.kind));
  PerAgent& s = state_[a.id.value];
  const size_t n = neighbour_index(overlay_.neighbours(a.id.value), m.from);
  s.copies.receive(events_, s.pool, n, m, a.x);
}

void Eventgrad::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const uint32_t i = a.id.value;
  if (s.robust)
    aggregate_with_copies(aggregation_, overlay_.self_weight(i), overlay_.weights(i), s.copies.held,
                          a.iteration, iterations_, a.x, s.mixed, *s.robust);
  else
    mix_with_copies(overlay_.self_weight(i), overlay_.weights(i), s.copies.held, a.x, s.mixed);
  a.learner->apply_step(a.x, a.g, a.iteration);
}

// `mixed` is a workspace within update(); the pool starts empty.
void Eventgrad::archive(AgentArchive& ar) {
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    ar.snapshot(s.sent);
    ar.snapshot(s.pending);
    ar.parts(s.pending_parts);
    ar.value(s.events_sent);
    s.copies.archive(ar);
  }
  events_.archive(ar);
}

}  // namespace dlsim
