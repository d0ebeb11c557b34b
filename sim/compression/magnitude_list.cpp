// list_at_least in three forms, by instruction set. Which entries pass is unpredictable (a branch
// per entry mispredicts often, and the pass is top-k's main cost): each form tests a vector of 8
// or 16 entries at once, writes them all and advances the count past those that are listed. (A
// vector step that skips steps where nothing passes was slower: the skip mispredicts.) The vector
// forms take four vectors a step, one count check for all four: against one vector a step, a
// top_k 1 % call took 0.81x the time with AVX-512 and 0.86x with AVX2 (docs/compression.md,
// "Speed").
#include "sim/compression/magnitude_list.hpp"

#include <array>
#include <bit>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace dlsim {
namespace {

constexpr size_t kOverflow = SIZE_MAX;

constexpr size_t kScalarBlock = 16;
static_assert(kScalarBlock <= kListSlack);

// The entries [j, d) one by one (the tail after the vector steps, or the whole of a portable
// build), with a test per block of 16 that skips blocks where nothing passes.
template <bool kDifference>
size_t list_scalar(const float* x, const float* base, size_t j, size_t d, uint32_t threshold,
                   size_t cap, size_t n, uint32_t* index, uint32_t* key) {
  auto key_of = [&](size_t i) { return magnitude_key(kDifference ? x[i] - base[i] : x[i]); };
  for (; j + kScalarBlock <= d; j += kScalarBlock) {
    std::array<uint32_t, kScalarBlock> keys;
    uint32_t hit = 0;
    for (size_t e = 0; e < kScalarBlock; ++e) {
      keys[e] = key_of(j + e);
      hit |= keys[e] >= threshold;
    }
    if (!hit) continue;
    if (n > cap) return kOverflow;
    for (size_t e = 0; e < kScalarBlock; ++e) {
      index[n] = static_cast<uint32_t>(j + e);
      key[n] = keys[e];
      n += keys[e] >= threshold;
    }
  }
  for (; j < d; ++j) {
    const uint32_t k = key_of(j);
    if (k < threshold) continue;
    if (n > cap) return kOverflow;
    index[n] = static_cast<uint32_t>(j);
    key[n++] = k;
  }
  return n > cap ? kOverflow : n;
}

#if defined(__AVX512F__)
// Four vectors of 16 entries a step: compare the keys, compress the passing lanes (register form:
// the memory form is microcoded on AMD Zen 4) and store all 16 lanes of each.
template <bool kDifference>
size_t list_vector(const float* x, const float* base, size_t d, uint32_t threshold, size_t cap,
                   uint32_t* index, uint32_t* key) {
  constexpr size_t kVectors = 4;
  static_assert(16 * kVectors <= kListSlack);
  const __m512i at_least = _mm512_set1_epi32(static_cast<int>(threshold));
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  const __m512i step = _mm512_set1_epi32(16);
  __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  size_t n = 0, j = 0;
  for (; j + 16 * kVectors <= d; j += 16 * kVectors) {
    __m512i k[kVectors];
    __mmask16 hit[kVectors];
    for (size_t q = 0; q < kVectors; ++q) {
      __m512 v = _mm512_loadu_ps(x + j + 16 * q);
      if constexpr (kDifference) v = _mm512_sub_ps(v, _mm512_loadu_ps(base + j + 16 * q));
      k[q] = _mm512_and_si512(_mm512_castps_si512(v), magnitude);
      hit[q] = _mm512_cmpge_epu32_mask(k[q], at_least);
    }
    if (n > cap) return kOverflow;
    for (size_t q = 0; q < kVectors; ++q) {  // stores end before index + cap + kListSlack
      _mm512_storeu_si512(index + n, _mm512_maskz_compress_epi32(hit[q], lanes));
      _mm512_storeu_si512(key + n, _mm512_maskz_compress_epi32(hit[q], k[q]));
      n += static_cast<size_t>(std::popcount(static_cast<unsigned>(hit[q])));
      lanes = _mm512_add_epi32(lanes, step);
    }
  }
  return list_scalar<kDifference>(x, base, j, d, threshold, cap, n, index, key);
}
#elif defined(__AVX2__)
// For each 8-bit mask, its set lanes in order, 3 bits each: the permutation that packs them left.
constexpr std::array<uint32_t, 256> kPack = [] {
  std::array<uint32_t, 256> t{};
  for (uint32_t m = 0; m < 256; ++m)
    for (uint32_t lane = 0, out = 0; lane < 8; ++lane)
      if ((m >> lane) & 1u) t[m] |= lane << (3 * out++);
  return t;
}();

// Four vectors of 8 entries a step: compare, pack the passing lanes left with a permutation, store
// all 8 of each.
template <bool kDifference>
size_t list_vector(const float* x, const float* base, size_t d, uint32_t threshold, size_t cap,
                   uint32_t* index, uint32_t* key) {
  constexpr size_t kVectors = 4;
  static_assert(8 * kVectors <= kListSlack);
  // Keys are below 2^31: a signed compare with threshold - 1 is key >= threshold (0: every key).
  const __m256i above = _mm256_set1_epi32(static_cast<int>(threshold) - 1);
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
  const __m256i shifts = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
  const __m256i seven = _mm256_set1_epi32(7);
  const __m256i step = _mm256_set1_epi32(8);
  __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  size_t n = 0, j = 0;
  for (; j + 8 * kVectors <= d; j += 8 * kVectors) {
    __m256i k[kVectors];
    unsigned hit[kVectors];
    for (size_t q = 0; q < kVectors; ++q) {
      __m256 v = _mm256_loadu_ps(x + j + 8 * q);
      if constexpr (kDifference) v = _mm256_sub_ps(v, _mm256_loadu_ps(base + j + 8 * q));
      k[q] = _mm256_and_si256(_mm256_castps_si256(v), magnitude);
      hit[q] = static_cast<unsigned>(
          _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(k[q], above))));
    }
    if (n > cap) return kOverflow;
    for (size_t q = 0; q < kVectors; ++q) {
      const __m256i pack = _mm256_and_si256(
          _mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(kPack[hit[q]])), shifts), seven);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(index + n),
                          _mm256_permutevar8x32_epi32(lanes, pack));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(key + n),
                          _mm256_permutevar8x32_epi32(k[q], pack));
      n += static_cast<size_t>(std::popcount(hit[q]));
      lanes = _mm256_add_epi32(lanes, step);
    }
  }
  return list_scalar<kDifference>(x, base, j, d, threshold, cap, n, index, key);
}
#else
template <bool kDifference>
size_t list_vector(const float* x, const float* base, size_t d, uint32_t threshold, size_t cap,
                   uint32_t* index, uint32_t* key) {
  return list_scalar<kDifference>(x, base, 0, d, threshold, cap, 0, index, key);
}
#endif

}  // namespace

size_t list_at_least(std::span<const float> x, std::span<const float> base, uint32_t threshold,
                     size_t cap, uint32_t* index, uint32_t* key) {
  return base.empty()
             ? list_vector<false>(x.data(), nullptr, x.size(), threshold, cap, index, key)
             : list_vector<true>(x.data(), base.data(), x.size(), threshold, cap, index, key);
}

}  // namespace dlsim
