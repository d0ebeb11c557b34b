#include "models/layers/sparse_input.hpp"

#include <algorithm>
#include <cmath>

#include "models/layers/gemm.hpp"
#include "models/layers/simd.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models::layers {
namespace {

using simd::Vec;
constexpr Index kW = simd::kWidth;

// Room past the density limit: one whole run or group scanned past it, plus a vector's overshoot.
Index slack(Index features, Index samples) { return std::max(features, samples) + 16; }

// The entries of a contiguous run x[0, n) (a feature's row of x^T) that differ from the
// background: their positions and their d values, appended at index/values. Returns how many.
// Branch-free: a data-dependent branch per pixel mispredicts about once in five pixels. Whole
// vectors are stored into the slack: the lanes past `count` are overwritten by the next ones.
Index scan_run(const float* x, Index n, float background, uint32_t* index, float* values) {
  Index count = 0;
  const Vec bg = simd::set1(background);
  for (Index s = 0; s < n; s += kW) {
    const Vec v = simd::load_first(x + s, n - s);
    const unsigned differs = simd::differs(v, bg) & simd::first_lanes(n - s);
    simd::compress_positions(index + count, static_cast<uint32_t>(s), differs);
    count += simd::compress_store(values + count, simd::sub(v, bg), differs);
  }
  return count;
}

// The features where any of a group's n samples (columns of `features` floats from x) differs
// from the background: appends each such feature at index and its kGroup d values at values (0
// for samples at the background and lanes past n), and adds the group's differing entries to
// `entries`. Returns how many features.
Index scan_group(const float* x, Index features, Index n, float background, uint32_t* index,
                 float* values, Index& entries) {
  constexpr Index kGroup = SparseInput::kGroup;
  static_assert(kGroup == 4, "simd::transpose4 gives the values of 4 samples per feature");
  constexpr int kQuads = kW / 4;  // features per transposed vector
  Index count = 0;
  const Vec bg = simd::set1(background);
  for (Index j = 0; j < features; j += kW) {
    Vec d[kGroup];
    unsigned any = 0;
    for (Index k = 0; k < kGroup; ++k) {
      // Lanes past the batch or the features read as background: d = 0, not differing.
      Vec v = bg;
      if (k < n) {
        const unsigned valid = simd::first_lanes(features - j);
        v = simd::select(valid, simd::load_first(x + k * features + j, features - j), bg);
      }
      const unsigned differs = simd::differs(v, bg);
      entries += std::popcount(differs);
      any |= differs;
      d[k] = simd::sub(v, bg);
    }
    if (any == 0) continue;  // image borders: long runs of blank features
    Vec out[kGroup];         // out[q]: kQuads features of 4 samples each
    simd::transpose4(d, out);
    simd::compress_positions(index + count, static_cast<uint32_t>(j), any);
    for (int q = 0; q < 4; ++q)
      count += simd::compress_quads(values + kGroup * count, out[q],
                                    (any >> (kQuads * q)) & ((1u << kQuads) - 1u));
  }
  return count;
}

}  // namespace

void SparseInput::reserve(Index features, Index samples) {
  DLSIM_CHECK(samples > 0 && samples <= kMaxSamples, "a sparse input of {} samples (at most {})",
              samples, kMaxSamples);
  if (features == features_ && samples <= max_samples_) return;
  features_ = features;
  max_samples_ = std::max(samples, max_samples_);
  capacity_ = static_cast<Index>(
      std::floor(kMaxDensity * static_cast<double>(features) * static_cast<double>(max_samples_)));
  const auto entries = static_cast<size_t>(capacity_ + slack(features, max_samples_));
  transposed_.reset(new float[static_cast<size_t>(features * max_samples_)]);
  start_.reset(new uint32_t[static_cast<size_t>(features) + 1]);
  sample_.reset(new uint32_t[entries]);
  value_.reset(new float[entries]);
  group_start_.reset(new uint32_t[static_cast<size_t>(max_samples_ / kGroup) + 2]);
  group_feature_.reset(new uint32_t[entries]);
  group_value_.reset(new float[kGroup * entries]);
}

size_t SparseInput::bytes() const {
  if (features_ == 0) return 0;
  const auto entries = static_cast<size_t>(capacity_ + slack(features_, max_samples_));
  return static_cast<size_t>(features_ * max_samples_) * sizeof(float) +
         static_cast<size_t>(features_ + 1 + max_samples_ / kGroup + 2) * sizeof(uint32_t) +
         (3 + kGroup) * entries * sizeof(float);
}

bool SparseInput::build(ConstAct x, float background) {
  DLSIM_CHECK(x.rows() == features_ && x.cols() > 0 && x.cols() <= max_samples_,
              "sparse input of ({}, {}) in buffers for ({}, <= {})", x.rows(), x.cols(), features_,
              max_samples_);
  background_ = background;
  samples_ = x.cols();
  const auto limit = static_cast<Index>(
      std::floor(kMaxDensity * static_cast<double>(features_) * static_cast<double>(samples_)));
  // By group (for y = W x), checking the density on the way: a group's features are a union of
  // its samples', so at most their entries, within capacity while under the limit.
  Index entries = 0;
  Index total = 0;
  group_start_[0] = 0;
  for (Index g = 0; g < groups(); ++g) {
    total += scan_group(x.col(g * kGroup).data(), features_, group_samples(g), background,
                        group_feature_.get() + total, group_value_.get() + kGroup * total, entries);
    if (entries > limit) return false;
    group_start_[g + 1] = static_cast<uint32_t>(total);
  }
  // By feature (for dW = dy x^T): scanning x^T gives each feature's samples in one run.
  transpose(x.data(), features_, samples_, transposed_.get());
  total = 0;
  start_[0] = 0;
  for (Index j = 0; j < features_; ++j) {
    total += scan_run(transposed_.get() + j * samples_, samples_, background, sample_.get() + total,
                      value_.get() + total);
    start_[j + 1] = static_cast<uint32_t>(total);
  }
  return true;
}

std::span<const uint32_t> SparseInput::feature_samples(Index j) const {
  return {sample_.get() + start_[j], start_[j + 1] - start_[j]};
}

std::span<const float> SparseInput::feature_values(Index j) const {
  return {value_.get() + start_[j], start_[j + 1] - start_[j]};
}

std::span<const uint32_t> SparseInput::group_features(Index g) const {
  return {group_feature_.get() + group_start_[g], group_start_[g + 1] - group_start_[g]};
}

const float* SparseInput::group_values(Index g) const {
  return group_value_.get() + kGroup * group_start_[g];
}

}  // namespace dlsim::models::layers
