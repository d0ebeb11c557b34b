#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/core/error.hpp"
#include "sim/run/async_agreement.hpp"
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
// Partitioned (virtual ranks: the simulator runs its partitions in windows), the run must look
// at every agent right after the step of the slowest agent (the evaluation, the end of the run)
// without any partition having run past that step. It bounds each window by the latest pending
// step of the agents still at the minimum iteration (horizon()): the step it waits for is never
// before it, and when the bound is that step, it is the window's last event anywhere. That
// step's handler stops after the update; the rest (the observer, the agent's next iteration, a
// checkpoint) runs in window_done(), in the order the one-queue handler runs them.
class AsyncRun final : private WindowControl {
 public:
  AsyncRun(Swarm& swarm, ThreadPool& pool, const DriverConfig& config, RunObserver& observer)
      : swarm_(swarm),
        pool_(pool),
        config_(config),
        observer_(observer),
        agents_(swarm.agents()),
        started_(agents_.size(), 0),
        pending_(agents_.size(), 0),
        computing_(agents_.size(), 0),
        at_minimum_(agents_.size()),
        partitioned_(swarm.sim().partitions() > 1),
        ranks_(config.ranks) {
    if (partitioned_) pending_step_.assign(agents_.size(), EventBound{});
    if (ranks_)  // this rank counts its own agents
      at_minimum_ = static_cast<size_t>(
          std::count_if(agents_.begin(), agents_.end(), [&](const Agent& a) { return here(a); }));
  }

  RunOutcome run() {
    if (config_.iterations == 0) return outcome_;
    if (config_.resume) {
      AgentArchive ar(*config_.resume);
      archive(ar);
      config_.resume->finish();
    } else {
      for (const Agent& a : agents_)
        if (here(a)) schedule_step(a.id, SimTime{});
    }
    if (ranks_) horizon_ = agree_on_horizon();
    const auto loop_start = Clock::now();
    swarm_.sim().run(
        [&](const Event& e) {
          if (swarm_.dispatch(e)) return;
          if (e.kind() == EventKind::kSenderReady) {  // maxmin: a held sender may go on
            schedule_step(e.agent, swarm_.sim().now() + config_.compute_time[e.agent.value]);
            return;
          }
          DLSIM_CHECK(e.kind() == EventKind::kAgentStep, "unexpected event kind {}",
                      static_cast<int>(e.kind()));
          if (partitioned_) return step_in_window(e);
          step(agents_[e.agent.value]);
          if (checkpoint_due_) write_checkpoint();  // between two events: the state is whole
        },
        SimTime::max(), partitioned_ ? this : nullptr);
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
      if (partitioned_)  // the windows' horizon needs every agent's next step
        for (const Event& e : swarm_.sim().pending_events())
          if (e.kind() == EventKind::kAgentStep) pending_step_[e.agent.value] = {e.time, e.key};
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

  // Pending gradients first (each depends only on its agent's x and streams, so computing it
  // now or at the agent's next step is the same): the checkpoint then holds every started
  // agent's gradient and its learner past it, rather than which are to come.
  void write_checkpoint() {
    checkpoint_due_ = false;
    compute_pending_gradients();
    timed(config_.timings, nullptr, &outside_events_s_,
          [&] { config_.checkpoints->write(completed_, [&](AgentArchive& ar) { archive(ar); }); });
  }

  void schedule_step(AgentId a, SimTime at) {
    const uint64_t id = swarm_.sim().schedule_at(at, EventKind::kAgentStep, a);
    if (partitioned_) pending_step_[a.value] = EventBound{at, key_of_id(id, EventKind::kAgentStep)};
  }

  void step(Agent& a) {
    if (started_[a.id.value] && !finish_iteration(a)) return;
    begin_iteration(a);
  }

  // Starts the agent's next iteration: decides, sends, and schedules the step that ends it.
  void begin_iteration(Agent& a) {
    const uint32_t i = a.id.value;
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
    if (ready != SimTime::max()) schedule_step(a.id, ready + config_.compute_time[i]);
  }

  // Applies iteration k's update; false when the agent has finished or the run must stop.
  bool finish_iteration(Agent& a) {
    if (!apply_update(a)) return false;
    if (!advance_completed()) return false;
    return a.iteration < config_.iterations;
  }

  // The update of the agent's iteration; false (the run stopped) when its loss was not finite.
  bool apply_update(Agent& a) {
    if (pending_[a.id.value]) compute_pending_gradients();
    if (!std::isfinite(a.loss)) {
      const RunOutcome diverged = *check_losses(std::span<const Agent>(&a, 1), completed_);
      if (!partitioned_) {
        outcome_ = diverged;
        swarm_.sim().stop();
        return false;
      }
      // The partitions run the window to its end, and the earliest non-finite loss in it is
      // one process's first: later windows hold only later events (window_done ends the run).
      if (outcome_.status != RunStatus::kDiverged || handling_at_ < diverged_at_) {
        outcome_ = diverged;
        diverged_at_ = handling_at_;
      }
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
    return true;
  }

  bool here(const Agent& a) const { return swarm_.sim().runs_here(a.id); }

  // The agents at the minimum iteration, on every rank (collective over ranks).
  int64_t at_minimum_everywhere() {
    int64_t n = static_cast<int64_t>(at_minimum_);
    if (ranks_) ranks_->all_reduce(std::span(&n, 1), Reduction::kSum);
    return n;
  }

  // Once the slowest agent has finished an iteration: the observer, checkpoints, the end of the
  // run. False when the run must stop. Over ranks, every rank calls it together.
  bool advance_completed() {
    while (at_minimum_everywhere() == 0 && completed_ < config_.iterations) {
      // The slowest agent finished iteration completed_: count who is at the new minimum (over
      // ranks, of this rank's agents).
      outcome_.iterations_done = ++completed_;
      at_minimum_ =
          static_cast<size_t>(std::count_if(agents_.begin(), agents_.end(), [&](const Agent& b) {
            return b.iteration == completed_ && here(b);
          }));
      horizon_stale_ = true;
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
    if (completed_ == config_.iterations) {  // the last agent finished
      swarm_.sim().stop();
      return false;
    }
    return true;
  }

  // A step event of a partitioned run: as step(), but the horizon's step leaves what follows
  // its update to window_done().
  void step_in_window(const Event& e) {
    handling_at_ = EventBound::of(e);
    Agent& a = agents_[e.agent.value];
    const bool lagging = a.iteration == completed_;
    const bool horizon = e.time == horizon_.time && e.key == horizon_.key;  // the window's last
    if (lagging && (horizon || !started_[a.id.value])) horizon_stale_ = true;
    if (started_[a.id.value]) {
      if (!apply_update(a)) return;
      if (horizon) {
        deferred_ = e;
        return;
      }
      if (a.iteration >= config_.iterations) return;
    }
    begin_iteration(a);
  }

  // The latest pending step of the agents at the minimum iteration: the step after which the
  // slowest agent has finished comes no sooner (header comment). Over ranks, agreed on in
  // window_done() (this function is no collective: run() may skip it on a failed rank).
  EventBound horizon() override {
    if (ranks_) return horizon_;
    if (horizon_stale_) horizon_ = latest_lagging_step();
    horizon_stale_ = false;
    return horizon_;
  }

  // Of this process's agents at the minimum iteration, the latest pending step (EventBound{},
  // the end of time, when none is).
  EventBound latest_lagging_step() const {
    EventBound latest{SimTime{}, 0};
    bool any = false;
    for (const Agent& a : agents_) {
      if (a.iteration != completed_ || !here(a)) continue;
      const EventBound& b = pending_step_[a.id.value];
      if (!any || latest < b) latest = b;
      any = true;
    }
    return any ? latest : EventBound{};
  }

  // This rank's report after a window (over ranks: async_agreement.hpp), gathered from all.
  std::vector<RankReport> reports_of_ranks() {
    if (horizon_stale_) {
      local_horizon_ = latest_lagging_step();
      horizon_stale_ = false;
    }
    RankReport mine;
    mine.lagging_step = local_horizon_;
    mine.has_lagging = local_horizon_ < EventBound{} ? 1 : 0;
    if (outcome_.status == RunStatus::kDiverged) {
      mine.diverged_at = diverged_at_;
      mine.diverged_agent = outcome_.diverged_agent;
      mine.diverged_iteration = outcome_.diverged_iteration;
    }
    mine.at_minimum = static_cast<int64_t>(at_minimum_);
    mine.deferred = deferred_ ? 1 : 0;
    return all_reports(*ranks_, mine);
  }

  EventBound agree_on_horizon() { return dlsim::latest_lagging_step(reports_of_ranks()); }

  // window_done() over ranks: one all_gather of every rank's report, and when the horizon's step
  // ran somewhere (about once per iteration) the observer's collectives and one more.
  bool window_done_over_ranks() {
    const std::vector<RankReport> reports = reports_of_ranks();
    int64_t at_minimum = 0, deferred = 0;
    for (const RankReport& r : reports) {
      at_minimum += r.at_minimum;
      deferred += r.deferred;
    }
    if (const RankReport* diverged = earliest_divergence(reports)) {
      outcome_.status = RunStatus::kDiverged;
      outcome_.iterations_done = completed_;
      outcome_.diverged_agent = diverged->diverged_agent;
      outcome_.diverged_iteration = diverged->diverged_iteration;
      return false;
    }
    if (deferred == 0) {
      DLSIM_CHECK(at_minimum != 0, "the slowest agent finished away from the horizon");
      horizon_ = dlsim::latest_lagging_step(reports);
      return true;
    }
    if (!advance_completed()) return false;
    if (deferred_) {
      const Event e = *deferred_;
      deferred_.reset();
      Agent& a = agents_[e.agent.value];
      swarm_.sim().continue_handling(e, [&] {
        if (a.iteration < config_.iterations) begin_iteration(a);
      });
    }
    if (checkpoint_due_) write_checkpoint();  // every rank its part (due() agreed)
    horizon_ = agree_on_horizon();
    return true;
  }

  bool window_done() override {
    if (ranks_) return window_done_over_ranks();
    if (outcome_.status == RunStatus::kDiverged) return false;
    if (!deferred_) {
      DLSIM_CHECK(at_minimum_ != 0, "the slowest agent finished away from the horizon");
      return true;
    }
    const Event e = *deferred_;
    deferred_.reset();
    if (!advance_completed()) return false;
    Agent& a = agents_[e.agent.value];
    swarm_.sim().continue_handling(e, [&] {
      if (a.iteration < config_.iterations) begin_iteration(a);
    });
    if (checkpoint_due_) write_checkpoint();
    return true;
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
  // Partitioned runs only:
  const bool partitioned_;
  std::vector<EventBound> pending_step_;  // per agent: its next step event
  EventBound horizon_;                    // the windows' bound, while !horizon_stale_
  bool horizon_stale_ = true;
  std::optional<Event> deferred_;  // the horizon's step, its handling not finished
  // Over MPI ranks only: this rank's part of the horizon, and the collectives.
  EventBound local_horizon_;
  RankCollectives* const ranks_;
  EventBound diverged_at_;         // the earliest non-finite loss found
  EventBound handling_at_;         // the step event being handled
  double outside_events_s_ = 0;  // wall time of the loop spent outside the event handling
  RunOutcome outcome_;
};

}  // namespace

RunOutcome run_async(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                     RunObserver& observer) {
  return AsyncRun(swarm, pool, config, observer).run();
}

}  // namespace dlsim
