#include "models/layers/sparse_products.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "models/layers/simd.hpp"

namespace dlsim::models::layers {
namespace {

using simd::Vec;
constexpr Index kW = simd::kWidth;

// Rows are handled in chunks of up to kMaxVectors vectors (4 or 2 in the group forward): one
// accumulator register per vector (and sample), the other operand read from memory by the FMA.
// The chunk's last vector is partial when kPartial. Each kernel loops over all the features it
// combines itself, so that consecutive (independent) sums overlap in the pipeline; its pointers
// are offset to the chunk's first row. Per element, the sums run in the same order whatever the
// vector width and chunk.
constexpr int kMaxVectors = simd::kRegisters == 32 ? 16 : 12;
constexpr Index kChunk = kW * kMaxVectors;

template <int NV, bool kPartial>
Vec load_row(const float* p, int v, simd::Tail last) {
  return kPartial && v == NV - 1 ? simd::load_tail(p, last) : simd::load(p);
}
template <int NV, bool kPartial>
void store_row(float* p, Vec x, int v, simd::Tail last) {
  if (kPartial && v == NV - 1) {
    simd::store_tail(p, x, last);
  } else {
    simd::store(p, x);
  }
}

// acc[v] += sum_e values[e] * m(:, index[e]), for the chunk's rows.
template <int NV, bool kPartial>
void combine_columns(const float* m, Index ld, std::span<const uint32_t> index,
                     std::span<const float> values, Vec (&acc)[NV], simd::Tail last) {
  for (size_t e = 0; e < index.size(); ++e) {
    const float* col = m + static_cast<Index>(index[e]) * ld;
    const Vec value = simd::set1(values[e]);
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[v] = simd::fmadd(load_row<NV, kPartial>(col + kW * v, v, last), value, acc[v]);
  }
}

// base = b + background * W 1 for the chunk's rows: the row sum in one pass over W.
template <int NV, bool kPartial>
void row_sum_chunk(const float* w, Index ld, Index features, float background, const float* b,
                   float* base, simd::Tail last) {
  Vec sum[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) sum[v] = simd::zero();
  for (Index j = 0; j < features; ++j)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      sum[v] = simd::add(sum[v], load_row<NV, kPartial>(w + j * ld + kW * v, v, last));
  const Vec bg = simd::set1(background);
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v)
    store_row<NV, kPartial>(base + kW * v,
                            simd::fmadd(sum[v], bg, load_row<NV, kPartial>(b + kW * v, v, last)), v,
                            last);
}

// y(:, s) = base + W d(:, s) for the kGroup samples of one group (n of them real), the chunk's
// rows: each of the group's columns of W is read once and used for all its samples. A sample
// absent from a column adds W * 0: with finite W that changes nothing but a -0 sum into +0, so
// each sample's sum is the one it would take over its own features alone. (An infinite weight
// already makes every sum non-finite through the row sum in base; it may then be NaN, not inf.)
constexpr int kGroup = static_cast<int>(SparseInput::kGroup);
// kGroup x 4 accumulators + 4 columns fit 32 registers; kGroup x 2 + 2, 16.
constexpr int kMaxGroupVectors = simd::kRegisters == 32 ? 4 : 2;
constexpr Index kGroupChunk = kW * kMaxGroupVectors;

template <int NV, bool kPartial>
void group_forward_chunk(const float* w, Index ld, std::span<const uint32_t> features,
                         const float* values, const float* base, Index n, float* y,
                         simd::Tail last) {
  Vec acc[kGroup * NV];  // sample k's vector v at k * NV + v (GCC keeps a flat array in
                         // registers, not a two-dimensional one)
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const Vec start = load_row<NV, kPartial>(base + kW * v, v, last);
#pragma GCC unroll 4
    for (int k = 0; k < kGroup; ++k) acc[k * NV + v] = start;
  }
  for (size_t e = 0; e < features.size(); ++e) {
    const float* col = w + static_cast<Index>(features[e]) * ld;
    Vec column[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) column[v] = load_row<NV, kPartial>(col + kW * v, v, last);
#pragma GCC unroll 4
    for (int k = 0; k < kGroup; ++k) {
      const Vec value = simd::set1(values[kGroup * e + static_cast<size_t>(k)]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[k * NV + v] = simd::fmadd(column[v], value, acc[k * NV + v]);
    }
  }
#pragma GCC unroll 4
  for (int k = 0; k < kGroup; ++k)
    if (k < n)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        store_row<NV, kPartial>(y + k * ld + kW * v, acc[k * NV + v], v, last);
}

// Weight column j's gradient for every j: scale * (start + sum over j's samples of d(j, s) *
// dy(:, s)), written to g(:, j) or added to it.
template <int NV, bool kPartial>
void gradient_chunk(const float* dy, Index ld, const SparseInput& x, const float* start,
                    float scale, bool accumulate, float* g, simd::Tail last) {
  const Vec s = simd::set1(scale);
  for (Index j = 0; j < x.features(); ++j) {
    Vec acc[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[v] = load_row<NV, kPartial>(start + kW * v, v, last);
    combine_columns<NV, kPartial>(dy, ld, x.feature_samples(j), x.feature_values(j), acc, last);
    float* gj = g + j * ld;
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const Vec old = accumulate ? load_row<NV, kPartial>(gj + kW * v, v, last) : simd::zero();
      store_row<NV, kPartial>(gj + kW * v, simd::fmadd(acc[v], s, old), v, last);
    }
  }
}

using RowSumChunk = void (*)(const float*, Index, Index, float, const float*, float*, simd::Tail);
using GroupForwardChunk = void (*)(const float*, Index, std::span<const uint32_t>, const float*,
                                   const float*, Index, float*, simd::Tail);
using GradientChunk = void (*)(const float*, Index, const SparseInput&, const float*, float, bool,
                               float*, simd::Tail);

// Tables indexed [partial][vectors - 1].
template <size_t... V>
constexpr auto row_sum_table(std::index_sequence<V...>) {
  return std::array<std::array<RowSumChunk, sizeof...(V)>, 2>{
      {{&row_sum_chunk<static_cast<int>(V) + 1, false>...},
       {&row_sum_chunk<static_cast<int>(V) + 1, true>...}}};
}
template <size_t... V>
constexpr auto group_forward_table(std::index_sequence<V...>) {
  return std::array<std::array<GroupForwardChunk, sizeof...(V)>, 2>{
      {{&group_forward_chunk<static_cast<int>(V) + 1, false>...},
       {&group_forward_chunk<static_cast<int>(V) + 1, true>...}}};
}
template <size_t... V>
constexpr auto gradient_table(std::index_sequence<V...>) {
  return std::array<std::array<GradientChunk, sizeof...(V)>, 2>{
      {{&gradient_chunk<static_cast<int>(V) + 1, false>...},
       {&gradient_chunk<static_cast<int>(V) + 1, true>...}}};
}

constexpr auto kRowSum = row_sum_table(std::make_index_sequence<kMaxVectors>{});
constexpr auto kGroupForward = group_forward_table(std::make_index_sequence<kMaxGroupVectors>{});
constexpr auto kGradient = gradient_table(std::make_index_sequence<kMaxVectors>{});

// Calls f(r0, partial, vectors - 1, last-vector tail) for each chunk of `rows`.
template <class F>
void for_each_chunk(Index rows, Index chunk, F&& f) {
  for (Index r0 = 0; r0 < rows; r0 += chunk) {
    const Index len = std::min(chunk, rows - r0);
    const Index vectors = (len + kW - 1) / kW;
    const Index lanes = len - kW * (vectors - 1);
    f(r0, lanes < kW ? 1 : 0, static_cast<size_t>(vectors - 1), simd::tail(lanes));
  }
}

}  // namespace

void sparse_forward(const float* w, const float* b, Index out, const SparseInput& x, float* base,
                    float* y) {
  for_each_chunk(out, kChunk, [&](Index r0, int partial, size_t nv, simd::Tail last) {
    kRowSum[partial][nv](w + r0, out, x.features(), x.background(), b + r0, base + r0, last);
  });
  for (Index g = 0; g < x.groups(); ++g) {
    const Index s0 = g * SparseInput::kGroup;
    for_each_chunk(out, kGroupChunk, [&](Index r0, int partial, size_t nv, simd::Tail last) {
      kGroupForward[partial][nv](w + r0, out, x.group_features(g), x.group_values(g), base + r0,
                                 x.group_samples(g), y + s0 * out + r0, last);
    });
  }
}

void sparse_weight_gradient(const float* dy, const float* dy_sum, Index out, const SparseInput& x,
                            float scale, Accumulate mode, float* base, float* grad) {
  for (Index r = 0; r < out; ++r) base[r] = x.background() * dy_sum[r];
  const bool accumulate = mode == Accumulate::kYes;
  for_each_chunk(out, kChunk, [&](Index r0, int partial, size_t nv, simd::Tail last) {
    kGradient[partial][nv](dy + r0, out, x, base + r0, scale, accumulate, grad + r0, last);
  });
}

}  // namespace dlsim::models::layers
