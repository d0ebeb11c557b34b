// Random streams. Every stream is derived from (seed, purpose, agent) by a hash, never from the
// order streams are created in, so adding a stream never shifts another. The distributions are our
// own (std ones are implementation-defined and differ between standard libraries).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "sim/core/time.hpp"

namespace dlsim {

class StateArchive;

/// SplitMix64 finaliser: a bijective 64-bit mix, used for hashing and seeding.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// FNV-1a over the bytes of a name, for purposes given as strings.
constexpr uint64_t hash_name(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

/// A xoshiro256** generator with the draws dlsim uses. Cheap to copy (32 bytes).
class RandomStream {
 public:
  /// The stream for (seed, purpose, index): e.g. (scenario seed, "init", agent id).
  RandomStream(uint64_t seed, std::string_view purpose, uint64_t index);
  /// A stream from a raw 64-bit seed.
  explicit RandomStream(uint64_t raw_seed);

  uint64_t next_u64();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double normal();
  double normal(double mean, double stddev) { return mean + stddev * normal(); }
  /// True with probability p (p <= 0 never, p >= 1 always, without consuming a draw).
  bool bernoulli(double p);
  /// Uniform integer in [0, n), unbiased (Lemire's method). Precondition: n > 0.
  uint64_t below(uint64_t n);
  /// Gamma(shape, 1) by Marsaglia-Tsang; for Dirichlet draws. Precondition: shape > 0.
  double gamma(double shape);

  /// The stream's position, for checkpoints: a loaded stream continues exactly where the saved
  /// one was.
  void archive(StateArchive& ar);

  /// Fisher-Yates shuffle in place.
  template <class T>
  void shuffle(std::span<T> items) {
    for (size_t i = items.size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(below(i));
      std::swap(items[i - 1], items[j]);
    }
  }

 private:
  uint64_t s_[4];
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

/// An exponential duration of the given mean, in whole nanoseconds: at least 1, at most a
/// quarter of the clock's range (so adding a few never overflows). One uniform draw.
SimTime exponential_time(RandomStream& random, SimTime mean);

}  // namespace dlsim
