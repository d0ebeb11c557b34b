#include "sim/agents/ring_allreduce.hpp"

#include "sim/agents/agent_archive.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

RingAllReduce::RingAllReduce(ReduceWhat what, const TriggerSpec& trigger)
    : what_(what), trigger_(trigger) {}

void RingAllReduce::start(std::span<Agent> agents) {
  n_ = static_cast<uint32_t>(agents.size());
  const uint64_t bytes = payload_bytes(agents.front().x);
  chunk_bytes_ = (bytes + n_ - 1) / n_;
  fire_.assign(n_, 0);
  mean_ = ParamVector::Zero(agents.front().x.size());
}

void RingAllReduce::prepare(Agent& a) {
  // Local SGD averages after tau local steps: iterations tau-1, 2 tau-1, ... ((k+1) mod tau = 0).
  const int64_t k = what_ == ReduceWhat::kModels ? a.iteration + 1 : a.iteration;
  fire_[a.id.value] = trigger_.decide({k, 0.0, 0.0}, a.trigger_rng);
}

void RingAllReduce::send_stage(const Agent& a, uint32_t stage, Outbox& out) const {
  const AgentId next{(a.id.value + 1) % n_};
  out.send(
      Message{MessageKind::kReduceChunk, a.id, next, nullptr, chunk_bytes_, ReduceStage{stage}});
}

void RingAllReduce::communicate(Agent& a, Outbox& out) {
  if (!fire_[a.id.value]) return;
  out.event(a);
  if (n_ > 1) send_stage(a, 0, out);
}

void RingAllReduce::receive(Agent& a, const Message& m, Outbox& out) {
  DLSIM_CHECK(m.kind == MessageKind::kReduceChunk, "all-reduce got message kind {}",
              static_cast<int>(m.kind));
  // 2(n-1) stages: n-1 of reduce-scatter, then n-1 of all-gather.
  const uint32_t stage = m.payload_as<ReduceStage>().stage;
  if (stage + 1 < 2 * (n_ - 1)) send_stage(a, stage + 1, out);
}

bool RingAllReduce::round_reduces(std::span<Agent> agents) const {
  const bool first = fire_[agents.front().id.value];
  for (const Agent& a : agents)
    DLSIM_CHECK(static_cast<bool>(fire_[a.id.value]) == first,
                "all-reduce needs the same decision on every agent (agent {})", a.id.value);
  return first;
}

void RingAllReduce::before_updates(std::span<Agent> agents) {
  if (what_ != ReduceWhat::kGradients || !round_reduces(agents)) return;
  mean_.setZero();
  for (const Agent& a : agents) mean_ += a.g;
  mean_ /= static_cast<float>(n_);
}

void RingAllReduce::update(Agent& a) {
  const bool averaged_gradient = what_ == ReduceWhat::kGradients && fire_[a.id.value];
  a.learner->apply_step(a.x, averaged_gradient ? mean_ : a.g, a.iteration);
}

void RingAllReduce::after_updates(std::span<Agent> agents) {
  if (what_ != ReduceWhat::kModels || !round_reduces(agents)) return;
  mean_.setZero();
  for (const Agent& a : agents) mean_ += a.x;
  mean_ /= static_cast<float>(n_);
  for (Agent& a : agents) a.x = mean_;
}

void RingAllReduce::archive(AgentArchive& ar) {
  ar.sized_vector(fire_, "another number of agents");
  ar.params(mean_);
}
}  // namespace dlsim
