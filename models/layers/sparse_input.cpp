#include "models/layers/sparse_input.hpp"

#include <algorithm>
#include <cmath>

#include "models/layers/gemm.hpp"
#include "sim/core/error.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {
namespace {

// Room past the density limit: one whole run scanned past it, plus a vector's overshoot.
Index slack(Index features, Index samples) { return std::max(features, samples) + 16; }

// The entries of a contiguous run x[0, n) (a sample, or a feature's row of x^T) that differ from
// the background: their positions and their d values, appended at index/values. Returns how
// many. Branch-free: a data-dependent branch per pixel mispredicts about once in five pixels.
Index scan_run(const float* x, Index n, float background, uint32_t* index, float* values) {
  Index count = 0;
  Index s = 0;
#if defined(__AVX512F__)
  const __m512 bg = _mm512_set1_ps(background);
  __m512i position = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (; s < n; s += 16) {
    const __mmask16 valid = n - s >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - s)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(valid, x + s);
    const __mmask16 differs = _mm512_mask_cmp_ps_mask(valid, v, bg, _CMP_NEQ_UQ);
    // Compress in registers and store whole vectors (compressing stores are slow on AMD): the
    // lanes past `count` land in the slack and are overwritten by the next ones.
    _mm512_storeu_ps(values + count, _mm512_maskz_compress_ps(differs, _mm512_sub_ps(v, bg)));
    _mm512_storeu_si512(index + count, _mm512_maskz_compress_epi32(differs, position));
    count += _mm_popcnt_u32(differs);
    position = _mm512_add_epi32(position, _mm512_set1_epi32(16));
  }
#endif
  for (; s < n; ++s) {
    index[count] = static_cast<uint32_t>(s);
    values[count] = x[s] - background;
    count += x[s] != background ? 1 : 0;
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
  capacity_ = static_cast<Index>(std::floor(kMaxDensity * static_cast<double>(features) *
                                            static_cast<double>(max_samples_)));
  const auto entries = static_cast<size_t>(capacity_ + slack(features, max_samples_));
  transposed_.reset(new float[static_cast<size_t>(features * max_samples_)]);
  sample_start_.reset(new uint32_t[static_cast<size_t>(max_samples_) + 1]);
  feature_.reset(new uint32_t[entries]);
  sample_value_.reset(new float[entries]);
  start_.reset(new uint32_t[static_cast<size_t>(features) + 1]);
  sample_.reset(new uint32_t[entries]);
  value_.reset(new float[entries]);
}

size_t SparseInput::bytes() const {
  if (features_ == 0) return 0;
  const auto entries = static_cast<size_t>(capacity_ + slack(features_, max_samples_));
  return static_cast<size_t>(features_ * max_samples_) * sizeof(float) +
         static_cast<size_t>(max_samples_ + features_ + 2) * sizeof(uint32_t) +
         4 * entries * sizeof(float);
}

bool SparseInput::build(ConstAct x, float background) {
  DLSIM_CHECK(x.rows() == features_ && x.cols() > 0 && x.cols() <= max_samples_,
              "sparse input of ({}, {}) in buffers for ({}, <= {})", x.rows(), x.cols(), features_,
              max_samples_);
  background_ = background;
  samples_ = x.cols();
  const auto limit = static_cast<Index>(
      std::floor(kMaxDensity * static_cast<double>(features_) * static_cast<double>(samples_)));
  Index total = 0;
  sample_start_[0] = 0;
  for (Index s = 0; s < samples_; ++s) {
    total += scan_run(x.col(s).data(), features_, background, feature_.get() + total,
                      sample_value_.get() + total);
    if (total > limit) return false;
    sample_start_[s + 1] = static_cast<uint32_t>(total);
  }
  // The same entries by feature: scanning x^T gives each feature's samples in one run.
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

std::span<const uint32_t> SparseInput::sample_features(Index s) const {
  return {feature_.get() + sample_start_[s], sample_start_[s + 1] - sample_start_[s]};
}

std::span<const float> SparseInput::sample_values(Index s) const {
  return {sample_value_.get() + sample_start_[s], sample_start_[s + 1] - sample_start_[s]};
}

std::span<const uint32_t> SparseInput::feature_samples(Index j) const {
  return {sample_.get() + start_[j], start_[j + 1] - start_[j]};
}

std::span<const float> SparseInput::feature_values(Index j) const {
  return {value_.get() + start_[j], start_[j + 1] - start_[j]};
}

}  // namespace dlsim::models::layers
