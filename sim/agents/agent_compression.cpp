#include "sim/agents/agent_compression.hpp"

#include "sim/agents/agent_archive.hpp"
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
                                  Payload extra) const {
  const uint64_t plain = payload_bytes(*params);
  Message m{kind, a.id, to, std::move(params), plain, std::move(extra)};
  if (enabled()) {
    m.size_bytes = state_[a.id.value].compressor->wire_bytes();
    m.uncompressed_bytes = plain;
  }
  return m;
}

Message AgentCompression::message(MessageKind kind, const Agent& a, AgentId to, Delta delta,
                                  uint32_t sequence) const {
  const uint64_t wire = delta->wire_bytes;
  Message m{kind, a.id, to, nullptr, wire, CompressedChange{std::move(delta), sequence}};
  if (enabled())
    m.uncompressed_bytes = m.payload_as<CompressedChange>().delta->dimension * sizeof(float);
  return m;
}

void CompressedChange::archive(AgentArchive& ar) {
  ar.delta(delta);
  ar.value(sequence);
}

}  // namespace dlsim
