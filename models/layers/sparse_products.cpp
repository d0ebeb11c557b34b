#include "models/layers/sparse_products.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {
namespace {

#if defined(__AVX512F__)

// Rows are handled in chunks of up to 16 vectors (256 floats; 4 in the group forward): one
// accumulator register per vector (and sample), the other operand read from memory by the FMA.
// The chunk's last vector is masked. Each kernel loops over all the features it combines itself,
// so that consecutive (independent) sums overlap in the pipeline; its pointers are offset to the
// chunk's first row.
constexpr int kMaxVectors = 16;
constexpr Index kChunk = 16 * kMaxVectors;

template <int NV>
__mmask16 lane_mask(int v, __mmask16 last) {
  return v == NV - 1 ? last : __mmask16(0xffff);
}

// acc[v] += sum_e values[e] * m(:, index[e]), for the chunk's rows.
template <int NV>
void combine_columns(const float* m, Index ld, std::span<const uint32_t> index,
                     std::span<const float> values, __m512 (&acc)[NV], __mmask16 last) {
  for (size_t e = 0; e < index.size(); ++e) {
    const float* col = m + static_cast<Index>(index[e]) * ld;
    const __m512 value = _mm512_set1_ps(values[e]);
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[v] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(lane_mask<NV>(v, last), col + 16 * v), value,
                               acc[v]);
  }
}

// base = b + background * W 1 for the chunk's rows: the row sum in one pass over W.
template <int NV>
void row_sum_chunk(const float* w, Index ld, Index features, float background, const float* b,
                   float* base, __mmask16 last) {
  __m512 sum[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) sum[v] = _mm512_setzero_ps();
  for (Index j = 0; j < features; ++j)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      sum[v] =
          _mm512_add_ps(sum[v], _mm512_maskz_loadu_ps(lane_mask<NV>(v, last), w + j * ld + 16 * v));
  const __m512 bg = _mm512_set1_ps(background);
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const __mmask16 m = lane_mask<NV>(v, last);
    _mm512_mask_storeu_ps(base + 16 * v, m,
                          _mm512_fmadd_ps(sum[v], bg, _mm512_maskz_loadu_ps(m, b + 16 * v)));
  }
}

// y(:, s) = base + W d(:, s) for the kGroup samples of one group (n of them real), the chunk's
// rows: each of the group's columns of W is read once and used for all its samples. A sample
// absent from a column adds W * 0: with finite W that changes nothing but a -0 sum into +0, so
// each sample's sum is the one it would take over its own features alone. (An infinite weight
// already makes every sum non-finite through the row sum in base; it may then be NaN, not inf.)
constexpr int kGroup = static_cast<int>(SparseInput::kGroup);
constexpr int kMaxGroupVectors = 4;  // kGroup x 4 accumulators + 4 columns fit the 32 registers
constexpr Index kGroupChunk = 16 * kMaxGroupVectors;

template <int NV>
void group_forward_chunk(const float* w, Index ld, std::span<const uint32_t> features,
                         const float* values, const float* base, Index n, float* y,
                         __mmask16 last) {
  __m512 acc[kGroup * NV];  // sample k's vector v at k * NV + v (GCC keeps a flat array in
                            // registers, not a two-dimensional one)
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const __m512 start = _mm512_maskz_loadu_ps(lane_mask<NV>(v, last), base + 16 * v);
#pragma GCC unroll 4
    for (int k = 0; k < kGroup; ++k) acc[k * NV + v] = start;
  }
  for (size_t e = 0; e < features.size(); ++e) {
    const float* col = w + static_cast<Index>(features[e]) * ld;
    __m512 column[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      column[v] = _mm512_maskz_loadu_ps(lane_mask<NV>(v, last), col + 16 * v);
#pragma GCC unroll 4
    for (int k = 0; k < kGroup; ++k) {
      const __m512 value = _mm512_set1_ps(values[kGroup * e + static_cast<size_t>(k)]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[k * NV + v] = _mm512_fmadd_ps(column[v], value, acc[k * NV + v]);
    }
  }
#pragma GCC unroll 4
  for (int k = 0; k < kGroup; ++k)
    if (k < n)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        _mm512_mask_storeu_ps(y + k * ld + 16 * v, lane_mask<NV>(v, last), acc[k * NV + v]);
}

// Weight column j's gradient for every j: scale * (start + sum over j's samples of d(j, s) *
// dy(:, s)), written to g(:, j) or added to it.
template <int NV>
void gradient_chunk(const float* dy, Index ld, const SparseInput& x, const float* start,
                    float scale, bool accumulate, float* g, __mmask16 last) {
  const __m512 s = _mm512_set1_ps(scale);
  for (Index j = 0; j < x.features(); ++j) {
    __m512 acc[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[v] = _mm512_maskz_loadu_ps(lane_mask<NV>(v, last), start + 16 * v);
    combine_columns<NV>(dy, ld, x.feature_samples(j), x.feature_values(j), acc, last);
    float* gj = g + j * ld;
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const __mmask16 m = lane_mask<NV>(v, last);
      const __m512 old = accumulate ? _mm512_maskz_loadu_ps(m, gj + 16 * v) : _mm512_setzero_ps();
      _mm512_mask_storeu_ps(gj + 16 * v, m, _mm512_fmadd_ps(acc[v], s, old));
    }
  }
}

using RowSumChunk = void (*)(const float*, Index, Index, float, const float*, float*, __mmask16);
using GroupForwardChunk = void (*)(const float*, Index, std::span<const uint32_t>, const float*,
                                   const float*, Index, float*, __mmask16);
using GradientChunk = void (*)(const float*, Index, const SparseInput&, const float*, float, bool,
                               float*, __mmask16);

template <size_t... V>
constexpr auto row_sum_table(std::index_sequence<V...>) {
  return std::array<RowSumChunk, kMaxVectors>{&row_sum_chunk<static_cast<int>(V) + 1>...};
}
template <size_t... V>
constexpr auto group_forward_table(std::index_sequence<V...>) {
  return std::array<GroupForwardChunk, kMaxGroupVectors>{
      &group_forward_chunk<static_cast<int>(V) + 1>...};
}
template <size_t... V>
constexpr auto gradient_table(std::index_sequence<V...>) {
  return std::array<GradientChunk, kMaxVectors>{&gradient_chunk<static_cast<int>(V) + 1>...};
}

constexpr auto kRowSum = row_sum_table(std::make_index_sequence<kMaxVectors>{});
constexpr auto kGroupForward = group_forward_table(std::make_index_sequence<kMaxGroupVectors>{});
constexpr auto kGradient = gradient_table(std::make_index_sequence<kMaxVectors>{});

// Calls f(r0, vectors - 1, last-vector mask) for each chunk of `rows`.
template <class F>
void for_each_chunk(Index rows, Index chunk, F&& f) {
  for (Index r0 = 0; r0 < rows; r0 += chunk) {
    const Index len = std::min(chunk, rows - r0);
    const Index vectors = (len + 15) / 16;
    const Index tail = len - 16 * (vectors - 1);
    f(r0, static_cast<size_t>(vectors - 1),
      tail == 16 ? __mmask16(0xffff) : __mmask16((1u << tail) - 1u));
  }
}

#endif

}  // namespace

void sparse_forward(const float* w, const float* b, Index out, const SparseInput& x, float* base,
                    float* y) {
#if defined(__AVX512F__)
  for_each_chunk(out, kChunk, [&](Index r0, size_t nv, __mmask16 last) {
    kRowSum[nv](w + r0, out, x.features(), x.background(), b + r0, base + r0, last);
  });
  for (Index g = 0; g < x.groups(); ++g) {
    const Index s0 = g * SparseInput::kGroup;
    for_each_chunk(out, kGroupChunk, [&](Index r0, size_t nv, __mmask16 last) {
      kGroupForward[nv](w + r0, out, x.group_features(g), x.group_values(g), base + r0,
                        x.group_samples(g), y + s0 * out + r0, last);
    });
  }
#else
  using Column = Eigen::Map<const Eigen::VectorXf>;
  Eigen::Map<Eigen::VectorXf> sum(base, out);
  sum.setZero();
  for (Index j = 0; j < x.features(); ++j) sum += Column(w + j * out, out);
  sum = Column(b, out) + x.background() * sum;
  for (Index s = 0; s < x.samples(); ++s) Eigen::Map<Eigen::VectorXf>(y + s * out, out) = sum;
  for (Index g = 0; g < x.groups(); ++g) {
    const Index s0 = g * SparseInput::kGroup;
    const auto features = x.group_features(g);
    const float* values = x.group_values(g);
    for (size_t e = 0; e < features.size(); ++e)
      for (Index k = 0; k < x.group_samples(g); ++k)
        Eigen::Map<Eigen::VectorXf>(y + (s0 + k) * out, out) +=
            values[SparseInput::kGroup * e + static_cast<size_t>(k)] *
            Column(w + features[e] * out, out);
  }
#endif
}

void sparse_weight_gradient(const float* dy, const float* dy_sum, Index out, const SparseInput& x,
                            float scale, Accumulate mode, float* base, float* grad) {
  for (Index r = 0; r < out; ++r) base[r] = x.background() * dy_sum[r];
  const bool accumulate = mode == Accumulate::kYes;
#if defined(__AVX512F__)
  for_each_chunk(out, kChunk, [&](Index r0, size_t nv, __mmask16 last) {
    kGradient[nv](dy + r0, out, x, base + r0, scale, accumulate, grad + r0, last);
  });
#else
  for (Index j = 0; j < x.features(); ++j) {
    const auto samples = x.feature_samples(j);
    const auto values = x.feature_values(j);
    Eigen::Map<Eigen::VectorXf> gj(grad + j * out, out);
    const Eigen::Map<const Eigen::VectorXf> start(base, out);
    if (accumulate) {
      gj += scale * start;
    } else {
      gj = scale * start;
    }
    for (size_t e = 0; e < samples.size(); ++e)
      gj += (scale * values[e]) * Eigen::Map<const Eigen::VectorXf>(dy + samples[e] * out, out);
  }
#endif
}

}  // namespace dlsim::models::layers
