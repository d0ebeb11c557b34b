// Progress on stderr: a bar redrawn in place on a terminal (iteration, simulated time, mean
// accuracy, events, ETA), a plain line every 10 % otherwise, nothing when quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>

#include "sim/core/time.hpp"

namespace dlsim {

enum class ProgressMode { kBar, kLines, kQuiet };

class Progress {
 public:
  Progress(ProgressMode mode, int64_t total_iterations, std::ostream& out);
  /// Called after every completed iteration; draws at most a few times per second.
  void update(int64_t iteration, SimTime simulated, double mean_accuracy, uint64_t events);
  /// Ends the bar's line.
  void finish();

 private:
  void draw(int64_t iteration, SimTime simulated, double mean_accuracy, uint64_t events);

  ProgressMode mode_;
  int64_t total_;
  std::ostream& out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  int64_t next_line_ = 0;
  bool drawn_ = false;
};

}  // namespace dlsim
