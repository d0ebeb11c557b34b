// What one robust aggregation costs per call, against the mean of the same members: the rule
// alone, without the run around it (tools/bench/aggregation_cost.sh times whole runs, which a
// shared host makes noisy). Members are models of the default scenario's size (MLP 784-250-10,
// 198,760 parameters): x_i and its neighbours x_j = x_i + noise, as a neighbourhood is near
// consensus. Times are medians over `runs` runs of thread CPU time, each the mean of `reps`
// calls (tools/bench/cpu_timing.hpp); the ratio is to mean_rule's median in the same process.
//
//   build/tools/bench/aggregation_bench [neighbours=8] [runs=15]
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/robust/aggregation_rule.hpp"
#include "sim/robust/aggregation_workspace.hpp"
#include "tools/bench/cpu_timing.hpp"

using namespace dlsim;
using bench::median_seconds;

constexpr size_t kDimension = 198760;

int main(int argc, char** argv) {
  const size_t neighbours = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 8;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 15;
  if (neighbours < 2 || neighbours > 31 || runs < 1) {  // the trimmed mean drops 2 values
    std::fprintf(stderr, "usage: aggregation_bench [neighbours 2..31] [runs >= 1]\n");
    return 2;
  }
  RandomStream rng(1, "aggregation_bench", 0);
  std::vector<std::vector<float>> models(neighbours + 1, std::vector<float>(kDimension));
  for (float& v : models[0]) v = static_cast<float>(rng.normal());
  for (size_t k = 1; k <= neighbours; ++k)
    for (size_t e = 0; e < kDimension; ++e)
      models[k][e] = models[0][e] + 0.01f * static_cast<float>(rng.normal());
  std::vector<std::span<const float>> others;
  for (size_t k = 1; k <= neighbours; ++k) others.emplace_back(models[k]);
  const std::vector<double> weights(neighbours, 1.0 / static_cast<double>(neighbours + 1));
  const Neighbourhood in{models[0], others, 1.0 / static_cast<double>(neighbours + 1), weights};
  AggregationWorkspace ws(kDimension, neighbours);
  std::vector<float> out(kDimension);

  const int reps = 20;
  const double mean = median_seconds([&] { mean_rule(in, out, ws); }, reps, runs);
  struct Rule {
    std::string name;
    std::function<void()> call;
  };
  const uint32_t trim = neighbours >= 4 ? 2 : 1;
  const std::vector<Rule> rules = {
      {"clipped_gossip, tau 1", [&] { clipped_gossip(in, ClipRadius::kFixed, 1.0, out, ws); }},
      {"clipped_gossip, adaptive",
       [&] { clipped_gossip(in, ClipRadius::kAdaptive, 0.0, out, ws); }},
      {"trimmed_mean, b " + std::to_string(trim), [&] { trimmed_mean(in, trim, out, ws); }},
      {"median", [&] { coordinate_median(in, out, ws); }},
  };
  std::printf("%zu members of %zu parameters, median of %d runs of %d calls\n", neighbours + 1,
              kDimension, runs, reps);
  std::printf("| rule | us per call | / mean |\n|---|---|---|\n");
  std::printf("| mean | %.0f | 1.00 |\n", 1e6 * mean);
  for (const Rule& r : rules) {
    const double t = median_seconds(r.call, reps, runs);
    std::printf("| %s | %.0f | %.2f |\n", r.name.c_str(), 1e6 * t, t / mean);
  }
  return 0;
}
