#include "sim/metrics/learning_watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

bool LearningWatch::observe(const EvalPoint& p) {
  if (p.iteration == 0 || classes_ < 2) return false;
  double best = 0.0;
  bool scored = false;
  for (const AgentPoint& a : p.agents)
    if (a.online && !a.byzantine && !std::isnan(a.score.accuracy)) {
      best = std::max(best, a.score.accuracy);
      scored = true;
    }
  if (!scored) return false;
  // With 10 classes: "at chance" is at most 15 %, "clearly above" more than 20 %. A model that
  // predicts one class scores that class's share, about 1 / classes on a balanced test set.
  const double chance = 1.0 / classes_, at_chance = 1.5 * chance, above = 2.0 * chance;
  LearningProgress& s = progress_;
  const double earlier = s.best_accuracy;
  const int64_t earlier_iteration = s.best_iteration;
  if (best > s.best_accuracy || s.best_iteration < 0) {
    s.best_accuracy = best;
    s.best_iteration = p.iteration;
  }
  if (s.verdict != LearningProgress::kLearning) return false;
  if (best <= at_chance && earlier_iteration >= 0 && earlier > above) {
    s.verdict = LearningProgress::kFellToChance;
    s.earlier_accuracy = earlier;
    s.earlier_iteration = earlier_iteration;
  } else if (p.iteration >= kPatienceIterations && s.best_accuracy <= above) {
    s.verdict = LearningProgress::kNeverAboveChance;
  } else {
    return false;
  }
  s.verdict_iteration = p.iteration;
  s.verdict_accuracy = best;
  return true;
}

std::optional<std::string> LearningWatch::warning() const {
  const LearningProgress& s = progress_;
  const double chance = classes_ > 0 ? 1.0 / classes_ : 0.0;
  switch (s.verdict) {
    case LearningProgress::kFellToChance:
      return fmt::format(
          "every agent is at chance accuracy at iteration {} (best {:.3f}; chance {:.3f}) after "
          "reaching {:.3f} at iteration {}: the run stopped learning; {}",
          s.verdict_iteration, s.verdict_accuracy, chance, s.earlier_accuracy,
          s.earlier_iteration, suspect_);
    case LearningProgress::kNeverAboveChance:
      return fmt::format(
          "no agent rose above chance accuracy in {} iterations (best {:.3f}; chance {:.3f}): the "
          "run learns nothing; {}",
          s.verdict_iteration, s.best_accuracy, chance, suspect_);
    default: return std::nullopt;
  }
}

}  // namespace dlsim
