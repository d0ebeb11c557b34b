// Which entries of a vector travel: the k largest magnitudes (exact) or k uniform draws.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

class RandomStream;

/// out <- the indices of the k entries of v with the largest |v_i|, ascending; among equal
/// magnitudes the lower index wins (NaN ranks above infinity). k >= d: every index. A
/// TopKSelector without a hint (two linear passes); a compressor keeps its own, whose hint makes
/// later calls one pass.
void select_top_k(std::span<const float> v, uint64_t k, std::vector<uint32_t>& out);

/// out <- k distinct indices of [0, d) drawn uniformly from rng (Floyd's algorithm), ascending.
/// `mask` is scratch (d bits), left all zero. Allocation-free once warmed up.
void select_random_k(uint64_t d, uint64_t k, RandomStream& rng, std::vector<uint64_t>& mask,
                     std::vector<uint32_t>& out);

}  // namespace dlsim
