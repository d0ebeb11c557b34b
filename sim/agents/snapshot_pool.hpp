// Reusable parameter buffers for snapshots (broadcast copies, EASGD's replies). A buffer whose
// only owner is the pool (no message, neighbour or algorithm holds it any more) is handed out
// again instead of allocating a new one, so a run allocates only while the number of snapshots
// alive at once grows. A model-sized allocation is not cheap: hundreds of fresh pages to fault in.
#pragma once

#include <memory>
#include <vector>

#include "sim/agents/learner.hpp"

namespace dlsim {

/// Not thread-safe, and use_count() must be exact when take() runs: no other thread may copy or
/// drop this pool's snapshots meanwhile. Each owner says why that holds for it.
class SnapshotPool {
 public:
  /// A buffer of `size` parameters that nobody else holds; its contents are left over.
  std::shared_ptr<ParamVector> take(Eigen::Index size);
  /// A buffer that nobody else holds, holding a copy of x. The copy bypasses the caches: its
  /// readers are other agents, later, and a cached write would first read the buffer's old
  /// contents from memory.
  std::shared_ptr<ParamVector> take_copy(const ParamVector& x);
  /// Buffers held (in use or free).
  size_t buffers() const { return buffers_.size(); }

 private:
  std::vector<std::shared_ptr<ParamVector>> buffers_;
};

}  // namespace dlsim
