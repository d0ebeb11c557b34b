#include "sim/compression/quantize.hpp"

#include <Eigen/Core>

#include <cmath>

#include "sim/core/random.hpp"

namespace dlsim {

void quantize_qsgd(std::span<float> values, uint32_t levels, RandomStream& rng) {
  double squares = 0.0;
  for (float v : values) squares += static_cast<double>(v) * v;
  const float norm = static_cast<float>(std::sqrt(squares));
  if (norm == 0.0f || values.empty()) return;
  const float s = static_cast<float>(levels);
  const float to_level = s / norm;     // |v_i| -> position in [0, s]
  const float to_value = norm / s;     // level -> decoded magnitude
  constexpr float kUnit = 1.0f / 16777216.0f;  // 2^-24
  uint64_t bits = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    // Two 24-bit uniforms per 64-bit draw: the stream advances once per two entries.
    if (i % 2 == 0) bits = rng.next_u64();
    const float u = static_cast<float>((i % 2 == 0 ? bits : bits >> 32) & 0xffffffu) * kUnit;
    const float r = std::min(std::fabs(values[i]) * to_level, s);
    float level = std::floor(r);
    if (u < r - level) level += 1.0f;
    values[i] = std::copysign(level * to_value, values[i]);
  }
}

void quantize_sign(std::span<float> values) {
  if (values.empty()) return;
  double total = 0.0;
  for (float v : values) total += std::fabs(static_cast<double>(v));
  const float scale = static_cast<float>(total / static_cast<double>(values.size()));
  for (float& v : values) v = v < 0.0f ? -scale : scale;
}

void quantize_fp16(std::span<float> values) {
  for (float& v : values) v = static_cast<float>(Eigen::half(v));
}

void quantize_bf16(std::span<float> values) {
  for (float& v : values) v = static_cast<float>(Eigen::bfloat16(v));
}

}  // namespace dlsim
