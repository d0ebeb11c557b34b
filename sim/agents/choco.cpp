#include "sim/agents/choco.hpp"

#include <algorithm>
#include <cmath>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/drift_norm.hpp"
#include "sim/agents/neighbour_index.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

Choco::Choco(Overlay overlay, double gamma, const TriggerSpec& trigger,
             const CompressionSpec& compression, int64_t local_steps)
    : overlay_(std::move(overlay)),
      gamma_(gamma),
      local_steps_(local_steps),
      trigger_(trigger),
      compression_(compression) {
  DLSIM_CHECK(local_steps >= 1, "local_steps {}", local_steps);
  // ChocoDescriptor::check refuses it on a dynamic topology, naming /algorithm/local_steps.
  DLSIM_CHECK(local_steps == 1 || !overlay_.dynamic(),
              "CHOCO on a dynamic overlay with local_steps {}", local_steps);
}

void Choco::start(std::span<Agent> agents) {
  const uint32_t nodes = overlay_.node_count();
  DLSIM_CHECK(agents.size() == nodes, "{} agents, mixing weights for {}", agents.size(), nodes);
  state_.assign(agents.size(), PerAgent{});
  compression_.start(agents);
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    s.own = ParamVector::Zero(a.x.size());
    if (overlay_.dynamic()) {  // before round 0 the graph is empty
      const auto now = overlay_.sources(a.id.value);
      s.sources.assign(now.begin(), now.end());
      s.have.assign(now.size(), 1);
    }
    s.held.assign(sources(a.id.value).size(), ParamVector::Zero(a.x.size()));
  }
}

void Choco::begin_round(int64_t k, SimTime now) {
  if (!overlay_.dynamic()) return;
  for (PerAgent& s : state_) s.fresh.clear();
  if (!overlay_.begin_round(k, now)) return;
  // A copy is kept while its source stays one; a source that was not one last round sends its
  // whole x^_j this round (i goes into its list of new targets, receivers in ascending order),
  // unless x^_j is still 0: then i's new copy starts at 0, as every copy does on a static graph.
  std::vector<ParamVector> held;
  std::vector<char> have;
  for (uint32_t i = 0; i < state_.size(); ++i) {
    PerAgent& s = state_[i];
    const auto live = overlay_.sources(i);
    held.clear();
    have.assign(live.size(), 0);
    for (size_t n = 0; n < live.size(); ++n) {
      const auto it = std::lower_bound(s.sources.begin(), s.sources.end(), live[n]);
      const bool kept = it != s.sources.end() && *it == live[n];
      if (kept) {
        const auto old = static_cast<size_t>(it - s.sources.begin());
        held.push_back(std::move(s.held[old]));
        have[n] = s.have[old];
        s.have[old] = 2;  // moved
      } else {
        const bool published = state_[live[n]].published;
        if (published) state_[live[n]].fresh.push_back(i);
        have[n] = published ? 0 : 1;
        held.emplace_back();  // storage below
      }
    }
    for (size_t old = 0; old < s.held.size(); ++old)
      if (s.have[old] != 2) s.spare.push_back(std::move(s.held[old]));
    for (size_t n = 0; n < live.size(); ++n) {
      if (held[n].size() != 0) continue;
      if (s.spare.empty()) {
        held[n] = ParamVector::Zero(s.own.size());
      } else {
        held[n] = std::move(s.spare.back());
        s.spare.pop_back();
        // Zero also while no copy is held yet: checkpoints save it, and a resumed run has none
        // to reuse (its spares are gone), so an old copy's values must not linger.
        held[n].setZero();
      }
    }
    s.held.swap(held);
    s.have.swap(have);
    s.sources.assign(live.begin(), live.end());
  }
}

void Choco::prepare(Agent& a) { state_[a.id.value].stepped = false; }

void Choco::after_gradient(Agent& a) {
  PerAgent& s = state_[a.id.value];
  a.learner->apply_step(a.x, a.g, a.iteration);
  s.stepped = true;
  s.pending = nullptr;
  if (a.iteration % local_steps_ != 0) return;
  // The trigger's drift ||x - x^_i||, from the difference in a buffer per thread; the compressor
  // reads x and x^_i itself.
  s.drift = 0.0;
  if (trigger_.needs_drift()) {
    thread_local ParamVector diff;
    diff = a.x - s.own;
    s.drift = norm_of(diff, trigger_.spec().norm);
  }
  // Every agent decides at every communication round (an outside decider counts on it), even
  // one with nobody to send to.
  s.whole = nullptr;
  if (trigger_.decide(a.id, {a.iteration, s.drift, 0.0}, a.trigger_rng) &&
      !targets(a.id.value).empty()) {
    s.pending =
        compression_.delta(a, std::span<const float>(a.x.data(), static_cast<size_t>(a.x.size())),
                           std::span<const float>(s.own.data(), static_cast<size_t>(s.own.size())));
    s.pending->add_to(std::span<float>(s.own.data(), static_cast<size_t>(s.own.size())));
    s.published = true;
  }
  // New targets get x^_i as it now is, whole (a copy from i's pool, in the parallel phase).
  if (!s.fresh.empty()) s.whole = s.pool.take_copy(s.own);
}

void Choco::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  DLSIM_CHECK(s.stepped, "CHOCO's local step did not run before agent {} communicated (async?)",
              a.id.value);
  if (s.whole) {
    for (uint32_t j : s.fresh) {
      out.send(Message{MessageKind::kParams, a.id, AgentId{j}, s.whole, payload_bytes(*s.whole)});
    }
    s.whole = nullptr;
  }
  if (!s.pending) return;
  out.event(a);
  for (uint32_t j : targets(a.id.value))
    if (!fresh_target(s, j))  // a new target's whole copy already holds q
      out.send(compression_.message(MessageKind::kParams, a, AgentId{j}, s.pending));
  s.pending = nullptr;
}

void Choco::receive(Agent& a, const Message& m, Outbox&) {
  const CompressedChange* change = m.payload_if<CompressedChange>();
  DLSIM_CHECK(m.kind == MessageKind::kParams && (change || (overlay_.dynamic() && m.params)),
              "CHOCO got a message of kind {}", static_cast<int>(m.kind));
  PerAgent& s = state_[a.id.value];
  const size_t n = neighbour_index(sources(a.id.value), m.from);
  ParamVector& copy = s.held[n];
  if (!change) {  // a whole x^_j on a new edge
    copy = *m.params;
    s.have[n] = 1;
    return;
  }
  if (!s.have.empty() && !s.have[n]) return;  // its whole copy was lost: nothing to add q to
  change->delta->add_to(std::span<float>(copy.data(), static_cast<size_t>(copy.size())));
}

void Choco::update(Agent& a) {
  if (a.iteration % local_steps_ != 0) return;  // a local step only
  PerAgent& s = state_[a.id.value];
  const auto w = weights(a.id.value);
  // sum_j w_ij (x^_j - x^_i), neighbour by neighbour in neighbour order (floats are not
  // associative), in one pass over x per neighbour. A copy not held is left out.
  for (size_t n = 0; n < s.held.size(); ++n)
    if (s.have.empty() || s.have[n]) a.x += static_cast<float>(gamma_ * w[n]) * (s.held[n] - s.own);
}

// The drift is recomputed at the next decision; messages in flight are the swarm's.
void Choco::archive(AgentArchive& ar) {
  if (overlay_.dynamic()) overlay_.archive(ar);  // a static one has nothing to save
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    ar.params(s.own);
    // A dynamic overlay: the round's sources, which copies are held, and its whole-copy sends.
    if (overlay_.dynamic()) {
      ar.vector(s.sources);
      ar.vector(s.have);
      ar.vector(s.fresh);
      ar.snapshot(s.whole);
      ar.value(s.published);
      if (ar.loading()) {  // the copies follow the saved round's sources
        if (s.sources.size() >= state_.size() || s.have.size() != s.sources.size())
          ar.fail("another graph: a list of neighbours differs");
        s.held.resize(s.sources.size(), ParamVector::Zero(s.own.size()));
      }
    }
    ar.expect<uint64_t>(s.held.size(), "another graph: a list of copies differs");
    for (ParamVector& h : s.held) ar.params(h);
    ar.delta(s.pending);
    ar.value(s.stepped);
  }
}

}  // namespace dlsim
