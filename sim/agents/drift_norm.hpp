// A vector's norm in a trigger's kind (TriggerSpec::norm: docs/algorithms.md, "Triggers"), for
// the drifts the algorithms hand their triggers: the sum of squares in float, its square root in
// double.
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "sim/agents/trigger.hpp"

namespace dlsim {

/// ||v|| in `norm`; v: any Eigen vector expression of floats.
template <class Vector>
double norm_of(const Vector& v, DriftNorm norm) {
  switch (norm) {
    case DriftNorm::kL2:
      return std::sqrt(static_cast<double>(v.squaredNorm()));
    case DriftNorm::kL1:
      return static_cast<double>(v.template lpNorm<1>());
    case DriftNorm::kLinf:
      return static_cast<double>(v.template lpNorm<Eigen::Infinity>());
  }
  return 0.0;
}

}  // namespace dlsim
