#include "sim/compression/compressor.hpp"

#include <algorithm>

#include "sim/compression/quantize.hpp"
#include "sim/compression/selection.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

Compressor::Compressor(const CompressionSpec& spec, uint64_t dimension)
    : spec_(spec),
      dimension_(dimension),
      kept_(spec.kept(dimension)),
      wire_bytes_(spec.wire_bytes(dimension)) {
  DLSIM_CHECK(spec.quantizer != Quantizer::kQsgd || spec.levels >= 1, "qsgd with {} levels",
              spec.levels);
}

void Compressor::compress_difference(std::span<const float> x, std::span<const float> base,
                                     RandomStream& rng, CompressedVector& out) {
  DLSIM_CHECK(x.size() == dimension_ && (base.empty() || base.size() == dimension_),
              "compressing {} values (less {}) with a compressor for {}", x.size(), base.size(),
              dimension_);
  const bool difference = !base.empty();
  out.dimension = dimension_;
  out.wire_bytes = wire_bytes_;
  out.sparse = spec_.sparsifier != Sparsifier::kNone && kept_ < dimension_;
  if (!out.sparse) {
    out.indices.clear();
    if (difference) {
      out.values.resize(dimension_);
      for (size_t i = 0; i < dimension_; ++i) out.values[i] = x[i] - base[i];
    } else {
      out.values.assign(x.begin(), x.end());
    }
  } else {
    if (spec_.sparsifier == Sparsifier::kTopK)
      top_k_.select(x, base, kept_, out.indices);
    else
      select_random_k(dimension_, kept_, rng, mask_, out.indices);
    out.values.resize(out.indices.size());
    for (size_t j = 0; j < out.indices.size(); ++j) {
      const uint32_t i = out.indices[j];
      out.values[j] = difference ? x[i] - base[i] : x[i];
    }
  }
  if (spec_.sparsifier == Sparsifier::kRandomK && spec_.scale) {
    const float scale =
        static_cast<float>(static_cast<double>(dimension_) / static_cast<double>(kept_));
    for (float& value : out.values) value *= scale;
  }
  switch (spec_.quantizer) {
    case Quantizer::kFloat32:
      break;
    case Quantizer::kQsgd:
      quantize_qsgd(out.values, spec_.levels, rng, spec_.rescale);
      break;
    case Quantizer::kSign:
      quantize_sign(out.values);
      break;
    case Quantizer::kFp16:
      quantize_fp16(out.values);
      break;
    case Quantizer::kBf16:
      quantize_bf16(out.values);
      break;
  }
}

}  // namespace dlsim
