// A compression operator C for vectors of one length: a sparsifier then a quantizer (a chain
// such as top_k then qsgd is SPARQ-SGD's sparsify-then-quantize). One per agent: it keeps its
// scratch, so compressing allocates nothing once warmed up. Every random draw comes from the
// stream the caller passes (the agent's (seed, "compress", agent) stream).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/compression/compressed_vector.hpp"
#include "sim/compression/compression_spec.hpp"

namespace dlsim {

class RandomStream;

class Compressor {
 public:
  Compressor(const CompressionSpec& spec, uint64_t dimension);

  const CompressionSpec& spec() const { return spec_; }
  uint64_t dimension() const { return dimension_; }
  /// Entries per message.
  uint64_t kept() const { return kept_; }
  /// Payload bytes of every message (the size does not depend on the values).
  uint64_t wire_bytes() const { return wire_bytes_; }

  /// out <- C(v), decoded as a receiver sees it; reuses out's buffers.
  void compress(std::span<const float> v, RandomStream& rng, CompressedVector& out);

 private:
  CompressionSpec spec_;
  uint64_t dimension_;
  uint64_t kept_;
  uint64_t wire_bytes_;
  std::vector<uint64_t> mask_;  // random_k's scratch
};

}  // namespace dlsim
