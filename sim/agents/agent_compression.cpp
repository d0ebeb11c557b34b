#include "sim/agents/agent_compression.hpp"

#include "sim/core/error.hpp"

namespace dlsim {

void AgentCompression::start(std::span<const Agent> agents) {
  state_.clear();
  state_.resize(agents.size());
  for (const Agent& a : agents)
    state_[a.id.value].compressor.emplace(spec_, static_cast<uint64_t>(a.x.size()));
}

std::shared_ptr<ParamVector> AgentCompression::snapshot(Agent& a, SnapshotPool& pool,
                                                        const ParamVector& x) {
  if (!enabled()) return pool.take_copy(x);
  PerAgent& s = state_[a.id.value];
  s.compressor->compress(std::span<const float>(x.data(), static_cast<size_t>(x.size())),
                         a.compress_rng, s.scratch);
  auto buffer = pool.take(x.size());
  s.scratch.assign_to(std::span<float>(buffer->data(), static_cast<size_t>(buffer->size())));
  return buffer;
}

Delta AgentCompression::delta(Agent& a, std::span<const float> x, std::span<const float> base) {
  PerAgent& s = state_[a.id.value];
  // Same reuse rule as SnapshotPool: a message nobody else holds any more is free again.
  std::shared_ptr<CompressedVector>* free = nullptr;
  for (auto& m : s.pool)
    if (m.use_count() == 1) {
      free = &m;
      break;
    }
  if (!free) free = &s.pool.emplace_back(std::make_shared<CompressedVector>());
  s.compressor->compress_difference(x, base, a.compress_rng, **free);
  return *free;
}

Message AgentCompression::message(MessageKind kind, const Agent& a, AgentId to, Snapshot params,
                                  double weight) const {
  const uint64_t plain = payload_bytes(*params);
  Message m{kind, a.id, to, std::move(params), weight, 0, plain};
  if (enabled()) {
    m.size_bytes = state_[a.id.value].compressor->wire_bytes();
    m.uncompressed_bytes = plain;
  }
  return m;
}

Message AgentCompression::message(MessageKind kind, const Agent& a, AgentId to,
                                  Delta delta) const {
  Message m{kind, a.id, to, nullptr, 0.0, 0, delta->wire_bytes};
  if (enabled()) m.uncompressed_bytes = delta->dimension * sizeof(float);
  m.delta = std::move(delta);
  return m;
}

}  // namespace dlsim
