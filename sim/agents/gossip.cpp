#include "sim/agents/gossip.hpp"

#include <algorithm>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/peer_choice.hpp"

namespace dlsim {

GossipSgd::GossipSgd(GossipMode mode, const TriggerSpec& trigger, Overlay overlay,
                     const CompressionSpec& compression, MixingOrder order)
    : mode_(mode), order_(order), peers_(trigger, std::move(overlay)), compression_(compression) {}

void GossipSgd::start(std::span<Agent> agents) {
  state_.assign(agents.size(), PerAgent{});
  compression_.start(agents);
  for (const Agent& a : agents)  // not a place-holder's (agent.hpp): it receives nothing here
    if (a.held()) state_[a.id.value].inbox.reserve(agents.size() > 64 ? 64 : agents.size());
}

void GossipSgd::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  s.fire = peers_.draw(a, &s.peer);
  // Copied here, in the parallel phase: x_k, or x_k - step(g_k) in after_gradient().
  if (s.fire && mode_ == GossipMode::kPush && order_ == MixingOrder::kCombineThenAdapt)
    snapshot_of(s.current, s.pool, compression_, a);
}

// Pull replies copy x in the event loop, after every agent's local step: the stepped model.
void GossipSgd::after_gradient(Agent& a) {
  if (order_ != MixingOrder::kAdaptThenCombine) return;
  a.learner->apply_step(a.x, a.g, a.iteration);
  PerAgent& s = state_[a.id.value];
  if (s.fire && mode_ == GossipMode::kPush) snapshot_of(s.current, s.pool, compression_, a);
}

void GossipSgd::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.fire) return;
  out.event(a);
  if (mode_ == GossipMode::kPull) {
    out.send(Message{MessageKind::kPullRequest, a.id, s.peer, nullptr, 0});
    return;
  }
  s.weight *= 0.5;
  out.send(compression_.message(MessageKind::kParams, a, s.peer,
                                snapshot_of(s.current, s.pool, compression_, a),
                                PushSumWeight{s.weight}));
}

void GossipSgd::receive(Agent& a, const Message& m, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (m.kind == MessageKind::kPullRequest) {
    out.send(compression_.message(MessageKind::kPullReply, a, m.from,
                                  snapshot_of(s.current, s.pool, compression_, a)));
    return;
  }
  s.inbox.push_back(m);
}

void GossipSgd::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  // Sum in sender order: float addition is not associative.
  std::stable_sort(s.inbox.begin(), s.inbox.end(),
                   [](const Message& l, const Message& r) { return l.from < r.from; });
  if (mode_ == GossipMode::kPull) {
    for (const Message& m : s.inbox) a.x = 0.5f * (a.x + *m.params);
  } else if (!s.inbox.empty()) {
    double total = s.weight;
    a.x *= static_cast<float>(s.weight);
    for (const Message& m : s.inbox) {
      const double w = m.payload_as<PushSumWeight>().weight;
      a.x += static_cast<float>(w) * *m.params;
      total += w;
    }
    a.x /= static_cast<float>(total);
    s.weight = total;
  }
  s.inbox.clear();
  s.current = nullptr;
  if (order_ == MixingOrder::kCombineThenAdapt) a.learner->apply_step(a.x, a.g, a.iteration);
}

void GossipSgd::archive(AgentArchive& ar) {
  peers_.archive(ar);
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    s.archive_turn(ar);
    ar.list(s.inbox);
    ar.value(s.weight);
  }
}
}  // namespace dlsim
