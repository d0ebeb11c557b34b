// simd.hpp's operations on the backend this build compiled (AVX-512, AVX2, SSE2, NEON or plain
// arrays), lane by lane against what the contract in simd.hpp says.
#include "models/layers/simd.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

// GCC 12 warns inside its own AVX-512 headers (their _mm512_undefined_ps) once the shuffles are
// inlined on constant inputs, as here: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

using namespace dlsim::models::layers;
using Eigen::Index;

// Every AArch64 core has NEON, so simd.hpp must pick it there, not the plain arrays: the aarch64
// build of these tests (tools/arm_check.sh) checks the NEON backend only while this holds.
#if defined(__aarch64__)
static_assert(std::is_same_v<simd::Vec, float32x4_t>, "an AArch64 build uses simd_neon.hpp");
#endif

namespace {

constexpr int kW = simd::kWidth;

std::vector<float> lanes_of(simd::Vec v) {
  std::vector<float> out(kW);
  simd::store(out.data(), v);
  return out;
}

simd::Vec iota(float start) {
  std::array<float, 16> x{};
  for (int i = 0; i < kW; ++i) x[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return simd::load(x.data());
}

}  // namespace

TEST_CASE("simd: tails load and store only their first lanes") {
  std::vector<float> src(kW), dst(kW + 1, -1.0f);
  for (int i = 0; i < kW; ++i) src[static_cast<size_t>(i)] = static_cast<float>(i + 1);
  for (Index n = 0; n <= kW; ++n) {
    CAPTURE(n);
    const auto v = lanes_of(simd::load_first(src.data(), n));
    for (Index i = 0; i < kW; ++i) CHECK(v[static_cast<size_t>(i)] == (i < n ? i + 1.0f : 0.0f));
    std::fill(dst.begin(), dst.end(), -1.0f);
    simd::store_first(dst.data(), simd::load(src.data()), n);
    for (Index i = 0; i <= kW; ++i)
      CHECK(dst[static_cast<size_t>(i)] == (i < n ? i + 1.0f : -1.0f));
  }
  const auto range = lanes_of(simd::load_range(src.data(), 1, kW - 1));
  CHECK(range[0] == 0.0f);
  CHECK(range[1] == 2.0f);
  CHECK(range[static_cast<size_t>(kW - 2)] == static_cast<float>(kW - 1));
  CHECK(range[static_cast<size_t>(kW - 1)] == 0.0f);
}

TEST_CASE("simd: compress keeps the chosen lanes in order, with their positions") {
  const unsigned lanes = 0b1011'0110'0100'1101u & simd::first_lanes(kW);
  std::vector<float> values(kW);
  std::vector<uint32_t> positions(kW);
  const Index count = simd::compress_store(values.data(), iota(10.0f), lanes);
  simd::compress_positions(positions.data(), 100, lanes);
  Index k = 0;
  for (int i = 0; i < kW; ++i) {
    if (((lanes >> i) & 1u) == 0) continue;
    CHECK(values[static_cast<size_t>(k)] == 10.0f + static_cast<float>(i));
    CHECK(positions[static_cast<size_t>(k)] == 100u + static_cast<uint32_t>(i));
    ++k;
  }
  CHECK(count == k);
}

TEST_CASE("simd: comparisons, select and the small integers") {
  const simd::Vec a = iota(0.0f), b = simd::set1(2.0f);
  CHECK(simd::greater(a, b) == (simd::first_lanes(kW) & ~7u));
  CHECK(simd::equal(a, b) == 4u);
  CHECK(simd::differs(a, b) == (simd::first_lanes(kW) & ~4u));
  CHECK(lanes_of(simd::select(1u, a, b))[0] == 0.0f);
  CHECK(lanes_of(simd::select(1u, a, b))[1] == 2.0f);
  std::vector<int32_t> ints(kW, -1);
  simd::store_int_tail(ints.data(), a, simd::tail(kW - 1));
  CHECK(ints[1] == 1);
  CHECK(ints[static_cast<size_t>(kW - 1)] == -1);
  CHECK(lanes_of(simd::load_int_tail(ints.data(), simd::tail(2)))[1] == 1.0f);
  CHECK(lanes_of(simd::load_int_tail(ints.data(), simd::tail(2)))[2] == 0.0f);
  CHECK(lanes_of(simd::fmadd(a, b, simd::set1(1.0f)))[3] == 7.0f);
}

TEST_CASE("simd: deinterleave and interleave are inverse") {
  simd::Vec even, odd, lo, hi;
  simd::deinterleave(iota(0.0f), iota(static_cast<float>(kW)), even, odd);
  for (int i = 0; i < kW; ++i) {
    CHECK(lanes_of(even)[static_cast<size_t>(i)] == 2.0f * static_cast<float>(i));
    CHECK(lanes_of(odd)[static_cast<size_t>(i)] == 2.0f * static_cast<float>(i) + 1.0f);
  }
  simd::interleave(even, odd, lo, hi);
  CHECK(lanes_of(lo) == lanes_of(iota(0.0f)));
  CHECK(lanes_of(hi) == lanes_of(iota(static_cast<float>(kW))));
}

TEST_CASE("simd: transpose4 and compress_quads give each feature's four samples") {
  // d[r] lane f = 100 r + f: sample r of feature f.
  const simd::Vec d[4] = {iota(0.0f), iota(100.0f), iota(200.0f), iota(300.0f)};
  simd::Vec out[4];
  simd::transpose4(d, out);
  for (int q = 0; q < 4; ++q)
    for (int f = 0; f < kW / 4; ++f)
      for (int r = 0; r < 4; ++r)
        CHECK(lanes_of(out[q])[static_cast<size_t>(4 * f + r)] ==
              100.0f * static_cast<float>(r) + static_cast<float>(q * kW / 4 + f));
  std::vector<float> dst(kW);
  const unsigned last = 1u << (kW / 4 - 1);  // only the last feature of out[3]
  CHECK(simd::compress_quads(dst.data(), out[3], last) == 1);
  CHECK(dst[0] == static_cast<float>(kW - 1));
  CHECK(dst[3] == 300.0f + static_cast<float>(kW - 1));
}
