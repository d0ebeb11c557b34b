#include "sim/metrics/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <sys/resource.h>

#include "sim/core/huge_pages.hpp"
#include "sim/scenario/algorithm_json.hpp"

namespace dlsim {

using nlohmann::json;

std::string fingerprint_string(uint64_t fingerprint) { return fmt::format("0x{:016x}", fingerprint); }

namespace {

// The process's peak resident memory so far, in MiB (getrusage: KiB on Linux).
double peak_rss_mb() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return std::nan("");
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// NaN is not JSON: absent values are null.
json number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

json final_section(const World& world, const EvalPoint& p) {
  double sum = 0, lo = INFINITY, hi = -INFINITY, loss = 0;
  for (const AgentPoint& a : p.agents) {
    sum += a.score.accuracy;
    lo = std::min(lo, a.score.accuracy);
    hi = std::max(hi, a.score.accuracy);
    loss += a.score.loss;
  }
  const double n = static_cast<double>(p.agents.size());
  json f = {{"iteration", p.iteration},
            {"loss_mean", number(loss / n)},
            {"consensus_distance", number(p.consensus_distance)}};
  if (world.is_quadratic()) {
    double distance = 0;
    for (const AgentPoint& a : p.agents) distance += a.score.optimum_distance;
    f["distance_to_optimum"] = number(distance / n);
    f["distance_to_optimum_aggregate"] = number(p.aggregate.optimum_distance);
    if (p.center) f["distance_to_optimum_center"] = number(p.center->score.optimum_distance);
  } else {
    f.update({{"accuracy_mean", number(sum / n)}, {"accuracy_min", number(lo)},
              {"accuracy_max", number(hi)}, {"accuracy_aggregate", number(p.aggregate.accuracy)},
              {"loss_aggregate", number(p.aggregate.loss)}});
    if (p.center) {
      f.update({{"accuracy_center", number(p.center->score.accuracy)},
                {"loss_center", number(p.center->score.loss)}});
    }
  }
  return f;
}

}  // namespace

json make_summary(const World& world, const RunOutcome& outcome, const EvalPoint* last,
                  uint64_t fingerprint, const RunTimes& times) {
  const AgentCounters total = world.network->total_counters();
  uint64_t events = 0;
  json per_agent = json::array();
  for (const Agent& a : world.agents) {
    events += a.events;
    per_agent.push_back(a.events);
  }
  // Decisions taken: each agent's own iteration count (in async mode some are ahead).
  double possible = 0;
  for (const Agent& a : world.agents) possible += static_cast<double>(a.iteration);
  json s = {{"name", world.spec.name},
            {"status", outcome.status == RunStatus::kOk ? "ok" : "diverged"},
            {"fingerprint", fingerprint_string(fingerprint)},
            {"agents", world.agents.size()},
            {"parameters", world.parameter_count()},
            {"algorithm", std::string(to_string(world.spec.algorithm.kind))},
            {"iterations", outcome.iterations_done},
            {"comm", {{"events", events},
                      {"events_per_agent", per_agent},
                      {"messages", total.sent.messages},
                      {"bytes", total.sent.bytes},
                      {"messages_dropped", total.dropped.messages},
                      {"savings", possible > 0 ? 1.0 - static_cast<double>(events) / possible : 0.0}}},
            {"time", {{"simulated_s", world.sim.now().seconds()},
                      {"wall_s", times.wall_s},
                      {"build_s", times.build_s},
                      {"eval_s", times.eval_s},
                      {"training_s", times.driver.training_s},
                      {"events_s", times.driver.events_s},
                      {"updates_s", times.driver.updates_s},
                      {"events_processed", world.sim.events_processed()},
                      {"peak_rss_mb", number(peak_rss_mb())},
                      {"huge_pages", malloc_huge_pages()}}},
            {"warnings", world.warnings}};
  if (last) s["final"] = final_section(world, *last);
  // Per-agent class counts of the shards (empty for quadratic and centralized runs).
  s["shards"] = {{"class_counts", world.class_counts}};
  if (outcome.status == RunStatus::kDiverged)
    s["diverged"] = {{"iteration", outcome.diverged_iteration},
                     {"agent", outcome.diverged_agent},
                     {"in", outcome.diverged_in == DivergedIn::kLoss ? "loss" : "parameters"}};
  return s;
}

}  // namespace dlsim
