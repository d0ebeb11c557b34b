#include "sim/core/random.hpp"

#include "sim/core/state_archive.hpp"
#include "sim/core/uint128.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace dlsim {
namespace {

constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

RandomStream::RandomStream(uint64_t seed, std::string_view purpose, uint64_t index)
    : RandomStream(mix64(mix64(seed) ^ mix64(hash_name(purpose)) * 3 ^ mix64(~index) * 5)) {}

RandomStream::RandomStream(uint64_t raw_seed) {
  // SplitMix64 sequence to fill the state, as xoshiro's authors recommend; never all-zero.
  uint64_t x = raw_seed;
  for (uint64_t& word : s_) {
    x += 0x9e3779b97f4a7c15ull;
    word = mix64(x);
  }
}

uint64_t RandomStream::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RandomStream::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  // 1 - uniform() lies in (0, 1], so the log is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));
  const double angle = 2.0 * std::numbers::pi * uniform();
  spare_normal_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

bool RandomStream::bernoulli(double p) {
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return uniform() < p;
}

uint64_t RandomStream::below(uint64_t n) {
  // Lemire, "Fast random integer generation in an interval" (2019).
  uint128 m = static_cast<uint128>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<uint128>(next_u64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double RandomStream::gamma(double shape) {
  if (shape < 1.0) {
    // Boost a shape below one: G(a) = G(a+1) * U^(1/a).
    const double u = 1.0 - uniform();
    return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x;
    double v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

void RandomStream::archive(StateArchive& ar) {
  for (uint64_t& w : s_) ar.value(w);
  ar.value(spare_normal_);
  ar.value(has_spare_);
}

SimTime exponential_time(RandomStream& random, SimTime mean) {
  const double u = random.uniform();
  const double ns = -std::log1p(-u) * static_cast<double>(mean.ns);
  const double capped = std::min(ns, static_cast<double>(SimTime::max().ns) / 4);
  return SimTime{std::max<int64_t>(1, static_cast<int64_t>(std::llround(capped)))};
}

}  // namespace dlsim
