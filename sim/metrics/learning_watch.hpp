// Watches a run's evaluation points for a run that learns nothing: every agent back at chance
// accuracy after some agent was clearly above it, or no agent ever above it after
// kPatienceIterations. It says so once, naming the scenario key most likely at fault (the run
// layer's guess, `suspect`). Classification runs only; quadratic models have no accuracy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/metrics/evaluation.hpp"

namespace dlsim {

/// What the watch has seen so far: plain data, saved in checkpoints with the run's counters,
/// from which the warning's text follows.
struct LearningProgress {
  enum Verdict : int64_t { kLearning = 0, kFellToChance = 1, kNeverAboveChance = 2 };
  double best_accuracy = 0.0;   // the best agent accuracy at any point after iteration 0
  int64_t best_iteration = -1;  // where it was seen (-1: no point after iteration 0 yet)
  int64_t verdict = kLearning;  // a Verdict; set once
  int64_t verdict_iteration = 0;
  double verdict_accuracy = 0.0;  // the best agent's accuracy at that point
  double earlier_accuracy = 0.0;  // kFellToChance: the best before the fall, and where
  int64_t earlier_iteration = 0;
};

class LearningWatch {
 public:
  /// Iterations after which a run whose agents never rose above chance is called stuck.
  static constexpr int64_t kPatienceIterations = 1000;

  /// classes: of the dataset (chance is 1 / classes); suspect: the key to name, with why.
  LearningWatch(uint32_t classes, std::string suspect, LearningProgress progress = {})
      : classes_(classes), suspect_(std::move(suspect)), progress_(progress) {}

  /// Looks at one evaluation point; true when the warning became due at this point.
  bool observe(const EvalPoint& p);
  /// The warning, once due (the same text after a checkpoint's resume).
  std::optional<std::string> warning() const;
  const LearningProgress& progress() const { return progress_; }

 private:
  uint32_t classes_;
  std::string suspect_;
  LearningProgress progress_;
};

}  // namespace dlsim
