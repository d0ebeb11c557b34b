// What agents send each other. The network moves only a byte count and a tag; the payload stays
// here, and parameters travel as a shared immutable snapshot (memory per sender, not per edge).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/agents/agent.hpp"
#include "sim/agents/learner.hpp"
#include "sim/compression/compressed_vector.hpp"
#include "sim/core/ids.hpp"
#include "sim/network/send_buffers.hpp"

namespace dlsim {

enum class MessageKind : uint8_t {
  kParams,        ///< a model (DETSGRAD broadcast, D-PSGD, gossip push, elastic exchange)
  kPullRequest,   ///< gossip pull / elastic gossip: "send me your parameters"
  kPullReply,     ///< the answer to a pull request
  kReduceChunk,   ///< one stage of a ring all-reduce: a 1/n share of a vector
  kElasticDelta,  ///< EASGD: the server's answer d = alpha (x_i - z) to a worker's kParams
  kRejoinModel,   ///< churn: a live neighbour's model for an agent that came back (the run's own)
};

/// A compressed change to a copy, shared by every receiver of one event (CHOCO, SPARQ).
using Delta = std::shared_ptr<const CompressedVector>;
/// The tensors a message carries (indices into the learner's parameter_tensors()), shared by
/// every receiver of one per-tensor event (tensor_events.hpp).
using Parts = std::shared_ptr<const std::vector<uint32_t>>;

struct Message {
  Message() = default;
  Message(MessageKind k, AgentId sender, AgentId receiver, Snapshot p, double w, uint32_t s,
          uint64_t size)
      : kind(k), from(sender), to(receiver), params(std::move(p)), weight(w), stage(s),
        size_bytes(size) {}

  MessageKind kind = MessageKind::kParams;
  AgentId from;
  AgentId to;
  Snapshot params;        // null for requests
  double weight = 0.0;    // push-sum weight (gossip push); 0 otherwise
  uint32_t stage = 0;     // all-reduce stage
  uint64_t size_bytes = 0;
  Delta delta;                  // a compressed change (null otherwise)
  uint64_t uncompressed_bytes = 0;  // what the payload would take uncompressed; 0: not compressed
  Parts parts;  // only these tensors of `params` travel (null: all of it)
  /// kLatestValue: a newer message from the same sender makes this one worthless, so a full send
  /// buffer may supersede it (network.when_full); kEveryMessage: it must arrive (default).
  Buffering buffering = Buffering::kEveryMessage;
};

/// An algorithm's one port to the world, used in the event loop (communicate and receive): the
/// messages it sends, and its events. The run layer routes messages through the network model
/// and turns events into signals; unit tests may deliver directly and count.
class Outbox {
 public:
  virtual ~Outbox() = default;
  /// Sends m (m.from, m.to, m.size_bytes set by the caller).
  virtual void send(Message m) = 0;
  /// Agent a's trigger fired at its current iteration: it communicates (once per event).
  virtual void event(const Agent& a) = 0;
};

/// Bytes of a message carrying `params`: 4 bytes per float. Header bytes are the network's.
inline uint64_t payload_bytes(const ParamVector& params) {
  return static_cast<uint64_t>(params.size()) * sizeof(float);
}

}  // namespace dlsim
