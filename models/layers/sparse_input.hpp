// A block of input samples stored as their differences from a background value (the normalised
// zero pixel of an image dataset): x(j, s) = background + d(j, s), with d kept only where it is
// not zero, in two orders: by groups of samples (for y = W x) and by feature (for dW = dy x^T, one
// weight column at a time). MNIST digits differ from their background in about a fifth of their
// pixels, so the input layer's products over d cost about a fifth of the dense ones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

#include "models/layers/layer.hpp"

namespace dlsim::models::layers {

class SparseInput {
 public:
  /// The largest batch built: training batches of the usual sizes. Larger ones (evaluation, 500
  /// by default) run the dense product, which reuses W's blocks across hundreds of samples.
  static constexpr Index kMaxSamples = 128;
  /// Above this fraction of non-background entries the dense products are faster.
  static constexpr double kMaxDensity = 0.35;

  /// Sizes the buffers for (features, up to `samples`) inputs at kMaxDensity, samples <=
  /// kMaxSamples: the only allocation. Only grows the sample count (for the training batch size:
  /// buffers for 128 samples would be four times a 32-sample batch's).
  void reserve(Index features, Index samples);
  size_t bytes() const;

  /// Rebuilds from x (features, n), 0 < n <= the reserved samples. Returns false (and holds nothing
  /// usable) when more than kMaxDensity of x differs from background.
  bool build(ConstAct x, float background);

  float background() const { return background_; }
  Index features() const { return features_; }
  Index samples() const { return samples_; }
  /// Feature j's samples that differ from the background (ascending) and their d values.
  std::span<const uint32_t> feature_samples(Index j) const;
  std::span<const float> feature_values(Index j) const;

  /// Samples in groups of kGroup (the last may be short): the features where any of group g's
  /// samples differs from the background (ascending), and for each kGroup d values, sample by
  /// sample, 0 where a sample is at the background or past the batch. The forward product reads
  /// each of these columns of W once for the group instead of once per sample: same-digit
  /// samples share most of their pixels, so this is about half the reads.
  static constexpr Index kGroup = 4;
  Index groups() const { return (samples_ + kGroup - 1) / kGroup; }
  /// Group g holds samples [g * kGroup, g * kGroup + group_samples(g)).
  Index group_samples(Index g) const { return std::min(kGroup, samples_ - g * kGroup); }
  std::span<const uint32_t> group_features(Index g) const;
  const float* group_values(Index g) const;

 private:
  float background_ = 0.0f;
  Index features_ = 0;
  Index samples_ = 0;
  Index max_samples_ = 0;                      // reserved
  Index capacity_ = 0;                         // entries at kMaxDensity of max_samples_ samples
  std::unique_ptr<float[]> transposed_;        // (max_samples_, features): x^T
  std::unique_ptr<uint32_t[]> start_;          // features + 1
  std::unique_ptr<uint32_t[]> sample_;         // capacity + slack, by feature
  std::unique_ptr<float[]> value_;             // capacity + slack, by feature
  std::unique_ptr<uint32_t[]> group_start_;    // groups + 1
  std::unique_ptr<uint32_t[]> group_feature_;  // capacity + slack, by group
  std::unique_ptr<float[]> group_value_;       // kGroup * (capacity + slack), by group
};

}  // namespace dlsim::models::layers
