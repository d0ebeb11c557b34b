// Bounded send buffers under network.sharing "maxmin" (network.send_buffer, network.when_full):
// every message starts its flow at once, so a (sender, destination) buffer holds the messages
// whose flows have not ended yet (their bits are still leaving the sender). It is full when it
// holds the bound (messages), or when the new message would take it past the bound (bytes; one
// message always fits). A full buffer, as in send_buffers.hpp: kLatestValue copies with
// "coalesce" replace the newest held copy of the same size (same slot and flow, whose timing is
// unchanged: the newer copy travels in its place), with "drop" are refused; otherwise the message
// starts anyway and its sender is blocked until each of its buffers is back within the bound, a
// time only known when flows end: the network then schedules a kSenderReady event.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/state_archive.hpp"
#include "sim/network/send_buffers.hpp"

namespace dlsim {

class FlowBuffers {
 public:
  FlowBuffers(const SendBufferConfig& config, uint32_t nodes);

  /// A message of `bytes` (wire bytes) from -> to offered now; kEnter records it in `slot`.
  SendBuffers::Decision offer(uint32_t from, uint32_t to, uint64_t bytes, Buffering buffering,
                              uint32_t slot);
  /// The flow of `slot` (from -> to) ended or was lost; true when `from` was blocked and no
  /// longer is.
  bool ended(uint32_t from, uint32_t to, uint32_t slot);
  /// Whether `node` has a buffer beyond its bound (its agent waits for kSenderReady).
  bool blocked(uint32_t node) const { return over_[node] != 0; }

  void archive(StateArchive& ar);

 private:
  struct Held {
    uint64_t bytes;
    uint32_t slot;
    uint32_t zero = 0;  // the padding, named: checkpoints write these bytes
  };
  // Beyond the bound (with a new message of new_bytes when with_new).
  bool over(const std::vector<Held>& held, bool with_new, uint64_t new_bytes) const;

  SendBufferConfig config_;
  BufferPairs<Held> pairs_;     // per (sender, destination): in offer order; short: about the bound
  std::vector<uint32_t> over_;  // per node: its pairs beyond the bound
};

}  // namespace dlsim
