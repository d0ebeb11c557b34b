// What an error-feedback message carries (agent_compression.hpp; CHOCO-SGD, DETSGRAD as
// SPARQ-SGD): C(v) for a change v that every holder adds to its copy, shared by every receiver of
// one event, and the event's number per sender so a holder can tell it missed one.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/compression/compressed_vector.hpp"

namespace dlsim {

class AgentArchive;

/// A compressed change to a copy, shared by every receiver of one event (CHOCO, SPARQ).
using Delta = std::shared_ptr<const CompressedVector>;

struct CompressedChange {
  Delta delta;            ///< never null in a message
  uint32_t sequence = 0;  ///< the sender's event number, from 1 (DETSGRAD); 0: not numbered (CHOCO)

  /// It carries model tensors (all of them) for the per-tensor counts (signals.hpp).
  bool carries_model() const { return true; }
  /// For checkpoints: the delta is written once however many messages share it
  /// (AgentArchive::delta), then the number.
  void archive(AgentArchive& ar);
};

}  // namespace dlsim
