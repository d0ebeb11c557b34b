// The median and trimmed mean's fast path (sim/robust/selection_network.hpp) against a plain
// reference that sorts each coordinate: the networks on every 0-1 input (a comparator network
// that gets every 0-1 input right gets every input right: Knuth, TAOCP vol. 3, 5.3.4), then the
// rules on random vectors with ties, both parities, and a dimension that is no multiple of a tile;
// last, the networks the workspace keeps across calls whose neighbourhood size changes.
#include "sim/robust/selection_network.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <vector>

#include "robust_fixture.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random.hpp"
#include "sim/robust/aggregation_rule.hpp"

using namespace dlsim;
using dlsim::testing::Hood;

namespace {

// Input number i's bits: i itself up to 16 inputs (all of them are tried), beyond that i mixed
// (splitmix64's finaliser) so that every row varies, not only the low 16.
uint64_t input_bits(uint64_t i, size_t n) {
  if (n <= 16) return i;
  i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9u;
  i = (i ^ (i >> 27)) * 0x94d049bb133111ebu;
  return i ^ (i >> 31);
}

// Runs `net` on the 0-1 inputs numbered [0, count) (input_bits), one per lane, and checks each
// chosen rank: rank r holds a 1 exactly when r >= the number of zeros.
int wrong_ranks(const SelectionNetwork& net, size_t first, size_t last, uint64_t count) {
  const size_t n = net.inputs();
  std::vector<TileRow> rows(n);
  int wrong = 0;
  for (uint64_t base = 0; base < count; base += kTileLanes) {
    std::array<size_t, kTileLanes> zeros{};
    for (size_t l = 0; l < kTileLanes; ++l)
      for (size_t k = 0; k < n; ++k) {
        const bool one = (input_bits(base + l, n) >> k) & 1;
        rows[k][l] = one ? 1.0f : 0.0f;
        zeros[l] += !one;
      }
    net.run(rows);
    for (size_t l = 0; l < kTileLanes; ++l)
      for (size_t r = first; r <= last; ++r) wrong += rows[r][l] != (r >= zeros[l] ? 1.0f : 0.0f);
  }
  return wrong;
}

// The reference: coordinate e of every member, sorted.
std::vector<float> sorted_column(const Hood& h, size_t e) {
  std::vector<float> column{h.own[e]};
  for (const auto& x : h.others) column.push_back(x[e]);
  std::sort(column.begin(), column.end());
  return column;
}

float reference_median(const std::vector<float>& s) {
  const size_t n = s.size();
  if (n % 2 == 1) return s[n / 2];
  return static_cast<float>(0.5 *
                            (static_cast<double>(s[n / 2 - 1]) + static_cast<double>(s[n / 2])));
}

// Ranks [b, n - b) summed in ascending order, in double, rounded once.
float reference_trimmed_mean(const std::vector<float>& s, size_t b) {
  double sum = 0.0;
  for (size_t r = b; r < s.size() - b; ++r) sum += static_cast<double>(s[r]);
  return static_cast<float>(sum / static_cast<double>(s.size() - 2 * b));
}

// D floats: a third from {-2, -1, 0, 1, 2} (ties within a coordinate), the rest normal.
std::vector<float> draw(RandomStream& rng, size_t d) {
  std::vector<float> v(d);
  for (float& x : v)
    x = rng.below(3) == 0 ? static_cast<float>(static_cast<int>(rng.below(5)) - 2)
                          : static_cast<float>(rng.normal(0.0, 10.0));
  return v;
}

// Coordinates where `rule` differs from the reference (exact float comparison).
template <class Rule, class Reference>
int mismatches(const Hood& h, Rule rule, Reference reference) {
  std::vector<float> out(h.own.size(), -999.0f);
  rule(out);
  int wrong = 0;
  for (size_t e = 0; e < out.size(); ++e) wrong += out[e] != reference(sorted_column(h, e));
  return wrong;
}

}  // namespace

TEST_CASE("a selection network puts its ranks in place on every 0-1 input") {
  for (size_t n = 1; n <= SelectionNetwork::kMaxInputs; ++n) {
    CAPTURE(n);
    // All 2^n inputs up to 16 values; 2^16 mixed ones beyond.
    const uint64_t count = n <= 16 ? (uint64_t{1} << n) : (uint64_t{1} << 16);
    // The full sort, the median's ranks and every trimmed mean's.
    CHECK(wrong_ranks(SelectionNetwork(n, 0, n - 1), 0, n - 1, count) == 0);
    CHECK(wrong_ranks(SelectionNetwork(n, (n - 1) / 2, n / 2), (n - 1) / 2, n / 2, count) == 0);
    for (size_t b = 1; 2 * b < n; ++b)
      CHECK(wrong_ranks(SelectionNetwork(n, b, n - b - 1), b, n - b - 1, count) == 0);
  }
  // Pruning keeps fewer comparators for the median than for the sort.
  CHECK(SelectionNetwork(9, 4, 4).comparators().size() <
        SelectionNetwork(9, 0, 8).comparators().size());
  CHECK_THROWS_AS(SelectionNetwork(SelectionNetwork::kMaxInputs + 1, 0, 0), InvariantError);
}

TEST_CASE("small networks run unrolled and give the bits of their comparators applied one by one") {
  // Values from {-1, -0, +0, 1, 2}: ties, and zeros of both signs, whose order only the
  // comparators decide. Reference: each comparator of comparators() applied lane by lane.
  RandomStream random(3, "unrolled networks", 0);
  for (size_t n = 1; n <= SelectionNetwork::kMaxInputs; ++n) {
    CAPTURE(n);
    std::vector<std::pair<size_t, size_t>> ranks = {{(n - 1) / 2, n / 2}, {0, n - 1}};
    for (size_t b = 1; 2 * b < n; ++b) ranks.emplace_back(b, n - b - 1);
    for (const auto& [first, last] : ranks) {
      CAPTURE(first);
      const SelectionNetwork net(n, first, last);
      // The median's kernels up to 17 members, the trimmed mean's for b = 1, 2, 3.
      const bool median = first == (n - 1) / 2 && last == n / 2;
      const bool trimmed = first >= 1 && first <= 3 && last == n - first - 1;
      CHECK(net.unrolled() == (n <= 17 && (median || trimmed)));
      std::vector<TileRow> rows(n), reference(n);
      constexpr std::array<float, 5> kValues = {-1.0f, -0.0f, 0.0f, 1.0f, 2.0f};
      for (int trial = 0; trial < 20; ++trial) {
        for (size_t k = 0; k < n; ++k)
          for (size_t l = 0; l < kTileLanes; ++l)
            rows[k][l] = reference[k][l] = kValues[random.below(kValues.size())];
        net.run(rows);
        for (const Comparator c : net.comparators())
          for (size_t l = 0; l < kTileLanes; ++l) {
            const float a = reference[c.lo][l], b = reference[c.hi][l];
            reference[c.lo][l] = b < a ? b : a;
            reference[c.hi][l] = a < b ? b : a;
          }
        for (size_t r = first; r <= last; ++r)
          CHECK(std::memcmp(rows[r].data(), reference[r].data(), sizeof(TileRow)) == 0);
      }
    }
  }
  CHECK(SelectionNetwork(9, 4, 4).unrolled());
  CHECK_FALSE(SelectionNetwork(18, 8, 9).unrolled());
  CHECK_FALSE(SelectionNetwork(9, 0, 8).unrolled());  // a full sort: the generic loop
}

TEST_CASE("median and trimmed mean equal a per-coordinate sort on random vectors, ties included") {
  RandomStream rng(5, "robust-test", 0);
  const size_t d = 3 * kTileLanes + 7;  // a partial tile at the end
  // 1 to 32 neighbours (n = 2 to 33: every network size and both parities), then the fallback.
  std::vector<size_t> neighbours;
  for (size_t k = 1; k <= 32; ++k) neighbours.push_back(k);
  neighbours.push_back(40);
  for (const size_t k : neighbours) {
    CAPTURE(k);
    std::vector<std::vector<float>> others;
    for (size_t j = 0; j < k; ++j) others.push_back(draw(rng, d));
    Hood h(draw(rng, d), others);
    const size_t n = k + 1;
    CHECK(mismatches(
              h, [&](std::vector<float>& out) { coordinate_median(h.in(), out, h.ws); },
              reference_median) == 0);
    for (size_t b = 0; 2 * b < n; ++b) {
      CAPTURE(b);
      CHECK(mismatches(
                h,
                [&](std::vector<float>& out) {
                  trimmed_mean(h.in(), static_cast<uint32_t>(b), out, h.ws);
                },
                [&](const std::vector<float>& s) { return reference_trimmed_mean(s, b); }) == 0);
    }
  }
}

TEST_CASE("median and trimmed mean name the first non-finite coordinate, on both paths") {
  for (const size_t k : {4, 40}) {
    CAPTURE(k);
    std::vector<std::vector<float>> others(k, std::vector<float>(40, 1.0f));
    others[k / 2][37] = std::numeric_limits<float>::infinity();
    others[0][38] = std::numeric_limits<float>::quiet_NaN();
    Hood h(std::vector<float>(40, 0.0f), others);
    CHECK_THROWS_WITH_AS(coordinate_median(h.in(), h.out, h.ws),
                         doctest::Contains("a non-finite value at coordinate 37"), InvariantError);
    CHECK_THROWS_WITH_AS(trimmed_mean(h.in(), 1, h.out, h.ws),
                         doctest::Contains("a non-finite value at coordinate 37"), InvariantError);
  }
}

TEST_CASE("the workspace keeps each network it builds and builds a new one for a new size") {
  AggregationWorkspace ws(4, 12);
  const SelectionNetwork* median9 = &ws.selection_network(9, 4, 4);
  const SelectionNetwork* trim9 = &ws.selection_network(9, 1, 7);
  CHECK(median9 != trim9);
  // A new key takes the next slot: the same address again means no build.
  CHECK(&ws.selection_network(9, 4, 4) == median9);
  CHECK(&ws.selection_network(9, 1, 7) == trim9);
  // Five more keys evict the first ones; asked again, each is rebuilt as a fresh one.
  for (size_t n = 2; n <= 6; ++n) ws.selection_network(n, 0, n - 1);
  const std::array<std::array<size_t, 3>, 3> keys{{{9, 4, 4}, {9, 1, 7}, {6, 0, 5}}};
  for (const auto& [n, first, last] : keys) {
    CAPTURE(n);
    const SelectionNetwork& cached = ws.selection_network(n, first, last);
    const SelectionNetwork fresh(n, first, last);
    CHECK(cached.inputs() == n);
    CHECK(cached.first() == first);
    CHECK(cached.last() == last);
    CHECK(std::equal(cached.comparators().begin(), cached.comparators().end(),
                     fresh.comparators().begin(), fresh.comparators().end(),
                     [](Comparator a, Comparator b) { return a.lo == b.lo && a.hi == b.hi; }));
  }
}

TEST_CASE("one workspace serves neighbourhoods whose size changes between calls") {
  RandomStream rng(9, "robust-test", 0);
  const size_t d = kTileLanes + 3;
  std::vector<std::vector<float>> others;
  for (size_t j = 0; j < 12; ++j) others.push_back(draw(rng, d));
  Hood h(draw(rng, d), others);
  for (const size_t k : {4, 11, 4, 7, 2, 9, 11, 12, 3, 4}) {
    CAPTURE(k);
    Hood part(h.own, std::vector<std::vector<float>>(others.begin(), others.begin() + k));
    Neighbourhood in = h.in();
    in.others = in.others.first(k);
    in.weights = in.weights.first(k);
    // part holds the same k neighbours for the reference; the rules run on h's workspace.
    CHECK(mismatches(
              part, [&](std::vector<float>& out) { coordinate_median(in, out, h.ws); },
              reference_median) == 0);
    CHECK(mismatches(
              part, [&](std::vector<float>& out) { trimmed_mean(in, 1, out, h.ws); },
              [](const std::vector<float>& s) { return reference_trimmed_mean(s, 1); }) == 0);
  }
}
