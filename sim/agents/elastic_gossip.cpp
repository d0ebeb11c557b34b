#include "sim/agents/elastic_gossip.hpp"

#include <algorithm>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/peer_choice.hpp"

namespace dlsim {

ElasticGossip::ElasticGossip(double alpha, const TriggerSpec& trigger, Overlay overlay,
                             TimeMode mode, const CompressionSpec& compression)
    : alpha_(alpha), peers_(trigger, std::move(overlay)), mode_(mode), compression_(compression) {}

void ElasticGossip::start(std::span<Agent> agents) {
  state_.assign(agents.size(), PerAgent{});
  compression_.start(agents);
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    s.partners.reserve(peers_.degree_or(a.id.value, 4));
    s.pull = ParamVector::Zero(a.x.size());
  }
}

void ElasticGossip::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  s.fire = peers_.draw(a, &s.peer);
  if (!s.fire) return;
  snapshot_of(s.current, s.pool, compression_, a);  // made in the parallel phase
}

void ElasticGossip::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.fire) return;
  out.event(a);
  out.send(compression_.message(MessageKind::kParams, a, s.peer,
                                snapshot_of(s.current, s.pool, compression_, a)));
}

void ElasticGossip::add_partner(PerAgent& s, const Message& m) {
  // P_i is a set: when i and j pick each other, j counts once.
  for (const Message& p : s.partners)
    if (p.from == m.from) return;
  s.partners.push_back(m);
}

void ElasticGossip::receive(Agent& a, const Message& m, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  add_partner(s, m);
  // An exchange the sender started: answer with x_j, unless (sync mode) j picked the sender too
  // in this round: then j's own kParams is the answer, and the pair exchanges once.
  const bool mutual = mode_ == TimeMode::kSync && s.fire && s.peer == m.from;
  if (m.kind == MessageKind::kParams && !mutual) {
    out.send(compression_.message(MessageKind::kPullReply, a, m.from,
                                  snapshot_of(s.current, s.pool, compression_, a)));
  }
}

void ElasticGossip::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  if (!s.partners.empty()) {
    std::stable_sort(s.partners.begin(), s.partners.end(),
                     [](const Message& l, const Message& r) { return l.from < r.from; });
    s.pull = static_cast<float>(s.partners.size()) * a.x;  // x_i before the step
    for (const Message& m : s.partners) s.pull -= *m.params;
  }
  a.learner->apply_step(a.x, a.g, a.iteration);
  if (!s.partners.empty()) a.x -= static_cast<float>(alpha_) * s.pull;
  s.partners.clear();
  s.current = nullptr;
}

// `pull` is a workspace within update(); the pool starts empty.
void ElasticGossip::archive(AgentArchive& ar) {
  peers_.archive(ar);
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    s.archive_turn(ar);
    ar.list(s.partners);
  }
}
}  // namespace dlsim
