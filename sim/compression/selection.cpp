#include "sim/compression/selection.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim {
namespace {

// |v| as an unsigned integer in the same order as the magnitude (IEEE floats without sign bit).
inline uint32_t magnitude_key(float v) { return std::bit_cast<uint32_t>(v) & 0x7fffffffu; }

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
  const uint64_t d = v.size();
  DLSIM_CHECK(d <= UINT32_MAX, "a vector of {} entries is too long to index", d);
  if (take_all(d, k, out)) return;
  if (k == 0) return;
  // 1. A histogram of the top 11 key bits (sign excluded: exponent and 3 mantissa bits), in four
  //    parts: neighbouring values often share a bucket, and one counter incremented back to back
  //    waits for its own previous store each time.
  constexpr int kLow = 20;
  constexpr uint32_t kBuckets = 2048;
  std::array<std::array<uint32_t, kBuckets>, 4> part{};
  size_t i = 0;
  for (; i + 4 <= d; i += 4)
    for (size_t p = 0; p < 4; ++p) ++part[p][magnitude_key(v[i + p]) >> kLow];
  for (; i < d; ++i) ++part[0][magnitude_key(v[i]) >> kLow];
  // The bucket b where the k-th largest lies: every entry above it is taken, `need` of its own.
  uint64_t need = k;
  uint32_t b = kBuckets - 1;
  for (;; --b) {
    const uint64_t count = uint64_t{part[0][b]} + part[1][b] + part[2][b] + part[3][b];
    if (count >= need) break;
    need -= count;
  }
  // 2. One pass that lists the entries above b and those in b (both ascending). Scratch per
  //    thread: compressing runs in the parallel phase, and the lists are as long as d at worst.
  thread_local std::vector<uint32_t> above, bucket;
  above.clear();
  bucket.clear();
  const uint32_t first_key = b << kLow;
  uint32_t j = 0;
  for (; j + 8 <= d; j += 8) {
    uint32_t hit = 0;  // most blocks of 8 hold nothing at or above b: one vector test each
    for (uint32_t e = j; e < j + 8; ++e) hit |= magnitude_key(v[e]) >= first_key;
    if (!hit) continue;
    for (uint32_t e = j; e < j + 8; ++e) {
      const uint32_t top = magnitude_key(v[e]) >> kLow;
      if (top > b) above.push_back(e);
      else if (top == b) bucket.push_back(e);
    }
  }
  for (; j < d; ++j) {
    const uint32_t top = magnitude_key(v[j]) >> kLow;
    if (top > b) above.push_back(j);
    else if (top == b) bucket.push_back(j);
  }
  // 3. The `need` largest of the bucket (few, unless many entries are alike), ties to the lower
  //    index, merged with the entries above it.
  auto larger = [&](uint32_t x, uint32_t y) {
    const uint32_t kx = magnitude_key(v[x]), ky = magnitude_key(v[y]);
    return kx > ky || (kx == ky && x < y);
  };
  if (need < bucket.size()) {
    std::nth_element(bucket.begin(), bucket.begin() + static_cast<std::ptrdiff_t>(need),
                     bucket.end(), larger);
    bucket.resize(need);
    std::sort(bucket.begin(), bucket.end());
  }
  out.resize(k);
  std::merge(above.begin(), above.end(), bucket.begin(), bucket.end(), out.begin());
  DLSIM_CHECK(above.size() + bucket.size() == k, "top-k selected {} of {}",
              above.size() + bucket.size(), k);
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
