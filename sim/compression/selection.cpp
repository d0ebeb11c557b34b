#include "sim/compression/selection.hpp"

#include <array>
#include <bit>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/core/random.hpp"

namespace dlsim {
namespace {

// |v| as an unsigned integer in the same order as the magnitude (IEEE floats without sign bit).
inline uint32_t magnitude_key(float v) { return std::bit_cast<uint32_t>(v) & 0x7fffffffu; }

// The three radix rounds over the 31 key bits: [20, 31), [10, 20), [0, 10).
constexpr int kRoundLow[3] = {20, 10, 0};
constexpr int kRoundWidth[3] = {11, 10, 10};

}  // namespace

void select_top_k(std::span<const float> v, uint64_t k, std::vector<uint32_t>& out) {
  const uint64_t d = v.size();
  DLSIM_CHECK(d <= UINT32_MAX, "a vector of {} entries is too long to index", d);
  out.clear();
  if (k >= d) {
    out.resize(d);
    std::iota(out.begin(), out.end(), 0u);
    return;
  }
  if (k == 0) return;
  // Find the k-th largest key T bit group by bit group: `prefix` holds T's bits above `low`, and
  // `need` how many entries with that prefix are still to take.
  uint64_t need = k;
  uint32_t prefix = 0;
  int low = 31;
  std::array<uint32_t, 2048> count;
  for (int round = 0; round < 3; ++round) {
    const int round_low = kRoundLow[round];
    const uint32_t buckets = 1u << kRoundWidth[round];
    count.fill(0);
    if (round == 0) {
      for (float x : v) ++count[magnitude_key(x) >> round_low];
    } else {
      for (float x : v) {
        const uint32_t key = magnitude_key(x);
        if ((key >> low) == prefix) ++count[(key >> round_low) & (buckets - 1)];
      }
    }
    uint32_t b = buckets - 1;
    while (count[b] < need) need -= count[b--];  // from the top; the sum of counts is >= need
    prefix = (prefix << kRoundWidth[round]) | b;
    low = round_low;
    if (count[b] == need) break;  // the whole bucket is taken: no tie to break below it
  }
  // Emit in index order: every key above the prefix, and the first `need` equal to it.
  out.reserve(k);
  for (uint32_t i = 0; i < d; ++i) {
    const uint32_t top = magnitude_key(v[i]) >> low;
    if (top > prefix) {
      out.push_back(i);
    } else if (top == prefix && need > 0) {
      out.push_back(i);
      --need;
    }
  }
  DLSIM_CHECK(out.size() == k, "top-k selected {} of {}", out.size(), k);
}

void select_random_k(uint64_t d, uint64_t k, RandomStream& rng, std::vector<uint64_t>& mask,
                     std::vector<uint32_t>& out) {
  DLSIM_CHECK(d <= UINT32_MAX, "a vector of {} entries is too long to index", d);
  out.clear();
  if (k >= d) {
    out.resize(d);
    std::iota(out.begin(), out.end(), 0u);
    return;
  }
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
