#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/core/error.hpp"
#include "sim/run/driver.hpp"
#include "sim/run/driver_internal.hpp"

namespace dlsim {
namespace {

using Clock = std::chrono::steady_clock;

// Adds the wall time of f() to timings->*field (when timings and field are set) and to *other.
template <class F>
void timed(DriverTimings* timings, double DriverTimings::*field, double* other, F&& f) {
  if (!timings) {
    f();
    return;
  }
  const auto start = Clock::now();
  f();
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (field) timings->*field += s;
  *other += s;
}

// One async run: per-agent clocks, gradients computed lazily in parallel batches.
class AsyncRun {
 public:
  AsyncRun(Swarm& swarm, ThreadPool& pool, const DriverConfig& config, RunObserver& observer)
      : swarm_(swarm), pool_(pool), config_(config), observer_(observer),
        agents_(swarm.agents()), started_(agents_.size(), 0), pending_(agents_.size(), 0),
        computing_(agents_.size(), 0), at_minimum_(agents_.size()) {}

  RunOutcome run() {
    if (config_.iterations == 0) return outcome_;
    if (config_.resume) {
      AgentArchive ar(*config_.resume);
      archive(ar);
      config_.resume->finish();
    } else {
      for (const Agent& a : agents_)
        swarm_.sim().schedule_at(SimTime{}, EventKind::kAgentStep, a.id);
    }
    const auto loop_start = Clock::now();
    swarm_.sim().run([&](const Event& e) {
      if (swarm_.dispatch(e)) return;
      if (e.kind() == EventKind::kSenderReady) {  // maxmin: a held sender may go on
        swarm_.sim().schedule_at(swarm_.sim().now() + config_.compute_time[e.agent.value],
                                 EventKind::kAgentStep, e.agent);
        return;
      }
      DLSIM_CHECK(e.kind() == EventKind::kAgentStep, "unexpected event kind {}",
                  static_cast<int>(e.kind()));
      step(agents_[e.agent.value]);
      if (checkpoint_due_) {  // between two events: the state is whole
        checkpoint_due_ = false;
        // Pending gradients first (each depends only on its agent's x and streams, so computing
        // it now or at the agent's next step is the same): the checkpoint then holds every
        // started agent's gradient and its learner past it, rather than which are to come.
        compute_pending_gradients();
        timed(config_.timings, nullptr, &outside_events_s_, [&] {
          config_.checkpoints->write(completed_, [&](AgentArchive& ar) { archive(ar); });
        });
      }
    });
    // The event loop's own time: what the gradients, updates, evaluations (timed by the
    // observer) and checkpoints did not take.
    if (config_.timings)
      config_.timings->events_s +=
          std::chrono::duration<double>(Clock::now() - loop_start).count() - outside_events_s_;
    return outcome_;
  }

 private:
  static constexpr uint32_t kAsyncState = 0x4153594e;  // "ASYN"

  // The driver's part of a checkpoint, written after everything else: no gradient is pending.
  void archive(AgentArchive& ar) {
    ar.section(kAsyncState);
    ar.sized_vector(started_, "another number of agents");
    ar.sized_vector(computing_, "another number of agents");
    ar.value(at_minimum_);
    ar.value(completed_);
    if (ar.loading()) {
      if (completed_ != config_.resume_iterations) ar.fail("iterations out of step");
      outcome_.iterations_done = completed_;
    }
    for (size_t i = 0; i < agents_.size(); ++i)
      if (computing_[i]) ar.params(agents_[i].g);
  }

  // Every gradient still pending is computed now, together: each depends only on its agent's x
  // and streams, which nothing else touches until that agent's next step.
  void compute_pending_gradients() {
    batch_.clear();
    for (size_t i = 0; i < agents_.size(); ++i)
      if (pending_[i]) batch_.push_back(i);
    timed(config_.timings, &DriverTimings::training_s, &outside_events_s_, [&] {
      pool_.parallel_for(batch_.size(), [&](size_t b) {
        Agent& a = agents_[batch_[b]];
        a.loss = a.learner->gradient(a.x, a.g);
      });
    });
    for (size_t i : batch_) pending_[i] = 0;
  }

  void step(Agent& a) {
    const uint32_t i = a.id.value;
    if (started_[i] && !finish_iteration(a)) return;
    started_[i] = 1;
    // Churn: an agent offline at its iteration's start lets the iteration pass without a step
    // (its clock still advances by its compute time, as a sync round does).
    computing_[i] = swarm_.begin_iteration(a.id) ? 1 : 0;
    if (computing_[i]) {
      swarm_.algorithm().prepare(a);
      swarm_.algorithm().communicate(a, swarm_);
      pending_[i] = 1;
    }
    // A full send buffer in "block" mode holds the agent before it computes its next step
    // (under maxmin until a kSenderReady event: ready_at() is then SimTime::max()).
    const SimTime ready = swarm_.ready_at(a.id);
    if (ready != SimTime::max())
      swarm_.sim().schedule_at(ready + config_.compute_time[i], EventKind::kAgentStep, a.id);
  }

  // Applies iteration k's update; false when the agent has finished or the run must stop.
  bool finish_iteration(Agent& a) {
    if (pending_[a.id.value]) compute_pending_gradients();
    if (!std::isfinite(a.loss)) {
      outcome_ = *check_losses(std::span<const Agent>(&a, 1), completed_);
      swarm_.sim().stop();
      return false;
    }
    // Adapt-then-combine steps and copies what it sends in after_gradient(); the copy leaves
    // in communicate() of the iteration that starts at this same step event.
    if (computing_[a.id.value])
      timed(config_.timings, &DriverTimings::updates_s, &outside_events_s_, [&] {
        swarm_.algorithm().after_gradient(a);
        swarm_.algorithm().update(a);
      });
    if (a.iteration++ == completed_) --at_minimum_;
    while (at_minimum_ == 0 && completed_ < config_.iterations) {
      // The slowest agent finished iteration completed_: count who is at the new minimum.
      outcome_.iterations_done = ++completed_;
      at_minimum_ = static_cast<size_t>(std::count_if(
          agents_.begin(), agents_.end(), [&](const Agent& b) { return b.iteration == completed_; }));
      bool go_on = true;
      timed(config_.timings, nullptr, &outside_events_s_,
            [&] { go_on = observer_.on_iterations_done(completed_); });
      if (!go_on) {
        swarm_.sim().stop();
        return false;
      }
      if (config_.checkpoints && completed_ < config_.iterations &&
          config_.checkpoints->due(completed_))
        checkpoint_due_ = true;
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
  std::vector<char> computing_;  // the agent's current iteration takes a step (churn: online)
  size_t at_minimum_;  // agents whose iteration counter equals completed_
  std::vector<size_t> batch_;
  int64_t completed_ = 0;
  bool checkpoint_due_ = false;  // write one once the event being handled is done
  double outside_events_s_ = 0;  // wall time of the loop spent outside the event handling
  RunOutcome outcome_;
};

}  // namespace

RunOutcome run_async(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                     RunObserver& observer) {
  return AsyncRun(swarm, pool, config, observer).run();
}

}  // namespace dlsim
