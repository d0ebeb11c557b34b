// The drivers: the two ways time runs (docs/algorithms.md, "Time"):
// - sync: rounds with a barrier. Every agent computes its gradient (in parallel), decides and
//   sends when its compute time has passed; the round ends when the last message has arrived;
//   then every agent updates (in parallel). Round time = slowest compute + that round's messages.
// - async: each agent on its own clock. At its step event agent i finishes iteration k-1 with
//   whatever copies have arrived (update), then decides and sends for iteration k and starts
//   computing g_k, which is ready compute_time later, at its next step event. Gradients pending
//   at the same moment are computed together in parallel: each depends only on its own agent.
//   Collective algorithms (all-reduce) are barriers by nature and run in rounds in both modes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/time_mode.hpp"
#include "sim/core/rank_collectives.hpp"
#include "sim/core/thread_pool.hpp"
#include "sim/run/swarm.hpp"

namespace dlsim {

/// Wall-clock seconds spent in each part of a run (for "where the time goes").
struct DriverTimings {
  double training_s = 0.0;  // gradients (and, in sync mode, prepare: snapshots, drift norms)
  double events_s = 0.0;    // the event loop: decisions, sends, network, deliveries
  double updates_s = 0.0;   // consensus / mixing / optimizer updates
};

/// Where a run's checkpoints go (run_scenario: sim/run/checkpoint.hpp). The driver asks after
/// every iteration that all agents completed whether one is due, and if so, once the state is
/// whole (sync: between rounds; async: between two events), hands over its own part.
class CheckpointSink {
 public:
  virtual ~CheckpointSink() = default;
  virtual bool due(int64_t iterations) = 0;
  /// Writes the run's state; `driver_state` appends the driver's (walking the same archive the
  /// driver reads its part back with), and must change nothing that was written before it.
  virtual void write(int64_t iterations,
                     const std::function<void(AgentArchive&)>& driver_state) = 0;
};

struct DriverConfig {
  TimeMode mode = TimeMode::kSync;
  int64_t iterations = 0;
  std::vector<SimTime> compute_time;  // per agent: time of one local step
  DriverTimings* timings = nullptr;   // filled when set
  CheckpointSink* checkpoints = nullptr;  // none when null
  /// A run continued from a checkpoint written after `resume_iterations`: everything but the
  /// driver's part is loaded, and `resume` is positioned at that part (the driver reads it and
  /// finishes the reader). Null for a fresh run.
  StateReader* resume = nullptr;
  int64_t resume_iterations = 0;
  /// One run over MPI ranks: the simulator is partitioned over them, this rank computes its own
  /// agents only, and the ranks agree on divergence (and, async, on the windows' horizon and the
  /// minimum iteration). Null in one process.
  RankCollectives* ranks = nullptr;
};

/// Told about progress; may stop the run early (by returning false).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// Every agent has completed `iterations` iterations. In sync mode every agent's parameters are
  /// those after exactly that many; in async mode faster agents may already be further on (the
  /// state is that of the moment the slowest agent finished).
  virtual bool on_iterations_done(int64_t iterations) = 0;
};

enum class RunStatus { kOk, kDiverged };
/// What was not finite: a mini-batch loss, or the parameters after an update (the last one of a
/// run: earlier ones show as the next iteration's loss).
enum class DivergedIn { kLoss, kParameters };

struct RunOutcome {
  RunStatus status = RunStatus::kOk;
  int64_t iterations_done = 0;      // completed by every agent
  int64_t diverged_iteration = -1;  // the iteration whose loss (or update) was not finite
  int64_t diverged_agent = -1;
  DivergedIn diverged_in = DivergedIn::kLoss;
};

/// Runs the configured iterations. Precondition: algorithm.start() was called.
RunOutcome run_driver(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                      RunObserver& observer);

}  // namespace dlsim
