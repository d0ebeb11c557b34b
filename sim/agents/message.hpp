// What agents send each other. The network moves only a byte count and a tag; the content stays
// here: parameters as a shared immutable snapshot (memory per sender, not per edge), and what only
// the algorithm reads as its payload (payload.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <variant>

#include "sim/agents/agent.hpp"
#include "sim/agents/learner.hpp"
#include "sim/agents/payload.hpp"
#include "sim/core/error.hpp"
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

struct Message {
  Message() = default;
  Message(MessageKind k, AgentId sender, AgentId receiver, Snapshot p, uint64_t size,
          Payload extra = {})
      : kind(k),
        from(sender),
        to(receiver),
        params(std::move(p)),
        size_bytes(size),
        payload(std::move(extra)) {}

  /// The payload of type T, which the message must hold (the algorithm that sent it knows).
  template <class T>
  const T& payload_as() const {
    const T* p = std::get_if<T>(&payload);
    DLSIM_CHECK(p != nullptr, "a message of kind {} holds payload {}, not the one asked for",
                static_cast<int>(kind), payload.index());
    return *p;
  }
  /// The payload of type T, or null when it holds another.
  template <class T>
  const T* payload_if() const {
    return std::get_if<T>(&payload);
  }

  MessageKind kind = MessageKind::kParams;
  AgentId from;
  AgentId to;
  Snapshot params;  // null for requests
  uint64_t size_bytes = 0;
  uint64_t uncompressed_bytes = 0;  // what the payload would take uncompressed; 0: not compressed
  /// What only the algorithm reads (a push-sum weight, a stage, a compressed change, parts).
  Payload payload;
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
