#include "sim/agents/snapshot_pool.hpp"

namespace dlsim {

std::shared_ptr<ParamVector> SnapshotPool::take(Eigen::Index size) {
  for (const auto& buffer : buffers_) {
    if (buffer.use_count() != 1) continue;
    buffer->resize(size);  // no allocation at the same size
    return buffer;
  }
  buffers_.push_back(std::make_shared<ParamVector>(size));
  return buffers_.back();
}

}  // namespace dlsim
