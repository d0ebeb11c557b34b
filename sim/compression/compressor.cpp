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

void Compressor::compress(std::span<const float> v, RandomStream& rng, CompressedVector& out) {
  DLSIM_CHECK(v.size() == dimension_, "compressing {} values with a compressor for {}", v.size(),
              dimension_);
  out.dimension = dimension_;
  out.wire_bytes = wire_bytes_;
  out.sparse = spec_.sparsifier != Sparsifier::kNone && kept_ < dimension_;
  if (!out.sparse) {
    out.indices.clear();
    out.values.assign(v.begin(), v.end());
  } else {
    if (spec_.sparsifier == Sparsifier::kTopK)
      select_top_k(v, kept_, out.indices);
    else
      select_random_k(dimension_, kept_, rng, mask_, out.indices);
    out.values.resize(out.indices.size());
    for (size_t j = 0; j < out.indices.size(); ++j) out.values[j] = v[out.indices[j]];
  }
  if (spec_.sparsifier == Sparsifier::kRandomK && spec_.scale) {
    const float scale = static_cast<float>(static_cast<double>(dimension_) /
                                           static_cast<double>(kept_));
    for (float& x : out.values) x *= scale;
  }
  switch (spec_.quantizer) {
    case Quantizer::kFloat32: break;
    case Quantizer::kQsgd: quantize_qsgd(out.values, spec_.levels, rng, spec_.rescale); break;
    case Quantizer::kSign: quantize_sign(out.values); break;
    case Quantizer::kFp16: quantize_fp16(out.values); break;
    case Quantizer::kBf16: quantize_bf16(out.values); break;
  }
}

}  // namespace dlsim
