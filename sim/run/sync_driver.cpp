#include <algorithm>
#include <chrono>
#include <cmath>

#include "sim/agents/round_hooks.hpp"
#include "sim/agents/sync_fast_path.hpp"
#include "sim/core/error.hpp"
#include "sim/run/driver.hpp"
#include "sim/run/driver_internal.hpp"

namespace dlsim {
namespace {

// Adds the wall time since the last call to one of the timing fields.
class Stopwatch {
 public:
  explicit Stopwatch(DriverTimings* timings) : timings_(timings) {}
  void restart() { last_ = std::chrono::steady_clock::now(); }
  void lap(double DriverTimings::*field) {
    if (!timings_) return;
    const auto now = std::chrono::steady_clock::now();
    timings_->*field += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  DriverTimings* timings_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Every agent's update, each thread taking a contiguous range of agents: with many small
// agents (the 4,096-agent quadratic ring) handing them out one by one costs more than updating.
void run_updates(std::span<Agent> agents, ThreadPool& pool, Algorithm& algorithm,
                 const Swarm& swarm) {
  const size_t ranges = std::min<size_t>(pool.threads(), agents.size());
  pool.parallel_for(ranges, [&](size_t r) {
    const size_t first = r * agents.size() / ranges, end = (r + 1) * agents.size() / ranges;
    for (size_t i = first; i < end; ++i)
      if (swarm.computes(agents[i].id)) algorithm.update(agents[i]);
  });
}

// The agents this process computes: all of them, or over MPI ranks its rank's contiguous block
// (so that the threads share that block, not the whole run's agents).
std::span<Agent> agents_here(std::span<Agent> agents, const Simulator& sim) {
  const auto here = [&](const Agent& a) { return sim.runs_here(a.id); };
  const auto first = std::find_if(agents.begin(), agents.end(), here);
  const auto end = std::find_if_not(first, agents.end(), here);
  DLSIM_CHECK(std::none_of(end, agents.end(), here), "this rank's agents are not one block");
  return {first, end};
}

// The first diverged agent of this process's agents; over ranks, the first of every rank's
// (each checks only its own agents' losses, the others' are not computed here).
std::optional<RunOutcome> check_losses_here(std::span<const Agent> here, int64_t k,
                                            RankCollectives* ranks) {
  const std::optional<RunOutcome> mine = check_losses(here, k);
  if (!ranks) return mine;
  int64_t first = mine ? mine->diverged_agent : INT64_MAX;
  ranks->all_reduce(std::span(&first, 1), Reduction::kMin);
  if (first == INT64_MAX) return std::nullopt;
  RunOutcome out;
  out.status = RunStatus::kDiverged;
  out.iterations_done = k;
  out.diverged_iteration = k;  // every agent is in iteration k in a sync round
  out.diverged_agent = first;
  return out;
}

}  // namespace

std::optional<RunOutcome> check_losses(std::span<const Agent> agents, int64_t iterations_done) {
  for (const Agent& a : agents) {
    if (std::isfinite(a.loss)) continue;
    RunOutcome out;
    out.status = RunStatus::kDiverged;
    out.iterations_done = iterations_done;
    out.diverged_iteration = a.iteration;
    out.diverged_agent = a.id.value;
    return out;
  }
  return std::nullopt;
}

RunOutcome run_sync(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                    RunObserver& observer) {
  const std::span<Agent> agents = swarm.agents();
  Algorithm& algorithm = swarm.algorithm();
  Simulator& sim = swarm.sim();
  const std::span<Agent> here = agents_here(agents, sim);
  RunOutcome outcome;
  Stopwatch watch(config.timings);
  SyncFastPath* const fast = dynamic_cast<SyncFastPath*>(&algorithm);  // optional
  RoundHooks* const hooks = dynamic_cast<RoundHooks*>(&algorithm);      // optional
  // Between rounds the sync driver holds nothing of its own: its part is a tag.
  constexpr uint32_t kSyncState = 0x53594e43;  // "SYNC"
  if (config.resume) {
    config.resume->section(kSyncState);
    config.resume->finish();
  }
  outcome.iterations_done = config.resume_iterations;
  for (int64_t k = config.resume_iterations; k < config.iterations; ++k) {
    watch.restart();  // the observer (evaluation) times itself
    algorithm.begin_round(k, sim.now());
    swarm.begin_round();  // churn: who is online, rejoin pulls
    pool.parallel_for(here.size(), [&](size_t i) {
      Agent& a = here[i];
      if (!swarm.computes(a.id)) return;  // offline (or pulling its model back)
      algorithm.prepare(a);
      if (!fast || !fast->fused_local_step(a)) a.loss = a.learner->gradient(a.x, a.g);
      algorithm.after_gradient(a);
    });
    watch.lap(&DriverTimings::training_s);
    if (auto diverged = check_losses_here(here, k, config.ranks)) return *diverged;
    const SimTime round_start = sim.now();
    // Offline agents' steps are scheduled too (and do nothing), so a round lasts at least the
    // slowest compute time even when everyone is offline: the clock, and with it churn, moves.
    for (const Agent& a : here)
      sim.schedule_at(round_start + config.compute_time[a.id.value], EventKind::kAgentStep, a.id);
    // The round lasts until its last message has arrived: the queue runs dry.
    sim.run([&](const Event& e) {
      if (swarm.dispatch(e)) return;
      DLSIM_CHECK(e.kind() == EventKind::kAgentStep, "unexpected event kind {}",
                  static_cast<int>(e.kind()));
      if (swarm.computes(e.agent)) algorithm.communicate(agents[e.agent.value], swarm);
    });
    watch.lap(&DriverTimings::events_s);
    if (hooks) hooks->before_updates(agents);
    run_updates(here, pool, algorithm, swarm);
    if (hooks) hooks->after_updates(agents);
    for (Agent& a : agents) ++a.iteration;
    watch.lap(&DriverTimings::updates_s);
    outcome.iterations_done = k + 1;
    if (!observer.on_iterations_done(k + 1)) break;
    if (config.checkpoints && k + 1 < config.iterations && config.checkpoints->due(k + 1))
      config.checkpoints->write(k + 1, [&](AgentArchive& ar) { ar.section(kSyncState); });
  }
  return outcome;
}

RunOutcome run_driver(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                      RunObserver& observer) {
  DLSIM_CHECK(config.compute_time.size() == swarm.agents().size(), "{} compute times for {} agents",
              config.compute_time.size(), swarm.agents().size());
  const auto* hooks = dynamic_cast<const RoundHooks*>(&swarm.algorithm());
  if (config.mode == TimeMode::kSync || (hooks && hooks->collective()))
    return run_sync(swarm, pool, config, observer);
  return run_async(swarm, pool, config, observer);
}

}  // namespace dlsim
