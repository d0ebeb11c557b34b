// What a ring all-reduce chunk carries (ring_allreduce.hpp): its stage, 0 to 2(n - 1) - 1, the
// first n - 1 of reduce-scatter and the rest of all-gather.
#pragma once

#include <cstdint>

#include "sim/core/state_archive.hpp"

namespace dlsim {

struct ReduceStage {
  uint32_t stage = 0;

  /// For checkpoints (and, later, other ranks): both directions walk it.
  void archive(StateArchive& ar) { ar.value(stage); }
};

}  // namespace dlsim
