// The `compression` of an algorithm that sends parameter vectors: one compressor per agent (its
// scratch and the agent's (seed, "compress", agent) stream), and the two ways an algorithm uses
// it (docs/compression.md):
// - naive: the message carries C(x) itself, decoded, which receivers use as the sender's model
//   (D-PSGD, Gossiping SGD, Elastic Gossip);
// - error feedback: the message carries C(v) for a change v, which every holder adds to its copy
//   (CHOCO-SGD, DETSGRAD as SPARQ-SGD).
// Disabled (no `compression` key): snapshots are plain copies and sizes 4 bytes per parameter.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sim/agents/agent.hpp"
#include "sim/agents/message.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/compression/compressor.hpp"

namespace dlsim {

class AgentCompression {
 public:
  explicit AgentCompression(const CompressionSpec& spec) : spec_(spec) {}

  bool enabled() const { return spec_.enabled(); }
  const CompressionSpec& spec() const { return spec_; }
  /// One compressor per agent, for its parameter count.
  void start(std::span<const Agent> agents);

  /// x as a snapshot from `pool`: C(x) decoded when enabled, a copy of x otherwise. Touches only
  /// agent a's state (its stream, its compressor's scratch) and `pool`'s use counts.
  std::shared_ptr<ParamVector> snapshot(Agent& a, SnapshotPool& pool, const ParamVector& x);
  /// C(x - base) for the change x - base (base empty: C(x)), from agent a's pool of messages
  /// (reused once nobody holds one); the change itself, densely, when compression is disabled.
  Delta delta(Agent& a, std::span<const float> x, std::span<const float> base = {});

  /// A message from a carrying `params` (a snapshot from snapshot()) and the algorithm's `extra`,
  /// or `delta` (numbered `sequence` when the algorithm counts events), with its exact payload
  /// size, and the uncompressed size when compressed (for the compression signal).
  Message message(MessageKind kind, const Agent& a, AgentId to, Snapshot params,
                  Payload extra = {}) const;
  Message message(MessageKind kind, const Agent& a, AgentId to, Delta delta,
                  uint32_t sequence = 0) const;

 private:
  struct PerAgent {
    std::optional<Compressor> compressor;
    CompressedVector scratch;  // naive compression: C(x) before it is decoded into a snapshot
    std::vector<std::shared_ptr<CompressedVector>> pool;
  };

  CompressionSpec spec_;
  std::vector<PerAgent> state_;
};

}  // namespace dlsim
