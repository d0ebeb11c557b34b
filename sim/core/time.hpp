// Simulated time as integer nanoseconds: ties are exact and nothing drifts over long runs.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace dlsim {

/// A point or span of simulated time in integer nanoseconds.
struct SimTime {
  int64_t ns = 0;

  static constexpr SimTime from_ns(int64_t n) { return SimTime{n}; }
  static constexpr SimTime from_us(int64_t n) { return SimTime{n * 1000}; }
  static constexpr SimTime from_ms(int64_t n) { return SimTime{n * 1000000}; }
  /// Rounds to the nearest nanosecond.
  static SimTime from_seconds(double s);
  static constexpr SimTime max() { return SimTime{std::numeric_limits<int64_t>::max()}; }

  constexpr double seconds() const { return static_cast<double>(ns) * 1e-9; }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const { return SimTime{ns + o.ns}; }
  constexpr SimTime operator-(SimTime o) const { return SimTime{ns - o.ns}; }
  constexpr SimTime& operator+=(SimTime o) {
    ns += o.ns;
    return *this;
  }
};

constexpr SimTime max(SimTime a, SimTime b) { return a < b ? b : a; }

/// [from, until): from `from` up to, not including, `until` (SimTime::max(): for ever).
struct TimeInterval {
  SimTime from;
  SimTime until;
  bool operator==(const TimeInterval&) const = default;
};

/// Time to serialise size_bytes onto a wire of bandwidth_bps bits/s, rounded up to whole ns
/// (a transfer never finishes early). Precondition: bandwidth_bps > 0.
SimTime transmission_time(uint64_t size_bytes, uint64_t bandwidth_bps);

}  // namespace dlsim
