#include "models/batch.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim::models {

Batch::Batch(Eigen::Index dim, Eigen::Index capacity)
    : storage_(dim, capacity), labels_(static_cast<size_t>(capacity)) {}

void Batch::gather(const Dataset& data, std::span<const uint32_t> indices) {
  const Eigen::Index dim = data.features.rows();
  const auto n = static_cast<Eigen::Index>(indices.size());
  if (storage_.rows() != dim || storage_.cols() < n) {
    storage_.resize(dim, std::max(n, storage_.rows() == dim ? storage_.cols() : 0));
    labels_.resize(static_cast<size_t>(storage_.cols()));
  }
  for (Eigen::Index s = 0; s < n; ++s) {
    const uint32_t index = indices[static_cast<size_t>(s)];
    DLSIM_CHECK(index < data.size(), "sample {} of a dataset of {}", index, data.size());
    std::copy_n(data.features.col(index).data(), dim, storage_.col(s).data());
    labels_[static_cast<size_t>(s)] = data.labels[index];
  }
  size_ = n;
  background_ = data.background;
}

void Batch::flip_labels(uint32_t classes) {
  for (Eigen::Index s = 0; s < size_; ++s) {
    uint8_t& y = labels_[static_cast<size_t>(s)];
    DLSIM_CHECK(y < classes, "label {} of {} classes", y, classes);
    y = static_cast<uint8_t>(classes - 1 - y);
  }
}

}  // namespace dlsim::models
