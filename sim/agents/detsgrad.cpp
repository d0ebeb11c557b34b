#include "sim/agents/detsgrad.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/neighbour_index.hpp"
#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// Distinguishes Detsgrad objects in the thread-local step-size memo (addresses get reused).
std::atomic<uint64_t> instances{0};

}  // namespace

Detsgrad::Detsgrad(const DetsgradSpec& spec, const TriggerSpec& trigger, Overlay overlay,
                   const CompressionSpec& compression)
    : spec_(spec),
      trigger_(trigger),
      overlay_(std::move(overlay)),
      compression_(compression),
      instance_(++instances) {
  DLSIM_CHECK(spec.local_steps >= 1, "local_steps {}", spec.local_steps);
  // DetsgradDescriptor::check refuses these on a dynamic topology, naming the key.
  DLSIM_CHECK(!overlay_.dynamic() ||
                  (spec.local_steps == 1 && !per_tensor(trigger) && !compression_.enabled()),
              "DETSGRAD on a dynamic overlay with local_steps {}, a per-tensor trigger or "
              "compression",
              spec.local_steps);
  if (per_tensor(trigger)) {
    DLSIM_CHECK(!compression_.enabled(), "per-tensor DETSGRAD with compression");
    tensor_events_.emplace(trigger);
  }
}

void Detsgrad::start(std::span<Agent> agents) {
  const uint32_t nodes = overlay_.node_count();
  DLSIM_CHECK(agents.size() == nodes, "{} agents on a graph of {} nodes", agents.size(), nodes);
  state_.clear();  // a fresh record per agent (not copyable: its workspace is owned)
  state_.resize(agents.size());
  compression_.start(agents);
  // Every agent trains the same architecture: the first one's tensors are everyone's.
  if (tensor_events_ && !agents.empty()) {
    const Agent& any = first_held(agents);
    tensor_events_->start(agents.size(), any.learner->parameter_tensors(), any.x.size());
  }
  for (const Agent& a : agents) {
    PerAgent& s = state_[a.id.value];
    if (overlay_.dynamic()) {  // the round's sources (none before round 0)
      const auto now = overlay_.sources(a.id.value);
      s.sources.assign(now.begin(), now.end());
    }
    s.copies.start(sources(a.id.value).size());
    s.size = static_cast<size_t>(a.x.size());
  }
  if (byzantine_) byzantine_->start(agents, overlay_, TargetWeights::kEqual, this);
  if (aggregation_.kind == AggregationKind::kMean) return;  // the plain sum, no workspace
  for (const Agent& a : agents)
    if (a.held()) start_robust(a, state_[a.id.value]);  // not a place-holder's (agent.hpp)
}

void Detsgrad::begin_round(int64_t k, SimTime now) {
  if (!overlay_.dynamic()) return;
  for (PerAgent& s : state_) s.fresh.clear();
  if (!overlay_.begin_round(k, now)) return;
  // Copies of agents that are still sources are kept; the others are dropped. A source that was
  // not one last round gets a forced send: i is put in its list of new targets (receivers in
  // ascending order keep every list ascending).
  for (uint32_t i = 0; i < state_.size(); ++i) {
    PerAgent& s = state_[i];
    const auto live = overlay_.sources(i);
    remap_.assign(live.size(), nullptr);
    for (size_t n = 0; n < live.size(); ++n) {
      const auto it = std::lower_bound(s.sources.begin(), s.sources.end(), live[n]);
      if (it != s.sources.end() && *it == live[n])
        remap_[n] = std::move(s.copies.held[static_cast<size_t>(it - s.sources.begin())]);
      else
        state_[live[n]].fresh.push_back(i);
    }
    s.copies.held.swap(remap_);
    s.copies.received.assign(live.size(), 0);
    s.copies.own.assign(live.size(), 0);
    s.sources.assign(live.begin(), live.end());
    s.dirty = true;  // the consensus input is recomputed from the copies now held
  }
  remap_.clear();
}

const Detsgrad::Steps& Detsgrad::steps(PerAgent& s, int64_t k) const {
  if (s.steps.k == k) return s.steps;
  // Agents of one thread mostly ask for the same k in turn: one pow() pair per iteration and
  // thread rather than per agent. The values are a pure function of (spec, k).
  thread_local struct {
    uint64_t owner = 0;
    Steps steps;
  } memo;
  if (memo.owner != instance_ || memo.steps.k != k) {
    memo.owner = instance_;
    memo.steps.k = k;
    memo.steps.alpha = spec_.alpha.at(k);
    memo.steps.alpha_s = static_cast<float>(memo.steps.alpha * spec_.gradient_scale);
    memo.steps.beta = static_cast<float>(spec_.beta.at(k));
  }
  s.steps = memo.steps;
  return s.steps;
}

double Detsgrad::drift_norm(const Agent& a) const {
  const PerAgent& s = state_[a.id.value];
  if (!s.broadcast) return std::numeric_limits<double>::infinity();
  NormAccumulator norm(trigger_.spec().norm);
  for (Eigen::Index start = 0; start < a.x.size(); start += kBlock) {
    const Eigen::Index len = std::min(kBlock, a.x.size() - start);
    norm.add(a.x.segment(start, len) - s.broadcast->segment(start, len));
  }
  return norm.value();
}

Snapshot Detsgrad::take_snapshot(PerAgent& s, const ParamVector& x) const {
  // The pool's use counts are exact here: only this agent's own calls copy or drop its snapshots'
  // owners outside the event loop, and the event loop does not run concurrently with prepare().
  return s.pool.take_copy(x);
}

void Detsgrad::prepare(Agent& a) {
  PerAgent& s = state_[a.id.value];
  const int64_t k = a.iteration;
  if (local_only(k)) {  // no decision: the trigger is not consulted (nor its stream)
    s.pending = nullptr;
    s.forced = nullptr;
    s.drift_ready = false;
    return;
  }
  s.pending = nullptr;
  s.forced = nullptr;
  if (tensor_events_) {
    s.drift = 0.0;
    s.drift_ready = false;
    s.pending_parts =
        tensor_events_->decide(a.id.value, k, a.x, s.broadcast.get(), steps(s, k).alpha);
    if (s.pending_parts)
      s.pending = tensor_events_->next_sent(s.pool, s.broadcast.get(), a.x, *s.pending_parts);
    return;
  }
  if (trigger_.needs_drift())
    s.drift = s.drift_ready ? s.next_drift : drift_norm(a);
  else
    s.drift = 0.0;
  s.drift_ready = false;
  const bool fire =
      trigger_.decide(a.id, {k, s.drift, steps(s, k).alpha}, a.trigger_rng) || always_fires(a);
  // The copy is made here, in the parallel phase; sending it later only shares the pointer.
  if (fire && compression_.enabled())
    prepare_compressed(a, s);
  else if (fire)
    s.pending = take_snapshot(s, a.x);
  else if (!s.fresh.empty())
    s.forced = take_snapshot(s, a.x);  // new targets get x_i without an event
}

void Detsgrad::prepare_compressed(Agent& a, PerAgent& s) {
  // q = C(x - x^_i), x^_i = 0 before the first event; the difference is not formed.
  const auto span_of = [](const ParamVector& v) {
    return std::span<const float>(v.data(), static_cast<size_t>(v.size()));
  };
  s.pending_delta = compression_.delta(
      a, span_of(a.x), s.broadcast ? span_of(*s.broadcast) : std::span<const float>());
  // x^_i + q, in the buffer of the x^_i before when it can be brought up to date sparsely (the
  // pool and `before` its only owners: the use counts are exact here, as in take_snapshot).
  std::shared_ptr<ParamVector> next;
  const bool made_it = s.broadcast && s.broadcast == s.made;
  if (made_it && s.before && s.before.use_count() == 2 && s.before_q->sparse &&
      s.pending_delta->sparse) {
    next = std::move(s.before);
    for (uint32_t i : s.before_q->indices) (*next)[i] = (*s.broadcast)[i];
  } else if (s.broadcast) {
    next = s.pool.take_copy(*s.broadcast);
  } else {
    next = s.pool.take(a.x.size());
    next->setZero();
  }
  s.pending_delta->add_to(std::span<float>(next->data(), static_cast<size_t>(next->size())));
  s.before = made_it ? std::move(s.made) : nullptr;
  s.before_q = s.pending_delta;
  s.made = next;
  s.pending = std::move(next);
}

bool Detsgrad::fused_local_step(Agent& a) {
  // An attacker crafts its vectors in communicate() from its own model as it is then (sign
  // flip, gaussian, its received view): x_k, as in D-PSGD, so it does not fuse its step.
  if (byzantine_ && byzantine_->is_byzantine(a.id.value)) return false;
  PerAgent& s = state_[a.id.value];
  // x_k - alpha_k s g now and the consensus term in update() is the same update only when that
  // term does not read x_k: a broadcast copy exists by then. update() applies the gradient term
  // first in the unfused case too, so both round alike.
  if (spec_.consensus != ConsensusBase::kBroadcast || !(s.broadcast || s.pending)) return false;
  a.loss = a.learner->gradient_step(a.x, steps(s, a.iteration).alpha_s, a.g);
  s.fused = true;
  return true;
}

void Detsgrad::communicate(Agent& a, Outbox& out) {
  PerAgent& s = state_[a.id.value];
  if (!s.pending) {
    if (s.forced) send_forced(a, s, out);
    return;
  }
  out.event(a);
  s.broadcast = std::move(s.pending);
  s.dirty = true;
  if (tensor_events_) {
    ++s.events_sent;
    const uint64_t bytes = tensor_events_->payload_bytes(*s.pending_parts);
    for (uint32_t j : targets(a.id.value)) {
      out.send(Message(MessageKind::kParams, a.id, AgentId{j}, s.broadcast, bytes,
                       TensorParts{s.pending_parts, s.events_sent}));
    }
    s.pending_parts = nullptr;
    return;
  }
  if (!compression_.enabled()) {
    for (uint32_t j : targets(a.id.value)) {
      Snapshot params = params_for(a, s, j);
      const uint64_t bytes = payload_bytes(*params);
      Message m{MessageKind::kParams, a.id, AgentId{j}, std::move(params), bytes};
      m.buffering = Buffering::kLatestValue;  // the receiver keeps only the latest copy
      out.send(std::move(m));
    }
    return;
  }
  ++s.events_sent;
  for (uint32_t j : targets(a.id.value)) {
    Message m =
        compression_.message(MessageKind::kParams, a, AgentId{j}, s.pending_delta, s.events_sent);
    m.params = s.broadcast;  // what the holder's copy becomes when it missed nothing
    out.send(std::move(m));
  }
  s.pending_delta = nullptr;
}

void Detsgrad::send_forced(Agent& a, PerAgent& s, Outbox& out) {
  for (uint32_t j : s.fresh) {
    Message m{MessageKind::kParams, a.id, AgentId{j}, s.forced, payload_bytes(*s.forced)};
    m.buffering = Buffering::kLatestValue;
    out.send(std::move(m));
  }
  s.forced = nullptr;
}

void Detsgrad::receive(Agent& a, const Message& m, Outbox&) {
  DLSIM_CHECK(m.kind == MessageKind::kParams && m.params, "DETSGRAD got a message of kind {}",
              static_cast<int>(m.kind));
  const size_t n = neighbour_index(sources(a.id.value), m.from);
  PerAgent& s = state_[a.id.value];
  if (const CompressedChange* change = m.payload_if<CompressedChange>())
    receive_compressed(s, n, m.params, *change);
  else if (m.payload_if<TensorParts>())
    s.copies.receive(*tensor_events_, s.pool, n, m, a.x);
  else
    s.copies.held[n] = m.params;
  s.dirty = true;
}

void Detsgrad::receive_compressed(PerAgent& s, size_t n, const Snapshot& sent,
                                  const CompressedChange& m) {
  std::vector<Snapshot>& held = s.copies.held;
  if (!s.copies.own[n] && m.sequence == s.copies.received[n] + 1) {
    held[n] = sent;  // = the copy + q, bit for bit: the copy is the sender's previous x^_j
  } else {
    // A message of this sender was lost: this copy differs from the sender's x^_j for good, as
    // it would on a real network. Add q to a copy of our own (from our pool: receive() runs in
    // the event loop, where the use counts are exact).
    std::shared_ptr<ParamVector> copy =
        held[n] ? s.pool.take_copy(*held[n]) : s.pool.take(static_cast<Eigen::Index>(s.size));
    if (!held[n]) copy->setZero();
    m.delta->add_to(std::span<float>(copy->data(), s.size));
    held[n] = std::move(copy);
    s.copies.own[n] = 1;
  }
  s.copies.received[n] = m.sequence;
}

void Detsgrad::consensus_block(const PerAgent& s, bool from_broadcast, Eigen::Index start,
                               Eigen::Ref<ParamVector> out) const {
  const Eigen::Index len = out.size();
  if (from_broadcast)
    out = static_cast<float>(s.held_count) * s.broadcast->segment(start, len);
  else
    out.setZero();
  for (const Snapshot& copy : s.copies.held) {  // neighbour order: float sums are order-sensitive
    if (!copy) continue;
    if (from_broadcast)
      out -= copy->segment(start, len);
    else
      out += copy->segment(start, len);
  }
}

bool Detsgrad::store_cache(PerAgent& s, bool compute, size_t degree) const {
  // Rewriting the cache costs two passes (write-allocate and write-back) and saves degree - 1
  // reads on each later iteration without an event: worth it while the agent's own event rate
  // (an average over its recent iterations, so deterministic) is below (d - 1) / (d + 1).
  s.dirty_rate = 0.875 * s.dirty_rate + (s.dirty ? 0.125 : 0.0);
  const double d = static_cast<double>(degree);
  const bool store = compute && s.dirty_rate * (d + 1.0) < d - 1.0;
  if (store && s.cache.size() == 0) s.cache.resize(static_cast<Eigen::Index>(s.size));
  if (compute) s.cache_valid = store;
  return store;
}

void Detsgrad::update(Agent& a) {
  if (local_only(a.iteration)) {  // the gradient term only (already applied when fused)
    PerAgent& s = state_[a.id.value];
    if (!s.fused) a.x.noalias() -= steps(s, a.iteration).alpha_s * a.g;
    s.fused = false;
    s.drift_ready = false;
    return;
  }
  PerAgent& s = state_[a.id.value];
  if (s.robust) {
    robust_update(a, s);
    return;
  }
  update_begin(a);
  update_block(a, 0, a.x.size());
  update_end(a);
}

void Detsgrad::update_begin(Agent& a) {
  PerAgent& s = state_[a.id.value];
  UpdatePass& u = s.pass;
  const Steps& st = steps(s, a.iteration);
  if (s.dirty) {
    s.held_count = 0;
    for (const Snapshot& copy : s.copies.held) s.held_count += copy ? 1 : 0;
  }
  // Before i's first broadcast, x^_i is its own state (nothing differs from what it would send).
  u.from_broadcast = spec_.consensus == ConsensusBase::kBroadcast && s.broadcast;
  DLSIM_CHECK(u.from_broadcast || !s.fused, "fused DETSGRAD step without a broadcast copy");
  u.compute = s.dirty || !s.cache_valid;
  u.store = store_cache(s, u.compute, s.copies.held.size());
  u.held = static_cast<float>(s.held_count);
  u.alpha_s = st.alpha_s;
  u.beta = st.beta;
  u.track = !tensor_events_ && trigger_.needs_drift() && s.broadcast;
  u.drift = NormAccumulator(trigger_.spec().norm);
}

void Detsgrad::update_block(Agent& a, Eigen::Index start, Eigen::Index len) {
  DLSIM_CHECK(start % kBlock == 0, "update block at {}, not a multiple of {}", start, kBlock);
  PerAgent& s = state_[a.id.value];
  UpdatePass& u = s.pass;
  alignas(64) float scratch[kBlock];
  // One pass in L1-sized blocks: the consensus input (from the copies, or the cache), the update,
  // and the drift ||x_{k+1} - x^_i|| that the next prepare() compares with the threshold.
  for (const Eigen::Index end = start + len; start < end; start += kBlock) {
    const Eigen::Index n = std::min(kBlock, end - start);
    Eigen::Map<ParamVector> temp(scratch, n);
    auto c = u.store || !u.compute ? Eigen::Ref<ParamVector>(s.cache.segment(start, n))
                                   : Eigen::Ref<ParamVector>(temp);
    if (u.compute) consensus_block(s, u.from_broadcast, start, c);
    auto x = a.x.segment(start, n);
    if (u.from_broadcast) {
      // Gradient term first, as the fused step applies it: both paths round alike (bit for bit
      // with a learner whose gradient_step is the default one).
      if (!s.fused) x.noalias() -= u.alpha_s * a.g.segment(start, n);
      x.noalias() -= u.beta * c;
    } else {
      // sum_j (x_i - x^_j) = held * x_i - sum_j x^_j, with x_i this iteration's state.
      x = x - u.beta * (u.held * x - c) - u.alpha_s * a.g.segment(start, n);
    }
    if (u.track) u.drift.add(x - s.broadcast->segment(start, n));
  }
}

void Detsgrad::update_end(Agent& a) {
  PerAgent& s = state_[a.id.value];
  s.dirty = false;
  s.fused = false;
  s.drift_ready = s.pass.track;
  s.next_drift = s.pass.drift.value();
}

// The steps memo and the update pass are recomputed; the snapshot pool starts empty (its buffers
// are only reused storage); the cache is saved when valid (recomputing it gives the same floats,
// but whether it is valid steers which pass runs, and so the time it takes).
void Detsgrad::archive(AgentArchive& ar) {
  // A static overlay has nothing to save, and its copies follow its fixed neighbours.
  if (overlay_.dynamic()) overlay_.archive(ar);
  ar.expect<uint64_t>(state_.size(), "another number of agents");
  for (PerAgent& s : state_) {
    ar.snapshot(s.broadcast);
    if (overlay_.dynamic()) {  // the round's sources (what the copies are of) and its forced sends
      ar.vector(s.sources);
      ar.vector(s.fresh);
      ar.snapshot(s.forced);
      if (ar.loading()) {  // the copies follow the saved round's sources
        if (s.sources.size() >= state_.size() || s.fresh.size() >= state_.size())
          ar.fail("another graph: a list of neighbours is too long");
        s.copies.held.resize(s.sources.size());
      }
    }
    s.copies.archive(ar);
    ar.snapshot(s.pending);
    ar.value(s.dirty_rate);
    ar.value(s.cache_valid);
    ar.value(s.held_count);
    ar.value(s.dirty);
    ar.value(s.fused);
    ar.value(s.drift_ready);
    ar.value(s.drift);
    ar.value(s.next_drift);
    if (ar.loading()) s.steps = Steps{};  // a cache of one iteration's step sizes: recomputed
    if (s.cache_valid) {
      if (ar.loading()) s.cache.resize(static_cast<Eigen::Index>(s.size));
      ar.params(s.cache);
    }
    ar.delta(s.pending_delta);
    ar.parts(s.pending_parts);
    ar.value(s.events_sent);
  }
  ar.expect(tensor_events_.has_value(), "another trigger granularity");
  if (tensor_events_) tensor_events_->archive(ar);
  if (byzantine_) byzantine_->archive(ar);
}
}  // namespace dlsim
