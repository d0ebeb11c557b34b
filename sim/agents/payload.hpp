// What a message carries that only its algorithm reads: a payload type each algorithm defines
// beside itself (gossip_payload.hpp, ring_allreduce_payload.hpp, compressed_change.hpp,
// tensor_parts.hpp), held inline in the message. Walked as a whole for checkpoints
// (AgentArchive::payload), and the seam where an attack will replace what a message says and a
// transport across ranks will serialize it.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "sim/agents/compressed_change.hpp"
#include "sim/agents/gossip_payload.hpp"
#include "sim/agents/ring_allreduce_payload.hpp"
#include "sim/agents/tensor_parts.hpp"

namespace dlsim {

// THE one central list of payload types, kept for speed: a std::variant stores the payload in the
// message itself (no allocation per message, millions of which are sent) and its index is the
// tag a checkpoint writes. A new algorithm's payload is a struct beside it with one
// `void archive(StateArchive&)` (or AgentArchive&, to share buffers), appended HERE, at the end:
// inserting one elsewhere renumbers the saved tags (then bump kFormat in sim/run/checkpoint.cpp).
// Nothing else switches on the type: an algorithm reads its own with Message::payload_as<T>().
using Payload =
    std::variant<std::monostate, PushSumWeight, ReduceStage, CompressedChange, TensorParts>;

/// The tensors a payload says travel (null: all of the message's params, or none). Optional in a
/// payload type: `const std::vector<uint32_t>* tensors() const`.
inline const std::vector<uint32_t>* payload_tensors(const Payload& p) {
  return std::visit(
      [](const auto& v) -> const std::vector<uint32_t>* {
        if constexpr (requires { v.tensors(); })
          return v.tensors();
        else
          return nullptr;
      },
      p);
}

/// Whether a payload holds model tensors itself, without the message's params (a compressed
/// change). Optional in a payload type: `bool carries_model() const`.
inline bool payload_carries_model(const Payload& p) {
  return std::visit(
      [](const auto& v) {
        if constexpr (requires { v.carries_model(); })
          return v.carries_model();
        else
          return false;
      },
      p);
}

}  // namespace dlsim
