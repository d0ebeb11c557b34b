// The layer interface of the sequential networks behind models::Model. Layers own no parameters:
// every call gets a pointer to the layer's slice of the flat parameter buffer and keeps nothing.
// They may own scratch (im2col columns, pooling argmax, dropout masks), sized once by reserve().
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>

#include "models/phase.hpp"
#include "sim/core/random.hpp"

namespace dlsim::models::layers {

using Eigen::Index;
/// Activations: (features, n) column-major, one sample per column, contiguous. CNN features are
/// (C*H*W) in channel-major order: feature c*H*W + h*W + w (PyTorch's NCHW flattening).
using Act = Eigen::Map<Eigen::MatrixXf>;
using ConstAct = Eigen::Map<const Eigen::MatrixXf>;

/// The per-sample shape of an activation. Dense activations are (size, 1, 1).
struct Shape {
  Index channels = 1;
  Index height = 1;
  Index width = 1;
  Index size() const { return channels * height * width; }
};

/// How a layer writes its parameter gradient.
enum class Accumulate { kNo, kYes };

/// Where a layer's parameter gradient goes: data[0, parameter_count()) receives
/// scale * dL/dp (kNo) or has it added (kYes). data may alias the parameters themselves (a fused
/// SGD step): layers finish every use of their parameters before writing into data.
struct GradientOut {
  float* data = nullptr;
  float scale = 1.0f;
  Accumulate mode = Accumulate::kNo;
};

/// What a layer's scratch must serve: evaluation (forward passes only), or training (training
/// forward passes, and backward passes that compute the parameter gradient and, for every layer
/// after the network's first with parameters, the input gradient dx).
enum class Use { kEvaluation, kTraining, kTrainingWithInputGradient };

/// The rule that draws a weight layer's initial weights and biases (models/layers/init.hpp):
/// the normal ones leave biases at zero, kPytorchUniform draws them too.
enum class Init { kHeNormal, kGlorotNormal, kPytorchUniform };

class Layer {
 public:
  explicit Layer(Shape in, Shape out) : in_(in), out_(out) {}
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  const Shape& input_shape() const { return in_; }
  const Shape& output_shape() const { return out_; }
  /// One line naming the layer and its shapes; part of the architecture hash.
  virtual std::string describe() const = 0;
  virtual Index parameter_count() const { return 0; }
  /// The trailing part of the parameters that is the bias (the rest is the weight tensor).
  virtual Index bias_count() const { return 0; }
  /// Draws the initial parameters into p[0, parameter_count()).
  virtual void initialize(float* /*p*/, Init /*init*/, RandomStream& /*rng*/) const {}
  /// Sizes the layer's scratch for batches of up to max_batch samples in the given use (the only
  /// allocation; only grows). Scratch that use does not need stays unallocated: with huge pages,
  /// memory allocated and never written would still be resident.
  virtual void reserve(Index /*max_batch*/, Use /*use*/) {}
  /// Bytes of scratch the layer holds (besides the network's activation buffers).
  virtual size_t scratch_bytes() const { return 0; }
  /// True when forward is y = x and backward dx = dy: the network passes the buffer through.
  virtual bool is_identity(Phase /*phase*/) const { return false; }
  /// Before each forward: the value most of x's entries take when x is the network's input (the
  /// normalised zero pixel), nullopt otherwise. A layer may use it to skip work on those entries.
  virtual void set_input_background(std::optional<float> /*background*/) {}

  /// x: (in.size(), n) -> y: (out.size(), n). rng (train only) draws dropout masks.
  virtual void forward(const float* p, ConstAct x, Act y, Phase phase, RandomStream* rng) = 0;
  /// dy: (out.size(), n), the gradient of the loss w.r.t. y; x, y as in the last forward.
  /// Writes dx: (in.size(), n) when dx is not null, and the parameter gradient into grad.
  virtual void backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                        const GradientOut& grad) = 0;

  /// FLOPs per sample (multiply-add = 2) of forward, and of backward with or without dx.
  virtual double forward_flops() const = 0;
  virtual double backward_flops(bool input_gradient) const = 0;

 private:
  Shape in_;
  Shape out_;
};

/// "CxHxW" for descriptions and messages.
std::string to_string(const Shape& s);

}  // namespace dlsim::models::layers
