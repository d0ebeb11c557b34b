// What the benches time with: this thread's CPU time, and the median over runs of a call's mean
// cost, so that another process on a shared host moves the figures less than wall time would.
#pragma once

#include <algorithm>
#include <ctime>
#include <functional>
#include <vector>

namespace dlsim::bench {

inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Median over `runs` (>= 1) of the mean time of `reps` calls of f, after a warm-up.
inline double median_seconds(const std::function<void()>& f, int reps, int runs) {
  for (int i = 0; i < std::max(2, reps / 4); ++i) f();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i) f();
    t.push_back((cpu_seconds() - t0) / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace dlsim::bench
