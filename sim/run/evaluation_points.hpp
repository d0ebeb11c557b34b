// A run's evaluation points (the run layer's RunObserver): the world's state scored at iteration
// 0, every eval_every iterations and at the end, each point streamed to metrics.csv and shown to
// the learning watch, and the progress line. Over MPI ranks every rank scores its own agents and
// rank 0 assembles the point (Evaluator::evaluate_over_ranks).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "sim/core/rank_collectives.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/evaluation.hpp"
#include "sim/metrics/learning_watch.hpp"
#include "sim/metrics/metrics_csv.hpp"
#include "sim/metrics/progress.hpp"
#include "sim/run/driver.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

/// Over the honest agents, as summary.json's final scores.
double mean_accuracy(const EvalPoint& p);
/// The Byzantine agents' ids (empty without the "byzantine" key).
inline std::vector<uint32_t> byzantine_of(const World& world) {
  return world.spec.byzantine ? world.spec.byzantine->agents : std::vector<uint32_t>{};
}

// Hands the world's state to the evaluator at iteration 0, every eval_every iterations and at
// the end, writes each point to metrics.csv, shows it to the learning watch (whose warning goes
// to `log` when it becomes due), and reports progress. Over MPI ranks every rank evaluates its
// own agents, rank 0 assembles the point and alone has a metrics.csv (`csv` null elsewhere).
class EvaluationPoints final : public RunObserver {
 public:
  EvaluationPoints(World& world, ThreadPool& pool, const CommRecorder& comm, MetricsCsv* csv,
                   Progress& progress, double& eval_s, const std::function<void()>& between,
                   LearningWatch& watch, std::ostream& log)
      : between_(between),
        world_(world),
        pool_(pool),
        comm_(comm),
        csv_(csv),
        progress_(progress),
        eval_s_(eval_s),
        watch_(watch),
        log_(log),
        evaluator_(world.learners, world.is_quadratic() ? nullptr : &world.eval_set,
                   world.spec.run.eval_batch, byzantine_of(world)) {}

  /// Over MPI ranks: this rank's agents are [first, end).
  void over_ranks(RankCollectives& ranks, uint32_t first, uint32_t end) {
    ranks_ = &ranks;
    first_ = first;
    end_ = end;
  }

  /// Scores the world now as iteration `iteration`'s point (collective over ranks).
  void record(int64_t iteration);
  bool on_iterations_done(int64_t k) override;

  /// The last point (null before the first); over MPI ranks, complete on rank 0 only.
  const EvalPoint* last() const { return has_point_ ? &last_ : nullptr; }

 private:
  const std::function<void()>& between_;
  World& world_;
  ThreadPool& pool_;
  const CommRecorder& comm_;
  MetricsCsv* csv_;
  Progress& progress_;
  double& eval_s_;
  LearningWatch& watch_;
  std::ostream& log_;
  Evaluator evaluator_;
  EvalPoint last_;
  bool has_point_ = false;
  RankCollectives* ranks_ = nullptr;
  uint32_t first_ = 0, end_ = 0;
  uint64_t events_ = 0;
};

}  // namespace dlsim
