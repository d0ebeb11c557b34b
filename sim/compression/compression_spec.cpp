#include "sim/compression/compression_spec.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/enum_name.hpp"

namespace dlsim {

uint64_t CompressionSpec::kept(uint64_t d) const {
  if (sparsifier == Sparsifier::kNone || d == 0) return d;
  uint64_t n = k;
  if (n == 0) n = static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(d)));
  return std::clamp<uint64_t>(n, 1, d);
}

uint64_t CompressionSpec::wire_bytes(uint64_t d) const {
  const uint64_t n = kept(d);
  uint64_t bits = 0;
  if (sparsifier != Sparsifier::kNone && indices == IndexCoding::kSent)
    bits += std::min<uint64_t>(32 * n, d);  // a list of 32-bit indices, or a bit per entry
  switch (quantizer) {
    case Quantizer::kFloat32:
      bits += 32 * n;
      break;
    case Quantizer::kFp16:
    case Quantizer::kBf16:
      bits += 16 * n;
      break;
    case Quantizer::kSign:
      bits += n + 32;
      break;
    case Quantizer::kQsgd: {
      // A level in 0..s takes ceil(log2(s + 1)) bits; one sign bit; the norm as a float.
      uint64_t level_bits = 0;
      while ((uint64_t{1} << level_bits) < uint64_t{levels} + 1) ++level_bits;
      bits += n * (1 + level_bits) + 32;
      break;
    }
  }
  return (bits + 7) / 8;
}

std::optional<double> CompressionSpec::contraction(uint64_t d) const {
  if (d == 0) return std::nullopt;
  const uint64_t n = kept(d);
  double delta = 1.0;
  if (sparsifier == Sparsifier::kRandomK && scale) return std::nullopt;
  if (sparsifier != Sparsifier::kNone) delta = static_cast<double>(n) / static_cast<double>(d);
  switch (quantizer) {
    case Quantizer::kFloat32:
      break;
    case Quantizer::kFp16:
      delta *= 1.0 - std::ldexp(1.0, -22);
      break;  // relative error 2^-11
    case Quantizer::kBf16:
      delta *= 1.0 - std::ldexp(1.0, -16);
      break;  // relative error 2^-8
    case Quantizer::kQsgd: {
      if (!rescale) return std::nullopt;
      // The kept values and what the sparsifier dropped lie on disjoint entries, so the two
      // errors add: ||Q(T v) - v||^2 <= (1 - delta_q) ||T v||^2 + ||v||^2 - ||T v||^2.
      const double s = levels, entries = static_cast<double>(n);
      delta *= 1.0 / (1.0 + std::min(entries / (s * s), std::sqrt(entries) / s));
      break;
    }
    case Quantizer::kSign:
      return std::nullopt;
  }
  return delta;
}

std::string_view to_string(Sparsifier s) {
  static constexpr std::string_view kNames[] = {"none", "top_k", "random_k"};
  return enum_name<Sparsifier::kRandomK>(kNames, s, "?");
}

std::string_view to_string(Quantizer q) {
  static constexpr std::string_view kNames[] = {"float32", "qsgd", "sign", "fp16", "bf16"};
  return enum_name<Quantizer::kBf16>(kNames, q, "?");
}

}  // namespace dlsim
