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
#include "sim/compression/top_k_selector.hpp"

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
  void compress(std::span<const float> v, RandomStream& rng, CompressedVector& out) {
    compress_difference(v, {}, rng, out);
  }
  /// out <- C(x - base) (base empty: C(x)), the same message as compress() of the difference
  /// vector, which is never formed: error feedback compresses x - x^ at almost every event, and
  /// top_k then reads x and base once.
  void compress_difference(std::span<const float> x, std::span<const float> base, RandomStream& rng,
                           CompressedVector& out);
  /// top_k's selector (its hint and how often it held); for benchmarks and tests.
  const TopKSelector& top_k_selector() const { return top_k_; }

 private:
  CompressionSpec spec_;
  uint64_t dimension_;
  uint64_t kept_;
  uint64_t wire_bytes_;
  std::vector<uint64_t> mask_;  // random_k's scratch
  TopKSelector top_k_;          // top_k's threshold hint, carried from one call to the next
};

}  // namespace dlsim
