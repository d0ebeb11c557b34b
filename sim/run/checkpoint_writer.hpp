// The run's CheckpointSink (driver.hpp): writes checkpoints into OUT.tmp when they are due.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "sim/core/rank_collectives.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/learning_watch.hpp"
#include "sim/metrics/metrics_csv.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/checkpoint.hpp"
#include "sim/run/driver.hpp"
#include "sim/run/wall_clock.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

// The driver's CheckpointSink: when one is due (every N iterations, or once the wall-clock
// interval has passed), it writes the whole run into OUT.tmp. Over MPI ranks every rank writes
// its own part (checkpoint_name) when any rank finds one due, and only rank 0 has metrics.csv.
class CheckpointWriter final : public CheckpointSink {
 public:
  CheckpointWriter(const CheckpointPolicy& policy, CheckpointIdentity identity,
                   std::filesystem::path staging, std::string name, const World& world,
                   const Swarm& swarm, const CommRecorder& comm, MetricsCsv* csv, RunTimes& times,
                   const DriverTimings& driver_times, const LearningWatch& watch,
                   WallClock::time_point start, int64_t resumes, RankCollectives* ranks)
      : policy_(policy),
        identity_(std::move(identity)),
        staging_(std::move(staging)),
        name_(std::move(name)),
        world_(world),
        swarm_(swarm),
        comm_(comm),
        csv_(csv),
        times_(times),
        driver_times_(driver_times),
        watch_(watch),
        start_(start),
        wall_before_(times.wall_s),
        resumes_(resumes),
        ranks_(ranks),
        last_(WallClock::now()) {}

  bool due(int64_t iterations) override {
    int64_t due = policy_.every_iterations > 0 && iterations % policy_.every_iterations == 0;
    if (!due) due = policy_.every_seconds > 0 && seconds_since(last_) >= policy_.every_seconds;
    if (ranks_)
      ranks_->all_reduce(std::span(&due, 1), Reduction::kMax);  // the ranks' clocks differ
    return due != 0;
  }

  void write(int64_t iterations, const std::function<void(AgentArchive&)>& driver_state) override {
    RunCounters counters{iterations, csv_ ? csv_->durable_size() : 0, times_, resumes_,
                         watch_.progress()};
    counters.times.training_s = driver_times_.training_s;
    counters.times.events_s = driver_times_.events_s;
    counters.times.updates_s = driver_times_.updates_s;
    counters.times.wall_s = wall_before_ + seconds_since(start_);
    const auto begin = WallClock::now();
    stats_.last_bytes = write_checkpoint(staging_, name_, ranks_ != nullptr, identity_, policy_,
                                         counters, world_, swarm_, comm_, driver_state);
    stats_.seconds += seconds_since(begin);
    ++stats_.written;
    last_ = WallClock::now();
  }

  const decltype(RunFacts::checkpoints)& stats() const { return stats_; }

 private:
  CheckpointPolicy policy_;
  CheckpointIdentity identity_;
  std::filesystem::path staging_;
  std::string name_;
  const World& world_;
  const Swarm& swarm_;
  const CommRecorder& comm_;
  MetricsCsv* csv_;
  RunTimes& times_;
  const DriverTimings& driver_times_;
  const LearningWatch& watch_;
  WallClock::time_point start_;
  double wall_before_;  // wall time of the run before it was resumed
  int64_t resumes_;
  RankCollectives* ranks_;
  WallClock::time_point last_;
  decltype(RunFacts::checkpoints) stats_;
};

}  // namespace dlsim
