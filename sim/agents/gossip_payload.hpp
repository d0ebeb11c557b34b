// What a Gossiping SGD push carries besides the model (gossip.hpp): the push-sum weight the sender
// gave away, w_i / 2 (docs/algorithms.md, "Gossiping SGD").
#pragma once

#include "sim/core/state_archive.hpp"

namespace dlsim {

struct PushSumWeight {
  double weight = 0.0;  ///< the receiver mixes x <- sum w x / sum w with it

  /// For checkpoints (and, later, other ranks): both directions walk it.
  void archive(StateArchive& ar) { ar.value(weight); }
};

}  // namespace dlsim
