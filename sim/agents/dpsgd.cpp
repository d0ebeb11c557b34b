#include "sim/agents/dpsgd.hpp"

#include <algorithm>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/mixing_step.hpp"
#include "sim/agents/neighbour_index.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

Dpsgd::Dpsgd(Overlay overlay, const CompressionSpec& compression, MixingOrder order,
             const AggregationSpec& aggregation, int64_t iterations)
    : overlay_(std::move(overlay)),
      compression_(compression),
      order_(order),
      aggregation_(aggregation),
      iterations_(iterations) {
  DLSIM_CHECK(aggregation_.kind == AggregationKind::kMean || !overlay_.dynamic(),
              "aggregation rule {} on a dynamic overlay", to_string(aggregation_.kind));
}

void Dpsgd::start(std::span<Agent> agents) {
  DLSIM_CHECK(agents.size() == overlay_.node_count(), "{} agents, an overlay of {}",
              agents.size(), overlay_.node_count());
  state_.clear();  // a fresh record per agent (not copyable: its workspace is owned)
  state_.resize(agents.size());
  compression_.start(agents);
  if (byzantine_) byzantine_->start(agents, overlay_);
  for (const Agent& a : agents) {
    state_[a.id.value].held.assign(overlay_.sources(a.id.value).size(), nullptr);
    state_[a.id.value].mixed = ParamVector::Zero(a.x.size());
  }
  if (aggregation_.kind == AggregationKind::kMean) return;  // today's path, no workspace
  for (const Agent& a : agents) {
    // A Byzantine agent that crafts its messages mixes with the mean (its own model feeds only
    // sign_flip and gaussian), so one with a single neighbour does not make a rule too large
    // for the graph.
    if (byzantine_ && byzantine_->spec().mixes_with_mean(a.id.value)) continue;
    const size_t sources = overlay_.sources(a.id.value).size();
    DLSIM_CHECK(refusal(aggregation_, sources + 1).empty(), "{}",
                refusal(aggregation_, sources + 1));
    if (a.held())  // not a place-holder's (agent.hpp)
      state_[a.id.value].robust =
          std::make_unique<AggregationWorkspace>(static_cast<size_t>(a.x.size()), sources);
  }
}

void Dpsgd::begin_round(int64_t k, SimTime now) {
  if (!overlay_.begin_round(k, now)) return;
  for (size_t i = 0; i < state_.size(); ++i) {
    std::vector<Snapshot>& held = state_[i].held;
    held.assign(overlay_.sources(static_cast<uint32_t>(i)).size(), nullptr);
  }
}

// A copy per iteration, in a reused buffer, of x_k (combine-then-adapt) or of x_k - step(g_k)
// (adapt-then-combine). The pool's use counts are exact in both: neighbours drop i's copies only
// in the event loop, which does not run concurrently with prepare() and after_gradient().
void Dpsgd::prepare(Agent& a) {
  overlay_.begin_iteration(a.id.value, a.iteration);  // async: this iteration's targets
  if (order_ == MixingOrder::kCombineThenAdapt) snapshot_to_send(a);
}

void Dpsgd::after_gradient(Agent& a) {
  if (order_ != MixingOrder::kAdaptThenCombine) return;
  a.learner->apply_step(a.x, a.g, a.iteration);
  snapshot_to_send(a);
}

void Dpsgd::snapshot_to_send(Agent& a) {
  PerAgent& s = state_[a.id.value];
  if (!overlay_.targets(a.id.value).empty()) s.current = compression_.snapshot(a, s.pool, a.x);
}

void Dpsgd::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.current) return;
  out.event(a);
  for (uint32_t j : overlay_.targets(a.id.value)) {
    Message m = compression_.message(MessageKind::kParams, a, AgentId{j}, params_for(a, s, j));
    m.buffering = Buffering::kLatestValue;  // the receiver keeps only the latest copy
    out.send(std::move(m));
  }
  s.current = nullptr;
}

// An attacker's crafted vectors come from its own pool, in the event loop, where no other
// thread drops its copies (as in prepare()). To a fellow attacker it sends its own model.
Snapshot Dpsgd::params_for(const Agent& a, PerAgent& s, uint32_t j) {
  if (!byzantine_ || !byzantine_->is_byzantine(a.id.value) || byzantine_->is_byzantine(j))
    return s.current;
  return byzantine_->craft(a, j, overlay_, s.held, s.pool);
}

void Dpsgd::receive(Agent& a, const Message& m, Outbox&) {
  if (overlay_.per_agent()) {
    // A sender heard twice since the last update counts once, with its newer model: the
    // inbox stays bounded by the number of senders.
    std::vector<Message>& inbox = state_[a.id.value].inbox;
    const auto same = std::find_if(inbox.begin(), inbox.end(),
                                   [&](const Message& held) { return held.from == m.from; });
    if (same != inbox.end()) *same = m;
    else inbox.push_back(m);
    return;
  }
  const size_t n = neighbour_index(overlay_.sources(a.id.value), m.from);
  state_[a.id.value].held[n] = m.params;
}

void Dpsgd::update(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const uint32_t i = a.id.value;
  if (overlay_.per_agent()) mix_arrivals(s, a);
  else if (s.robust)
    aggregate_with_copies(aggregation_, overlay_.self_weight(i), overlay_.weights(i), s.held,
                          a.iteration, iterations_, a.x, s.mixed, *s.robust);
  else mix_with_copies(overlay_.self_weight(i), overlay_.weights(i), s.held, a.x, s.mixed);
  if (order_ == MixingOrder::kCombineThenAdapt) a.learner->apply_step(a.x, a.g, a.iteration);
}

// The sync epidemic rule with the arrivals as sources: weights 1 / (1 + received) each, summed
// through the same mix_with_copies in ascending sender order, since float addition is not
// associative (a one-peer or pairwise arrival gives (x_i + x_j) / 2).
void Dpsgd::mix_arrivals(PerAgent& s, Agent& a) {
  if (s.inbox.empty()) return;
  std::sort(s.inbox.begin(), s.inbox.end(),
            [](const Message& l, const Message& r) { return l.from < r.from; });
  const double w = 1.0 / (1.0 + static_cast<double>(s.inbox.size()));
  s.weights.assign(s.inbox.size(), w);
  s.held.clear();
  for (const Message& m : s.inbox) s.held.push_back(m.params);
  mix_with_copies(w, s.weights, s.held, a.x, s.mixed);
  s.held.clear();  // the senders' buffers go back to their pools
  s.inbox.clear();
}

// `mixed` and `weights` are workspaces within update(); the pool starts empty.
void Dpsgd::archive(AgentArchive& ar) {
  overlay_.archive(ar);
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    ar.snapshot(s.current);
    const uint64_t held = ar.count(s.held.size());  // a dynamic overlay's sources change
    if (ar.loading()) {
      if ((!overlay_.dynamic() && held != s.held.size()) || held > state_.size())
        ar.fail("another graph: a list of copies differs");
      s.held.resize(held);
    }
    ar.fixed_list(s.held);
    if (!overlay_.per_agent()) continue;  // sync checkpoints keep their format
    ar.list(s.inbox);
    if (ar.loading() && s.inbox.size() >= state_.size())
      ar.fail("another number of agents: an inbox");
  }
  if (byzantine_) byzantine_->archive(ar);
}
}  // namespace dlsim
