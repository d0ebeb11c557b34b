// The pass over a whole vector that top-k selection makes: list the entries whose magnitude is at
// least a threshold. Magnitudes are compared as keys: the float's bits without the sign, which
// order like |v| (NaNs above infinity).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace dlsim {

/// |v| as an unsigned integer in the order of the magnitudes.
inline uint32_t magnitude_key(float v) { return std::bit_cast<uint32_t>(v) & 0x7fffffffu; }

/// Entries written past the count by list_at_least: index and key need room for cap + this.
inline constexpr size_t kListSlack = 64;

/// Lists, ascending, the i with magnitude_key(v_i) >= threshold, v = x - base (one IEEE
/// subtraction; base empty: v = x): index[n] = i and key[n] = its key. Returns n, or SIZE_MAX
/// when more than `cap` pass (the pass stops within a step of that; index[0, cap] and key[0,
/// cap] then hold the first cap + 1 listed). index and key hold cap + kListSlack entries.
/// AVX-512 and AVX2 builds list 64 or 32 entries per step without a branch (vector compress, or
/// a permutation from a table); others one by one.
size_t list_at_least(std::span<const float> x, std::span<const float> base, uint32_t threshold,
                     size_t cap, uint32_t* index, uint32_t* key);

}  // namespace dlsim
