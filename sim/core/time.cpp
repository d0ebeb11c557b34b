#include "sim/core/time.hpp"

#include "sim/core/error.hpp"
#include "sim/core/uint128.hpp"

#include <cmath>

namespace dlsim {

SimTime SimTime::from_seconds(double s) { return SimTime{std::llround(s * 1e9)}; }

SimTime transmission_time(uint64_t size_bytes, uint64_t bandwidth_bps) {
  // 128-bit so that 1e12 bytes at 1 bps does not overflow before the division.
  const uint128 bits_ns = static_cast<uint128>(size_bytes) * 8u * 1000000000u;
  const uint128 ns = (bits_ns + bandwidth_bps - 1) / bandwidth_bps;
  DLSIM_CHECK(ns < static_cast<uint128>(SimTime::max().ns), "transmission of {} bytes at {} bps overflows",
              size_bytes, bandwidth_bps);
  return SimTime{static_cast<int64_t>(ns)};
}

}  // namespace dlsim
