// A mini-batch gathered from a Dataset by sample indices into a buffer that is reused: once it
// has held a batch of a given dimension and size, gathering another allocates nothing.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

class Batch {
 public:
  Batch() = default;
  /// Pre-sizes the buffers for samples of `dim` features and up to `capacity` samples.
  Batch(Eigen::Index dim, Eigen::Index capacity);

  /// Copies columns `indices` of data.features and their labels. Allocates only when the sample
  /// dimension changes or indices.size() exceeds every earlier size. Precondition: indices < size.
  void gather(const Dataset& data, std::span<const uint32_t> indices);

  /// Replaces each label y by (classes - 1) - y: a label-flipping attacker's data (9 - y for ten
  /// classes). Precondition: every label < classes.
  void flip_labels(uint32_t classes);

  /// (dim, size()): one sample per column.
  Eigen::Map<const Eigen::MatrixXf> features() const {
    return {storage_.data(), storage_.rows(), size_};
  }
  std::span<const uint8_t> labels() const { return {labels_.data(), static_cast<size_t>(size_)}; }
  Eigen::Index size() const { return size_; }
  Eigen::Index dim() const { return storage_.rows(); }
  /// The dataset's background value (Dataset::background).
  std::optional<float> background() const { return background_; }

 private:
  Eigen::MatrixXf storage_;      // (dim, capacity)
  std::vector<uint8_t> labels_;  // capacity
  Eigen::Index size_ = 0;
  std::optional<float> background_;
};

}  // namespace dlsim::models
