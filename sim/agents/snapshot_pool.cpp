#include "sim/agents/snapshot_pool.hpp"

#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

std::shared_ptr<ParamVector> SnapshotPool::take_copy(const ParamVector& x) {
  auto buffer = take(x.size());
  float* to = buffer->data();
  const float* from = x.data();
  Eigen::Index i = 0;
#if defined(__AVX512F__)
  if (reinterpret_cast<uintptr_t>(to) % 64 == 0) {  // streaming stores take whole cache lines
    for (; i + 16 <= x.size(); i += 16) _mm512_stream_ps(to + i, _mm512_loadu_ps(from + i));
    _mm_sfence();  // ordered before the pointer is published to other threads
  }
#endif
  for (; i < x.size(); ++i) to[i] = from[i];
  return buffer;
}

}  // namespace dlsim
