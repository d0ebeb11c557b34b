// compute_times (declared in world.hpp): fixed or FLOP-based step times, per-agent speeds and
// stragglers.
#include <algorithm>
#include <numeric>

#include "sim/scenario/world.hpp"

namespace dlsim {

std::vector<SimTime> compute_times(const ScenarioSpec& spec, uint32_t agents,
                                   double flops_per_step) {
  const ComputeSpec& c = spec.time.compute;
  std::vector<double> speed(agents, 1.0);
  for (uint32_t i = 0; i < agents; ++i) {
    if (!c.speed_factors.empty()) speed[i] = c.speed_factors[i];
    if (c.speed_max > c.speed_min) {
      RandomStream rng(spec.seed, "speed", i);
      speed[i] *= rng.uniform(c.speed_min, c.speed_max);
    } else {
      speed[i] *= c.speed_min;
    }
  }
  // Stragglers: the first round(fraction * n) agents of a seeded shuffle are `factor` x slower.
  const auto stragglers = static_cast<uint32_t>(std::llround(c.straggler_fraction * agents));
  if (stragglers > 0) {
    std::vector<uint32_t> order(agents);
    std::iota(order.begin(), order.end(), 0u);
    RandomStream rng(spec.seed, "stragglers", 0);
    rng.shuffle(std::span<uint32_t>(order));
    for (uint32_t k = 0; k < stragglers; ++k) speed[order[k]] /= c.straggler_factor;
  }
  std::vector<SimTime> times(agents);
  for (uint32_t i = 0; i < agents; ++i) {
    const double seconds = c.step ? c.step->seconds() : flops_per_step / (c.gflops * 1e9);
    if (!(seconds / speed[i] < 9.2e9))  // SimTime::max() is 9.22e9 s; rounding stays below it
      throw InputError(fmt::format("{}: /time/compute: agent {}'s step takes {:.6g} s, beyond the "
                                   "simulated clock ({:.6g} s)", spec.file, i, seconds / speed[i],
                                   SimTime::max().seconds()));
    times[i] = SimTime::from_seconds(seconds / speed[i]);
  }
  return times;
}

}  // namespace dlsim
