// What an algorithm needs of an agent's local training: a stochastic gradient oracle and an
// optimizer step, both on one flat parameter vector. The world implements it with a model, a data
// shard and an optimizer (sim/scenario); tests implement it with a fixed quadratic.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/parameters.hpp"

namespace dlsim {

class StateArchive;

/// All of an agent's weights and biases in one contiguous buffer.
using ParamVector = Eigen::VectorXf;
/// An immutable copy of a parameter vector, shared by every receiver of one broadcast.
using Snapshot = std::shared_ptr<const ParamVector>;
/// One tensor of the parameter vector (a layer's weights or its bias).
using models::TensorRange;

class Learner {
 public:
  virtual ~Learner() = default;
  /// g <- a stochastic gradient of the local loss at x (the next mini-batch); returns the mean
  /// loss of that batch. g has x's size. Allocates nothing once warmed up.
  virtual float gradient(const ParamVector& x, ParamVector& g) = 0;
  /// x <- x - step, where step is the optimizer's (learning rate at k, momentum, weight decay)
  /// for gradient g. Updates the optimizer's own state.
  virtual void apply_step(ParamVector& x, const ParamVector& g, int64_t k) = 0;
  /// x <- x - step * g(x), g the stochastic gradient gradient() would return (same mini-batch,
  /// same draws); returns that batch's mean loss. The default computes g into `scratch` (x's
  /// size) and subtracts; a learner may instead fuse the update into the gradient computation,
  /// leaving scratch untouched (then the float rounding of the update differs).
  virtual float gradient_step(ParamVector& x, float step, ParamVector& scratch) {
    const float loss = gradient(x, scratch);
    x -= step * scratch;
    return loss;
  }
  /// What changes as the learner trains (optimizer state, position in the data, streams), for
  /// checkpoints, listed once for saving and loading: a loaded learner continues exactly where
  /// the saved one was.
  virtual void archive(StateArchive& ar) = 0;
  /// The tensors that tile x, in memory order, for per-tensor triggers; empty: x is one tensor.
  virtual std::vector<TensorRange> parameter_tensors() const { return {}; }
};

}  // namespace dlsim
