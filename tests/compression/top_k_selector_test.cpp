#include "sim/compression/top_k_selector.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "sim/compression/compressor.hpp"
#include "sim/compression/magnitude_list.hpp"
#include "sim/core/random.hpp"

using namespace dlsim;

namespace {

// The rule written the slow, obvious way on v = x - base: sort by magnitude (descending, NaN
// above infinity) keeping index order among equals, take k, sort the indices.
std::vector<uint32_t> reference(const std::vector<float>& x, const std::vector<float>& base,
                                uint64_t k) {
  std::vector<double> rank(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float v = base.empty() ? x[i] : x[i] - base[i];
    rank[i] = std::isnan(v) ? std::numeric_limits<double>::max() : std::fabs(double{v});
  }
  std::vector<uint32_t> order(x.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rank[a] > rank[b]; });
  order.resize(std::min<uint64_t>(k, x.size()));
  std::sort(order.begin(), order.end());
  return order;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

}  // namespace

TEST_CASE("top_k with a hint selects what the sort-based rule selects as the vector changes") {
  // One selector over a drifting vector, as error feedback uses it: each call adds a change and
  // zeroes what was sent, so the hint sometimes holds (one pass) and sometimes does not (the
  // histogram passes). Entries on a coarse grid make many ties; some are NaN, infinite or -0.
  RandomStream rng(17);
  uint64_t one_pass = 0, two_pass = 0;
  for (int series = 0; series < 24; ++series) {
    const size_t d = 1 + rng.below(series % 3 == 0 ? 40 : 3000);
    const bool grid = series % 2 == 0;
    const bool with_base = series % 4 < 2;
    std::vector<float> x(d), base(with_base ? d : 0);
    for (float& b : base) b = static_cast<float>(rng.normal());
    std::vector<float> e(d, 0.0f);
    TopKSelector selector;
    std::vector<uint32_t> out;
    for (int call = 0; call < 30; ++call) {
      for (float& v : e) {
        const double step = rng.normal() * (1.0 + call % 5);
        v += grid ? static_cast<float>(std::round(step)) : static_cast<float>(0.01 * step);
      }
      if (call % 7 == 3) e[rng.below(d)] = std::numeric_limits<float>::quiet_NaN();
      if (call % 11 == 5) e[rng.below(d)] = -std::numeric_limits<float>::infinity();
      if (call % 13 == 6) e[rng.below(d)] = -0.0f;
      for (size_t i = 0; i < d; ++i) x[i] = with_base ? base[i] + e[i] : e[i];
      const uint64_t k = call % 9 == 8 ? d + 1 : rng.below(d / 4 + 2);
      CAPTURE(series);
      CAPTURE(call);
      CAPTURE(k);
      selector.select(x, base, k, out);
      REQUIRE(out == reference(x, base, k));
      for (uint32_t i : out) e[i] = 0.0f;  // sent
    }
    one_pass += selector.one_pass_calls();
    two_pass += selector.two_pass_calls();
  }
  CHECK(one_pass > 200);  // both ways were taken, many times
  CHECK(two_pass > 100);
  MESSAGE("one pass: ", one_pass, ", two passes: ", two_pass);
}

TEST_CASE("the top_k hint holds on a slowly moving vector and the histogram takes over after") {
  const size_t d = 5000;
  RandomStream rng(5);
  std::vector<float> v(d);
  for (float& x : v) x = static_cast<float>(rng.normal());
  TopKSelector selector;
  std::vector<uint32_t> out;
  for (int call = 0; call < 10; ++call) {
    for (float& x : v) x *= 1.001f;  // the k-th largest moves by 0.1 %: the hint holds
    selector.select(v, {}, 50, out);
    REQUIRE(out == reference(v, {}, 50));
  }
  CHECK(selector.two_pass_calls() == 1);  // the first call has no hint
  CHECK(selector.one_pass_calls() == 9);
  for (float& x : v) x *= 1000.0f;  // far above the hint: it lists more than 4k + 4096
  selector.select(v, {}, 50, out);
  CHECK(out == reference(v, {}, 50));
  for (float& x : v) x /= 1e6f;  // far below it: it lists fewer than k
  selector.select(v, {}, 50, out);
  CHECK(out == reference(v, {}, 50));
  CHECK(selector.two_pass_calls() == 3);
  // An all-zero vector: the k-th largest is 0, which leaves no hint, and the lowest indices win.
  std::vector<float> zero(d, 0.0f);
  selector.select(zero, {}, 3, out);
  CHECK(out == std::vector<uint32_t>{0, 1, 2});
  selector.select(zero, {}, 3, out);
  CHECK(out == std::vector<uint32_t>{0, 1, 2});
}

TEST_CASE("list_at_least lists the entries at or above a threshold and stops past its cap") {
  RandomStream rng(9);
  for (int trial = 0; trial < 400; ++trial) {
    const size_t d = rng.below(300);  // the vector steps (32 or 64) and the tail after them
    std::vector<float> x(d), base(trial % 2 == 0 ? d : 0);
    for (float& v : x) v = static_cast<float>(rng.below(9)) - 4.0f;
    for (float& b : base) b = static_cast<float>(rng.below(3)) * 0.5f;
    if (d > 0 && trial % 5 == 0) x[rng.below(d)] = std::numeric_limits<float>::quiet_NaN();
    const uint32_t threshold =
        trial % 10 == 0 ? 0u : magnitude_key(static_cast<float>(rng.below(5)));
    std::vector<uint32_t> expected_index, expected_key;
    for (size_t i = 0; i < d; ++i) {
      const uint32_t key = magnitude_key(base.empty() ? x[i] : x[i] - base[i]);
      if (key < threshold) continue;
      expected_index.push_back(static_cast<uint32_t>(i));
      expected_key.push_back(key);
    }
    const size_t cap = rng.below(d + 2);
    std::vector<uint32_t> index(cap + kListSlack), key(cap + kListSlack);
    const size_t n = list_at_least(x, base, threshold, cap, index.data(), key.data());
    CAPTURE(trial);
    if (expected_index.size() > cap) {
      REQUIRE(n == SIZE_MAX);
      // What was listed before the stop is the list's prefix: at least cap + 1 entries.
      CHECK(std::equal(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(cap) + 1,
                       expected_index.begin()));
      CHECK(std::equal(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(cap) + 1,
                       expected_key.begin()));
      continue;
    }
    REQUIRE(n == expected_index.size());
    index.resize(n);
    key.resize(n);
    REQUIRE(index == expected_index);
    REQUIRE(key == expected_key);
  }
}

TEST_CASE("list_at_least writes nothing past cap + kListSlack when every entry passes") {
  // The vector steps store whole vectors past the count: the most they write is when every entry
  // passes and the count reaches the cap exactly at a step's start. Guard words after the room
  // the contract asks for must come back untouched.
  constexpr size_t kGuard = 16;
  constexpr uint32_t kUntouched = 0xdeadbeef;
  for (size_t d : {1u, 31u, 64u, 65u, 128u, 255u, 256u, 300u}) {
    std::vector<float> x(d, 1.0f);
    for (size_t cap : {0u, 1u, 15u, 16u, 31u, 32u, 63u, 64u, 127u, 128u, 256u}) {
      std::vector<uint32_t> index(cap + kListSlack + kGuard, kUntouched);
      std::vector<uint32_t> key(cap + kListSlack + kGuard, kUntouched);
      const size_t n = list_at_least(x, {}, 0u, cap, index.data(), key.data());
      CAPTURE(d);
      CAPTURE(cap);
      CHECK(n == (d > cap ? SIZE_MAX : d));
      for (size_t g = cap + kListSlack; g < index.size(); ++g) {
        CHECK(index[g] == kUntouched);
        CHECK(key[g] == kUntouched);
      }
    }
  }
}

TEST_CASE("compress_difference gives the message compress gives for the difference vector") {
  RandomStream rng(21);
  const size_t d = 300;
  std::vector<float> x(d), base(d), diff(d);
  for (size_t i = 0; i < d; ++i) {
    x[i] = static_cast<float>(rng.normal());
    base[i] = static_cast<float>(rng.normal());
    diff[i] = x[i] - base[i];
  }
  for (Sparsifier s : {Sparsifier::kNone, Sparsifier::kTopK, Sparsifier::kRandomK}) {
    for (Quantizer q : {Quantizer::kFloat32, Quantizer::kQsgd, Quantizer::kSign, Quantizer::kFp16,
                        Quantizer::kBf16}) {
      CompressionSpec spec;
      spec.sparsifier = s;
      spec.k = 17;
      spec.quantizer = q;
      spec.levels = 4;
      Compressor a(spec, d), b(spec, d);
      RandomStream ra(3), rb(3);
      CompressedVector from_difference, from_vector;
      for (int call = 0; call < 3; ++call) {  // the second call on has a top_k hint
        a.compress_difference(x, base, ra, from_difference);
        b.compress(diff, rb, from_vector);
        CAPTURE(static_cast<int>(s));
        CAPTURE(static_cast<int>(q));
        REQUIRE(from_difference.indices == from_vector.indices);
        REQUIRE(same_bits(from_difference.values, from_vector.values));
      }
    }
  }
}
