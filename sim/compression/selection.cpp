#include "sim/compression/selection.hpp"

#include <bit>
#include <numeric>

#include "sim/compression/top_k_selector.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim {
namespace {

// out <- every index when k >= d (true); otherwise clears out for the selection (false).
bool take_all(uint64_t d, uint64_t k, std::vector<uint32_t>& out) {
  out.clear();
  if (k < d) return false;
  out.resize(d);
  std::iota(out.begin(), out.end(), 0u);
  return true;
}

}  // namespace

void select_top_k(std::span<const float> v, uint64_t k, std::vector<uint32_t>& out) {
  TopKSelector().select(v, {}, k, out);
}

void select_random_k(uint64_t d, uint64_t k, RandomStream& rng, std::vector<uint64_t>& mask,
                     std::vector<uint32_t>& out) {
  DLSIM_CHECK(d <= UINT32_MAX, "a vector of {} entries is too long to index", d);
  if (take_all(d, k, out)) return;
  mask.resize((d + 63) / 64);
  auto marked = [&](uint64_t i) { return (mask[i / 64] >> (i % 64)) & 1u; };
  auto mark = [&](uint64_t i) { mask[i / 64] |= uint64_t{1} << (i % 64); };
  // Floyd: for j = d-k .. d-1 draw t in [0, j]; take t, or j when t was already taken. Every
  // k-subset comes out with the same probability, in k draws.
  for (uint64_t j = d - k; j < d; ++j) {
    const uint64_t t = rng.below(j + 1);
    mark(marked(t) ? j : t);
  }
  out.reserve(k);
  for (uint64_t w = 0; w < mask.size(); ++w) {
    for (uint64_t bits = mask[w]; bits != 0; bits &= bits - 1)
      out.push_back(static_cast<uint32_t>(w * 64 + static_cast<uint64_t>(std::countr_zero(bits))));
    mask[w] = 0;
  }
}

}  // namespace dlsim
