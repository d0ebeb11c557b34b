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

// Room past the density limit: one whole run or group scanned past it, plus a vector's overshoot.
Index slack(Index features, Index samples) { return std::max(features, samples) + 16; }

// The entries of a contiguous run x[0, n) (a feature's row of x^T) that differ from the
// background: their positions and their d values, appended at index/values. Returns how many.
// Branch-free: a data-dependent branch per pixel mispredicts about once in five pixels.
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

// The features where any of a group's n samples (columns of `features` floats from x) differs
// from the background: appends each such feature at index and its kGroup d values at values (0
// for samples at the background and lanes past n), and adds the group's differing entries to
// `entries`. Returns how many features.
Index scan_group(const float* x, Index features, Index n, float background, uint32_t* index,
                 float* values, Index& entries) {
  constexpr Index kGroup = SparseInput::kGroup;
  Index count = 0;
  Index j = 0;
#if defined(__AVX512F__)
  static_assert(kGroup == 4, "a group's values for four features fill one vector");
  // Nibble q of a feature mask, spread to its four features' value lanes.
  static constexpr uint16_t kSpread[16] = {0x0000, 0x000f, 0x00f0, 0x00ff, 0x0f00, 0x0f0f,
                                           0x0ff0, 0x0fff, 0xf000, 0xf00f, 0xf0f0, 0xf0ff,
                                           0xff00, 0xff0f, 0xfff0, 0xffff};
  const __m512 bg = _mm512_set1_ps(background);
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (; j < features; j += 16) {
    const __mmask16 valid =
        features - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (features - j)) - 1u);
    __m512 d[kGroup];
    __mmask16 any = 0;
    for (Index k = 0; k < kGroup; ++k) {
      // Lanes past the batch or the features read as background: d = 0, not differing.
      const __mmask16 real = k < n ? valid : __mmask16(0);
      const __m512 v = k < n ? _mm512_mask_loadu_ps(bg, valid, x + k * features + j) : bg;
      const __mmask16 differs = _mm512_mask_cmp_ps_mask(real, v, bg, _CMP_NEQ_UQ);
      entries += _mm_popcnt_u32(differs);
      any |= differs;
      d[k] = _mm512_sub_ps(v, bg);
    }
    if (any == 0) continue;  // image borders: long runs of blank features
    // Transpose (samples, 16 features) to 16 features of 4 samples: out[q] holds features
    // 4q .. 4q + 3. In each 128-bit lane L, u[r] gets feature 4L + r; then the lanes are gathered.
    const __m512 t0 = _mm512_unpacklo_ps(d[0], d[1]), t1 = _mm512_unpackhi_ps(d[0], d[1]);
    const __m512 t2 = _mm512_unpacklo_ps(d[2], d[3]), t3 = _mm512_unpackhi_ps(d[2], d[3]);
    auto pairs = [](__m512 a, __m512 b, bool high) {
      return _mm512_castpd_ps(high ? _mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b))
                                   : _mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
    };
    const __m512 u0 = pairs(t0, t2, false), u1 = pairs(t0, t2, true);
    const __m512 u2 = pairs(t1, t3, false), u3 = pairs(t1, t3, true);
    const __m512 lo01 = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 lo23 = _mm512_shuffle_f32x4(u2, u3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi01 = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 hi23 = _mm512_shuffle_f32x4(u2, u3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 out[4] = {_mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(2, 0, 2, 0)),
                           _mm512_shuffle_f32x4(lo01, lo23, _MM_SHUFFLE(3, 1, 3, 1)),
                           _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(2, 0, 2, 0)),
                           _mm512_shuffle_f32x4(hi01, hi23, _MM_SHUFFLE(3, 1, 3, 1))};
    // Compress in registers and store whole vectors into the slack (as scan_run does).
    _mm512_storeu_si512(index + count,
                        _mm512_maskz_compress_epi32(
                            any, _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(j)))));
    for (int q = 0; q < 4; ++q) {
      const unsigned nibble = (any >> (4 * q)) & 0xfu;
      _mm512_storeu_ps(values + kGroup * count, _mm512_maskz_compress_ps(kSpread[nibble], out[q]));
      count += _mm_popcnt_u32(nibble);
    }
  }
#endif
  for (; j < features; ++j) {
    bool differs = false;
    for (Index k = 0; k < kGroup; ++k) {
      const float v = k < n ? x[k * features + j] : background;
      values[kGroup * count + k] = v - background;
      const bool lit = k < n && v != background;
      differs |= lit;
      entries += lit ? 1 : 0;
    }
    index[count] = static_cast<uint32_t>(j);
    count += differs ? 1 : 0;
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
