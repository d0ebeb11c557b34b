// What a per-tensor event's message carries besides the model (tensor_events.hpp; EventGraD,
// DETSGRAD with a per-tensor trigger): which tensors of the shared snapshot travel, and the
// event's number per sender, so a holder can tell it missed one (PartialCopies).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace dlsim {

class StateArchive;

/// The tensors a message carries (indices into the learner's parameter_tensors()), shared by
/// every receiver of one per-tensor event.
using Parts = std::shared_ptr<const std::vector<uint32_t>>;

struct TensorParts {
  Parts parts;            ///< never null in a message
  uint32_t sequence = 0;  ///< the sender's event number, from 1

  /// Only these tensors of the message's params travel (signals.hpp, tensors_sent).
  const std::vector<uint32_t>* tensors() const { return parts.get(); }
  /// For checkpoints: the indices are written with every message (a few numbers).
  void archive(StateArchive& ar);
};

/// Walks a Parts (null or a list) in either direction; loading makes a new shared list.
void archive_parts(StateArchive& ar, Parts& p);

}  // namespace dlsim
