// What a fused SGD step (models::Model::sgd_step) tells its caller while it runs, so that the
// caller can finish its own update of each part of the parameters while that part is in cache.
#pragma once

#include <Eigen/Core>

namespace dlsim::models {

class StepProgress {
 public:
  /// params[begin, end) hold their new values: the step reads and writes them no more. The
  /// ranges are disjoint and together cover every parameter, in no fixed order (layers finish
  /// from the output back, each front to back).
  virtual void finished(Eigen::Index begin, Eigen::Index end) = 0;

 protected:
  ~StepProgress() = default;
};

}  // namespace dlsim::models
