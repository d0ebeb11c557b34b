#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/driver.hpp"
#include "sim/run/driver_internal.hpp"

namespace dlsim {
namespace {

// One async run: per-agent clocks, gradients computed lazily in parallel batches.
class AsyncRun {
 public:
  AsyncRun(Swarm& swarm, ThreadPool& pool, const DriverConfig& config, RunObserver& observer)
      : swarm_(swarm), pool_(pool), config_(config), observer_(observer),
        agents_(swarm.agents()), started_(agents_.size(), 0), pending_(agents_.size(), 0),
        at_minimum_(agents_.size()) {}

  RunOutcome run() {
    if (config_.iterations == 0) return outcome_;
    for (const Agent& a : agents_) swarm_.sim().schedule_at(SimTime{}, EventKind::kAgentStep, a.id);
    swarm_.sim().run([&](const Event& e) {
      if (swarm_.dispatch(e)) return;
      DLSIM_CHECK(e.kind() == EventKind::kAgentStep, "unexpected event kind {}",
                  static_cast<int>(e.kind()));
      step(agents_[e.agent.value]);
    });
    return outcome_;
  }

 private:
  // Every gradient still pending is computed now, together: each depends only on its agent's x
  // and streams, which nothing else touches until that agent's next step.
  void compute_pending_gradients() {
    batch_.clear();
    for (size_t i = 0; i < agents_.size(); ++i)
      if (pending_[i]) batch_.push_back(i);
    pool_.parallel_for(batch_.size(), [&](size_t b) {
      Agent& a = agents_[batch_[b]];
      a.loss = a.learner->gradient(a.x, a.g);
    });
    for (size_t i : batch_) pending_[i] = 0;
  }

  void step(Agent& a) {
    const uint32_t i = a.id.value;
    if (started_[i] && !finish_iteration(a)) return;
    started_[i] = 1;
    swarm_.algorithm().prepare(a);
    swarm_.algorithm().communicate(a, swarm_);
    pending_[i] = 1;
    swarm_.sim().schedule_in(config_.compute_time[i], EventKind::kAgentStep, a.id);
  }

  // Applies iteration k's update; false when the agent has finished or the run must stop.
  bool finish_iteration(Agent& a) {
    if (pending_[a.id.value]) compute_pending_gradients();
    if (!std::isfinite(a.loss)) {
      outcome_ = *check_losses(std::span<const Agent>(&a, 1), completed_);
      swarm_.sim().stop();
      return false;
    }
    swarm_.algorithm().update(a);
    if (a.iteration++ == completed_) --at_minimum_;
    while (at_minimum_ == 0 && completed_ < config_.iterations) {
      // The slowest agent finished iteration completed_: count who is at the new minimum.
      outcome_.iterations_done = ++completed_;
      at_minimum_ = static_cast<size_t>(std::count_if(
          agents_.begin(), agents_.end(), [&](const Agent& b) { return b.iteration == completed_; }));
      if (!observer_.on_iterations_done(completed_)) {
        swarm_.sim().stop();
        return false;
      }
    }
    if (completed_ == config_.iterations) swarm_.sim().stop();  // the last agent finished
    return a.iteration < config_.iterations;
  }

  Swarm& swarm_;
  ThreadPool& pool_;
  const DriverConfig& config_;
  RunObserver& observer_;
  std::span<Agent> agents_;
  std::vector<char> started_;
  std::vector<char> pending_;
  size_t at_minimum_;  // agents whose iteration counter equals completed_
  std::vector<size_t> batch_;
  int64_t completed_ = 0;
  RunOutcome outcome_;
};

}  // namespace

RunOutcome run_async(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                     RunObserver& observer) {
  return AsyncRun(swarm, pool, config, observer).run();
}

}  // namespace dlsim
