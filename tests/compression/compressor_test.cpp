#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "sim/compression/compressor.hpp"
#include "sim/compression/quantize.hpp"
#include "sim/compression/selection.hpp"
#include "sim/core/random.hpp"

using namespace dlsim;

namespace {

std::vector<uint32_t> top_k(const std::vector<float>& v, uint64_t k) {
  std::vector<uint32_t> out;
  select_top_k(v, k, out);
  return out;
}

// The rule written the slow, obvious way: sort by magnitude (descending), then index.
std::vector<uint32_t> top_k_reference(const std::vector<float>& v, uint64_t k) {
  std::vector<uint32_t> order(v.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return std::fabs(v[a]) > std::fabs(v[b]); });
  order.resize(std::min<uint64_t>(k, v.size()));
  std::sort(order.begin(), order.end());
  return order;
}

CompressionSpec spec_of(Sparsifier s, uint64_t k, Quantizer q, uint32_t levels = 0) {
  CompressionSpec c;
  c.sparsifier = s;
  c.k = k;
  c.quantizer = q;
  c.levels = levels;
  return c;
}

CompressedVector compress(const CompressionSpec& spec, const std::vector<float>& v,
                          uint64_t seed = 1) {
  Compressor c(spec, v.size());
  RandomStream rng(seed);
  CompressedVector out;
  c.compress(v, rng, out);
  return out;
}

std::vector<float> decoded(const CompressedVector& c) {
  std::vector<float> out(c.dimension);
  c.assign_to(out);
  return out;
}

}  // namespace

TEST_CASE("top_k keeps the largest magnitudes and breaks ties by the lower index") {
  const std::vector<float> v = {0.5f, -3.0f, 2.0f, 3.0f, 0.0f, -1.0f};
  CHECK(top_k(v, 1) == std::vector<uint32_t>{1});
  CHECK(top_k(v, 2) == std::vector<uint32_t>{1, 3});
  CHECK(top_k(v, 3) == std::vector<uint32_t>{1, 2, 3});
  CHECK(top_k(v, 5) == std::vector<uint32_t>{0, 1, 2, 3, 5});
  CHECK(top_k(v, 6) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
  CHECK(top_k(v, 60) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
  CHECK(top_k({0.0f, -0.0f, 0.0f, 0.0f}, 2) == std::vector<uint32_t>{0, 1});
  CHECK(top_k({2.0f, 2.0f, -2.0f, 2.0f}, 3) == std::vector<uint32_t>{0, 1, 2});
  // Magnitudes that differ only in the last bit fall in one bucket of every round but the last.
  const float a = 1.0f, b = std::nextafter(1.0f, 2.0f);
  CHECK(top_k({a, b, a, b}, 1) == std::vector<uint32_t>{1});
  CHECK(top_k({a, b, a, b}, 3) == std::vector<uint32_t>{0, 1, 3});
}

TEST_CASE("top_k equals the sort-based rule on vectors with many ties and wide ranges") {
  RandomStream rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t d = 1 + rng.below(300);
    std::vector<float> v(d);
    const bool ties = trial % 2 == 0;
    for (float& x : v)
      x = ties ? static_cast<float>(rng.below(5)) - 2.0f
               : static_cast<float>(rng.normal() * std::pow(10.0, rng.uniform(-30, 30)));
    const uint64_t k = 1 + rng.below(d);
    REQUIRE(top_k(v, k) == top_k_reference(v, k));
  }
}

TEST_CASE("random_k draws k distinct ascending indices and scaled it is unbiased") {
  std::vector<uint64_t> mask;
  std::vector<uint32_t> out;
  RandomStream rng(3);
  select_random_k(10, 10, rng, mask, out);
  CHECK(out == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (int trial = 0; trial < 100; ++trial) {
    select_random_k(130, 17, rng, mask, out);
    REQUIRE(out.size() == 17);
    REQUIRE(std::is_sorted(out.begin(), out.end()));
    REQUIRE(std::adjacent_find(out.begin(), out.end()) == out.end());
    REQUIRE(out.back() < 130);
    REQUIRE(std::all_of(mask.begin(), mask.end(), [](uint64_t w) { return w == 0; }));
  }
  // E[C(v)] = v: the mean of 10^5 draws within 4 standard errors, entry by entry.
  const std::vector<float> v = {1.0f, -2.0f, 0.5f, 4.0f, 0.0f, -1.5f, 3.0f, 2.0f};
  CompressionSpec spec = spec_of(Sparsifier::kRandomK, 2, Quantizer::kFloat32);
  spec.scale = true;
  Compressor c(spec, v.size());
  CompressedVector msg;
  const int draws = 100000;
  std::vector<double> sum(v.size()), squares(v.size());
  std::vector<float> dense(v.size());
  for (int t = 0; t < draws; ++t) {
    c.compress(v, rng, msg);
    msg.assign_to(dense);
    for (size_t i = 0; i < v.size(); ++i) {
      sum[i] += dense[i];
      squares[i] += static_cast<double>(dense[i]) * dense[i];
    }
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const double mean = sum[i] / draws;
    const double se = std::sqrt(std::max(squares[i] / draws - mean * mean, 0.0) / draws);
    CHECK(std::fabs(mean - v[i]) <= 4.0 * se + 1e-12);
  }
  // Unscaled, the kept values are v's own.
  spec.scale = false;
  const CompressedVector plain = compress(spec, v, 5);
  for (size_t j = 0; j < plain.indices.size(); ++j) CHECK(plain.values[j] == v[plain.indices[j]]);
}

TEST_CASE("qsgd rounds to the levels of ||v|| / s and is unbiased") {
  RandomStream rng(11);
  // s = 1, v = (3, -4): ||v|| = 5, so each entry decodes to 0 or +-5.
  for (int t = 0; t < 100; ++t) {
    std::vector<float> v = {3.0f, -4.0f};
    quantize_qsgd(v, 1, rng);
    REQUIRE((v[0] == 0.0f || v[0] == 5.0f));
    REQUIRE((v[1] == 0.0f || v[1] == -5.0f));
  }
  std::vector<float> zero = {0.0f, 0.0f, 0.0f};
  quantize_qsgd(zero, 4, rng);
  CHECK(zero == std::vector<float>{0.0f, 0.0f, 0.0f});
  // A vector of one value with s levels: |v_i| / ||v|| = 1/2 for d = 4, so s = 4 gives level 2
  // exactly, with no randomness left.
  std::vector<float> same = {1.5f, 1.5f, 1.5f, 1.5f};
  quantize_qsgd(same, 4, rng);
  CHECK(same == std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f});

  const std::vector<float> v = {0.3f, -1.1f, 2.0f, 0.0f, -0.7f, 0.05f};
  const uint32_t s = 3;
  const int draws = 100000;
  std::vector<double> sum(v.size()), squares(v.size());
  const double norm = std::sqrt(0.09 + 1.21 + 4.0 + 0.49 + 0.0025);
  for (int t = 0; t < draws; ++t) {
    std::vector<float> q = v;
    quantize_qsgd(q, s, rng);
    for (size_t i = 0; i < v.size(); ++i) {
      // Every decoded value is a level times ||v|| / s, with v_i's sign.
      const double level = std::fabs(q[i]) * s / norm;
      REQUIRE(std::fabs(level - std::round(level)) < 1e-4);
      REQUIRE((q[i] == 0.0f || std::signbit(q[i]) == std::signbit(v[i])));
      sum[i] += q[i];
      squares[i] += static_cast<double>(q[i]) * q[i];
    }
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const double mean = sum[i] / draws;
    const double se = std::sqrt(std::max(squares[i] / draws - mean * mean, 0.0) / draws);
    CHECK(std::fabs(mean - v[i]) <= 4.0 * se + 1e-6);
  }
}

TEST_CASE("rescaled qsgd divides by 1 + omega and shrinks its input on average") {
  // n = 16 values of similar size, s = 1: omega = min(16, 4) = 4. Plain qsgd's error
  // E||Q(v) - v||^2 = (||v||_1 / ||v||_2 - 1) ||v||^2 is 2.87 ||v||^2 here (more than ||v||^2:
  // error feedback diverges with it); rescaled it must be at most (1 - 1 / (1 + omega)) ||v||^2
  // (0.75 ||v||^2 expected).
  std::vector<float> v(16);
  double squared_norm = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = (i % 2 ? -1.0f : 1.0f) * (1.0f + 0.1f * static_cast<float>(i));
    squared_norm += static_cast<double>(v[i]) * v[i];
  }
  const double tau = 1.0 + 4.0;
  RandomStream plain_rng(5), rescaled_rng(5);  // the same draws: Q(v) / tau exactly
  const int draws = 20000;
  double plain_error = 0.0, rescaled_error = 0.0;
  for (int t = 0; t < draws; ++t) {
    std::vector<float> plain = v, rescaled = v;
    quantize_qsgd(plain, 1, plain_rng);
    quantize_qsgd(rescaled, 1, rescaled_rng, true);
    for (size_t i = 0; i < v.size(); ++i) {
      REQUIRE(rescaled[i] == doctest::Approx(plain[i] / tau).epsilon(1e-5));
      plain_error += std::pow(plain[i] - v[i], 2);
      rescaled_error += std::pow(rescaled[i] - v[i], 2);
    }
  }
  plain_error /= draws;
  rescaled_error /= draws;
  CHECK(plain_error > squared_norm);
  CHECK(rescaled_error < (1.0 - 1.0 / tau) * squared_norm);
}

TEST_CASE("sign keeps one bit per entry and the mean magnitude") {
  std::vector<float> v = {1.0f, -2.0f, 3.0f, 0.0f, -0.0f};
  quantize_sign(v);
  CHECK(v == std::vector<float>{1.2f, -1.2f, 1.2f, 1.2f, 1.2f});
  std::vector<float> same = {-0.25f, -0.25f, -0.25f};
  quantize_sign(same);
  CHECK(same == std::vector<float>{-0.25f, -0.25f, -0.25f});
}

TEST_CASE("fp16 and bf16 are round-to-nearest-even casts") {
  std::vector<float> h = {1.0f / 3.0f, 1.0f, 70000.0f, -0.0f, 1e-8f};
  quantize_fp16(h);
  CHECK(h[0] == 0.333251953125f);
  CHECK(h[1] == 1.0f);
  CHECK(std::isinf(h[2]));
  CHECK((h[3] == 0.0f && std::signbit(h[3])));
  CHECK(h[4] == 0.0f);  // below half's smallest subnormal (6e-8)
  std::vector<float> b = {1.0f / 3.0f, 70000.0f, 1e-30f};
  quantize_bf16(b);
  CHECK(b[0] == 0.333984375f);
  CHECK(b[1] == 70144.0f);
  CHECK(b[2] > 0.0f);  // bfloat16 keeps float's exponent range
}

TEST_CASE("a chain quantizes only the kept values: top_k then qsgd") {
  const std::vector<float> v = {0.1f, -6.0f, 0.2f, 8.0f, -0.3f};
  const CompressedVector c =
      compress(spec_of(Sparsifier::kTopK, 2, Quantizer::kQsgd, 1), v);
  CHECK(c.sparse);
  CHECK(c.indices == std::vector<uint32_t>{1, 3});
  // ||(-6, 8)|| = 10 with one level: each kept entry decodes to 0 or +-10.
  CHECK((c.values[0] == 0.0f || c.values[0] == -10.0f));
  CHECK((c.values[1] == 0.0f || c.values[1] == 10.0f));
  const CompressedVector s = compress(spec_of(Sparsifier::kTopK, 2, Quantizer::kSign), v);
  CHECK(s.values == std::vector<float>{-7.0f, 7.0f});
  const CompressedVector all = compress(spec_of(Sparsifier::kTopK, 5, Quantizer::kFloat32), v);
  CHECK_FALSE(all.sparse);  // k = d: nothing is sparsified
  CHECK(all.values == v);
}

TEST_CASE("wire sizes by hand") {
  using S = Sparsifier;
  using Q = Quantizer;
  // top_k, k = 10 of 1000: 10 indices of 32 bits (< a 1000-bit mask) + 10 floats = 80 bytes.
  CHECK(spec_of(S::kTopK, 10, Q::kFloat32).wire_bytes(1000) == 80);
  // k = 100: a 1000-bit mask (< 3,200 bits of indices) + 100 floats = 1000 + 3200 bits.
  CHECK(spec_of(S::kTopK, 100, Q::kFloat32).wire_bytes(1000) == 525);
  // Dense qsgd, 16 levels: 17 levels need 5 bits, + 1 sign bit per entry, + the norm.
  CHECK(spec_of(S::kNone, 0, Q::kQsgd, 16).wire_bytes(1000) == (6000 + 32) / 8);
  // s = 1: levels 0 and 1, one bit, + the sign: 2 bits per entry.
  CHECK(spec_of(S::kNone, 0, Q::kQsgd, 1).wire_bytes(1000) == (2000 + 32) / 8);
  CHECK(spec_of(S::kNone, 0, Q::kSign).wire_bytes(1000) == 129);
  CHECK(spec_of(S::kNone, 0, Q::kFp16).wire_bytes(1000) == 2000);
  CHECK(spec_of(S::kNone, 0, Q::kBf16).wire_bytes(1001) == 2002);
  CompressionSpec seeded = spec_of(S::kRandomK, 10, Q::kFloat32);
  seeded.indices = IndexCoding::kSeeded;
  CHECK(seeded.wire_bytes(1000) == 40);  // no index travels
  // top_k 10 + qsgd 4 levels: 320 index bits + 10 * (1 + 3) + 32 = 392 bits = 49 bytes.
  CHECK(spec_of(S::kTopK, 10, Q::kQsgd, 4).wire_bytes(1000) == 49);
  // fraction: k = ceil(0.01 * 1001) = 11.
  CompressionSpec fraction;
  fraction.sparsifier = S::kTopK;
  fraction.fraction = 0.01;
  CHECK(fraction.kept(1001) == 11);
  CHECK(fraction.kept(10) == 1);
}

TEST_CASE("a sparse message adds to its entries only, the same stream gives the same message") {
  const std::vector<float> v = {0.1f, -6.0f, 0.2f, 8.0f, -0.3f};
  const CompressedVector c = compress(spec_of(Sparsifier::kTopK, 2, Quantizer::kFloat32), v);
  std::vector<float> target = {1.0f, 1.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f, 1.0f};
  c.add_to(target);
  CHECK(target[0] == 1.0f);
  CHECK(target[1] == -5.0f);
  CHECK(std::isnan(target[2]));  // untouched
  CHECK(target[3] == 9.0f);
  CHECK(decoded(c) == std::vector<float>{0.0f, -6.0f, 0.0f, 8.0f, 0.0f});
  const CompressionSpec q = spec_of(Sparsifier::kRandomK, 3, Quantizer::kQsgd, 2);
  CHECK(decoded(compress(q, v, 42)) == decoded(compress(q, v, 42)));
}
