// What a scenario's `compression` key asks for: at most one sparsifier (which entries travel)
// followed by at most one quantizer (how each travelling value is coded). A plain struct; the
// JSON loader fills it and validates the ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dlsim {

enum class Sparsifier : uint8_t {
  kNone,     ///< every entry travels, in index order (no index is sent)
  kTopK,     ///< the k largest magnitudes; ties go to the lower index
  kRandomK,  ///< k indices drawn uniformly without replacement
};

enum class Quantizer : uint8_t {
  kFloat32,  ///< values as they are (32 bits each)
  kQsgd,     ///< sign + a level in 0..levels of |v_i| / ||v||, rounded at random; + the norm
  kSign,     ///< 1 bit per entry, all scaled by the mean magnitude (one float)
  kFp16,     ///< IEEE half precision, round to nearest even
  kBf16,     ///< bfloat16, round to nearest even
};

enum class IndexCoding : uint8_t {
  kSent,    ///< the indices travel: 32 bits each, or a d-bit mask when that is smaller
  kSeeded,  ///< random_k only: the receiver draws the same indices from a shared stream
};

struct CompressionSpec {
  Sparsifier sparsifier = Sparsifier::kNone;
  double fraction = 0.0;  ///< k = ceil(fraction * d) when k is 0
  uint64_t k = 0;         ///< entries kept (capped at d); 0: from fraction
  IndexCoding indices = IndexCoding::kSent;
  bool scale = false;     ///< random_k: values times d/k, so the message is unbiased
  Quantizer quantizer = Quantizer::kFloat32;
  uint32_t levels = 0;    ///< qsgd: s >= 1
  /// qsgd: decoded values divided by 1 + omega, omega = min(n / s^2, sqrt(n) / s) for n values
  /// (QSGD's variance bound), which makes the operator shrink its input on average, as error
  /// feedback (CHOCO, SPARQ) requires; biased, so off by default.
  bool rescale = false;

  /// False for the identity (nothing to compress): algorithms then send plain snapshots.
  bool enabled() const {
    return sparsifier != Sparsifier::kNone || quantizer != Quantizer::kFloat32;
  }
  /// Entries that travel for a vector of d entries: k (at least 1, at most d), or d.
  uint64_t kept(uint64_t d) const;
  /// Exact payload size of one compressed vector of d entries, in bytes (rounded up from bits):
  /// indices + values at their bit width + scales. The network adds its header.
  uint64_t wire_bytes(uint64_t d) const;
  /// The contraction factor delta of C on d entries, E||C(v) - v||^2 <= (1 - delta) ||v||^2
  /// (docs/compression.md, "Stable consensus steps"): k/d for top_k and unscaled random_k,
  /// 1 / (1 + omega) for rescaled qsgd, about 1 for fp16 and bf16, the product for a chain.
  /// Absent when C is no contraction whatever v is (scaled random_k, plain qsgd) or when delta
  /// depends on v (sign: ||v||_1^2 / (d ||v||^2), as small as 1/d).
  std::optional<double> contraction(uint64_t d) const;
};

std::string_view to_string(Sparsifier s);
std::string_view to_string(Quantizer q);

}  // namespace dlsim
