// A sequential stack of layers with its activation workspace: the engine behind models::Model.
// Buffers are sized by reserve() for a batch capacity and reused; forward and backward allocate
// nothing. Identity layers (flatten, dropout in evaluation) pass their input buffer on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/layers/layer.hpp"
#include "models/parameters.hpp"

namespace dlsim::models::layers {

using models::TensorRange;

/// Where backward sends each layer's parameter gradient, layer by layer from the output down.
class GradientSink {
 public:
  virtual ~GradientSink() = default;
  /// The destination of the gradient of parameters [offset, offset + count).
  virtual GradientOut target(Index offset, Index count) = 0;
  /// Called once that gradient is complete, before any earlier layer runs its backward.
  virtual void done(Index /*offset*/, Index /*count*/) {}
};

class Network {
 public:
  /// inits[i] is the initialisation rule of layers[i] (ignored for layers without parameters).
  Network(Shape input, std::vector<std::unique_ptr<Layer>> layers, std::vector<Init> inits);

  Index parameter_count() const { return offsets_.back(); }
  Index input_size() const { return input_.size(); }
  Index output_size() const;
  /// One line per layer; hashed into the architecture hash.
  std::string describe() const;
  /// Draws every layer's parameters into p[0, parameter_count()) in layer order.
  void initialize(float* p, RandomStream& rng) const;
  /// Sizes the buffers for forward passes (kEval), or also backward passes (kTrain), of batches
  /// of up to max_batch samples; only grows. Evaluation batches are often larger than training
  /// ones, and size no backward buffer.
  void reserve(Index max_batch, Phase phase);
  Index capacity() const { return capacity_; }
  /// x: (input, n) with n <= capacity() -> logits (output, n), valid until the next call.
  /// background: the value most of x's entries take, if any (Layer::set_input_background).
  ConstAct forward(const float* p, ConstAct x, Phase phase, RandomStream* rng,
                   std::optional<float> background = std::nullopt);
  /// The buffer the loss writes d loss / d logits into: (output, n) for the last forward's n.
  Act output_gradient();
  /// Backpropagates the output gradient after forward(p, x, kTrain, ...) with the same p and x.
  void backward(const float* p, ConstAct x, GradientSink& sink);
  /// FLOPs per sample of forward (kEval) or forward + backward (kTrain).
  double flops_per_sample(Phase phase) const;
  /// Bytes of activation buffers and layer scratch currently held.
  size_t workspace_bytes() const;
  /// Floats of every layer's output for one sample: forward buffers hold this many per sample of
  /// capacity, whatever the layers' scratch adds.
  Index activation_floats_per_sample() const;
  Index max_layer_parameters() const;
  /// Each layer's weight tensor, then its bias, in memory order (layers without parameters add
  /// none): together they tile [0, parameter_count()).
  std::vector<TensorRange> parameter_tensors() const;

 private:
  Shape input_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Init> inits_;
  std::vector<Index> offsets_;            // layer i's parameters: [offsets_[i], offsets_[i+1])
  std::vector<Eigen::MatrixXf> outputs_;  // (out_i, capacity) for layers that compute
  std::vector<const float*> out_ptr_;     // where layer i's output of the last forward lives
  Eigen::MatrixXf grad_[2];               // ping-pong (widest backward width, train capacity)
  size_t first_param_layer_ = 0;
  Index capacity_ = 0;        // of forward passes
  Index train_capacity_ = 0;  // of backward passes
  Index n_ = 0;  // batch size of the last forward
};

}  // namespace dlsim::models::layers
