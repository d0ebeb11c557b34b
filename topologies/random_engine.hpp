// Makes a dlsim::RandomStream usable where Boost.Graph's generators expect a
// UniformRandomBitGenerator. Boost's own distributions (uniform_01, uniform_int, geometric) are
// fixed code, not the standard library's, so the draws are the same on every platform.
#pragma once

#include <cstdint>
#include <limits>

#include "sim/core/random.hpp"

namespace dlsim::topo {

/// A UniformRandomBitGenerator over a RandomStream it owns (copyable: Boost copies engines).
class RandomStreamEngine {
 public:
  using result_type = uint64_t;
  explicit RandomStreamEngine(RandomStream stream) : stream_(stream) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return stream_.next_u64(); }

 private:
  RandomStream stream_;
};

}  // namespace dlsim::topo
