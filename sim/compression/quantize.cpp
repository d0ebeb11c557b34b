#include "sim/compression/quantize.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/core/random.hpp"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace dlsim {
namespace {

// Sums in eight lanes (element i goes to lane i % 8), then the lanes in order: the compiler can
// keep the lanes in vector registers without reassociating anything, so the result is the same
// for every instruction set, and a long vector does not wait on one chain of additions.
template <class Term>
double lane_sum(std::span<const float> values, Term term) {
  double lane[8] = {};
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8)
    for (size_t j = 0; j < 8; ++j) lane[j] += term(static_cast<double>(values[i + j]));
  for (size_t j = 0; i < values.size(); ++i, ++j) lane[j] += term(static_cast<double>(values[i]));
  double total = 0.0;
  for (double l : lane) total += l;
  return total;
}

// A uniform in [0, 1) with 24 bits for entry i, from a per-message key: a counter-based hash
// (the "lowbias32" mixer) rather than a sequential generator, so the loop over the entries
// vectorizes. The key is one draw of the agent's compression stream.
inline float counter_uniform(uint32_t key, uint32_t i) {
  uint32_t x = key ^ (i * 0x9e3779b9u);
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return static_cast<float>(static_cast<int32_t>(x >> 8)) * (1.0f / 16777216.0f);
}

}  // namespace

void quantize_qsgd(std::span<float> values, uint32_t levels, RandomStream& rng, bool rescale) {
  const double squares = lane_sum(values, [](double v) { return v * v; });
  const float norm = static_cast<float>(std::sqrt(squares));
  if (norm == 0.0f || values.empty()) return;
  const float s = static_cast<float>(levels);
  const float to_level = s / norm;  // |v_i| -> position in [0, s]
  const double entries = static_cast<double>(values.size());
  const double omega =
      std::min(entries / (static_cast<double>(s) * s), std::sqrt(entries) / s);
  // level -> decoded magnitude; the rescaled norm is the one float that travels either way
  const float to_value = static_cast<float>(norm / s / (rescale ? 1.0 + omega : 1.0));
  const uint32_t key = static_cast<uint32_t>(rng.next_u64() >> 32);
  float* v = values.data();
  const auto n = static_cast<uint32_t>(values.size());  // compressors index with 32 bits
  for (uint32_t i = 0; i < n; ++i) {
    const float scaled = std::fabs(v[i]) * to_level;
    const float r = scaled < s ? scaled : s;  // (std::min's reference defeats vectorization)
    // floor(r) for r in [0, 2^24] (std::floor does not vectorize under IEEE exception rules).
    const float low = static_cast<float>(static_cast<int32_t>(r));
    // Up with probability r - low: E[level] = r. Branch-free so that the loop vectorizes.
    const float up = counter_uniform(key, i) < r - low ? 1.0f : 0.0f;
    v[i] = std::copysign((low + up) * to_value, v[i]);
  }
}

void quantize_sign(std::span<float> values) {
  if (values.empty()) return;
  const double total = lane_sum(values, [](double v) { return std::fabs(v); });
  const float scale = static_cast<float>(total / static_cast<double>(values.size()));
  for (float& v : values) v = v < 0.0f ? -scale : scale;
}

void quantize_fp16(std::span<float> values) {
  size_t i = 0;
#if defined(__F16C__)
  // The hardware conversion rounds to nearest even, as Eigen::half's software one does.
  for (; i + 8 <= values.size(); i += 8) {
    const __m128i half =
        _mm256_cvtps_ph(_mm256_loadu_ps(values.data() + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_ps(values.data() + i, _mm256_cvtph_ps(half));
  }
#endif
  for (; i < values.size(); ++i) values[i] = static_cast<float>(Eigen::half(values[i]));
}

void quantize_bf16(std::span<float> values) {
  // Round to nearest even on the upper 16 bits; a NaN stays a (quiet) NaN.
  for (float& v : values) {
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
    v = std::bit_cast<float>(nan ? (bits | 0x00400000u) & 0xffff0000u : rounded);
  }
}

}  // namespace dlsim
