// madvise(MADV_HUGEPAGE) on the interior of a buffer; see the header for why.
#include "models/data/huge_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dlsim::models {
namespace {

constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;

}  // namespace

void advise_huge_pages(void* data, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

Eigen::MatrixXf allocate_features(Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXf m(rows, cols);
  advise_huge_pages(m.data(), static_cast<size_t>(m.size()) * sizeof(float));
  return m;
}

void reserve_advised(std::vector<uint8_t>& buffer, size_t capacity) {
  if (capacity <= buffer.capacity()) return;
  buffer.reserve(capacity);
  advise_huge_pages(buffer.data(), buffer.capacity());
}

}  // namespace dlsim::models
