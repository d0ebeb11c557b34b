// Wall-clock seconds, for the run's timings (summary.json's `time`) and checkpoint intervals.
#pragma once

#include <chrono>

namespace dlsim {

using WallClock = std::chrono::steady_clock;

/// Seconds since `start`.
inline double seconds_since(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

}  // namespace dlsim
