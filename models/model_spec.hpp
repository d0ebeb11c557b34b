// Plain descriptions of the architectures a Model can be built from: an MLP, a CNN given as an
// explicit layer list, or a quadratic objective. The scenario loader maps JSON onto these; shapes
// are checked against the input when the model is built (models::Model::build).
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

namespace dlsim::models {

/// What the network sees: samples of channels x height x width features, labels < classes.
struct InputShape {
  uint32_t channels = 1;
  uint32_t height = 28;
  uint32_t width = 28;
  uint32_t classes = 10;
};

enum class Activation { kRelu, kTanh };

/// Input -> [dropout(dropout[0])] -> (dense(h) -> activation -> [dropout(dropout[1])]) per hidden
/// size h -> dense(classes). dropout has 0, 1 or 2 rates in [0, 1); a rate of 0 adds no layer.
struct MlpSpec {
  std::vector<uint32_t> hidden;
  Activation activation = Activation::kRelu;
  std::vector<double> dropout;
};

enum class LayerKind { kConv, kMaxPool, kDense, kRelu, kTanh, kDropout, kFlatten };

/// One layer of a CNN. conv: units = filters, kernel, stride, padding; max_pool: kernel, stride;
/// dense: units (any input shape is read as its flat C*H*W features); dropout: rate.
struct LayerSpec {
  LayerKind kind = LayerKind::kRelu;
  uint32_t units = 0;
  uint32_t kernel = 0;
  uint32_t stride = 1;
  uint32_t padding = 0;
  double rate = 0.0;

  static LayerSpec conv(uint32_t filters, uint32_t kernel, uint32_t stride = 1,
                        uint32_t padding = 0) {
    return {LayerKind::kConv, filters, kernel, stride, padding, 0.0};
  }
  /// stride 0 means stride = kernel (non-overlapping windows).
  static LayerSpec max_pool(uint32_t kernel, uint32_t stride = 0) {
    return {LayerKind::kMaxPool, 0, kernel, stride == 0 ? kernel : stride, 0, 0.0};
  }
  static LayerSpec dense(uint32_t units) { return {LayerKind::kDense, units, 0, 1, 0, 0.0}; }
  static LayerSpec relu() { return {LayerKind::kRelu, 0, 0, 1, 0, 0.0}; }
  static LayerSpec tanh() { return {LayerKind::kTanh, 0, 0, 1, 0, 0.0}; }
  static LayerSpec dropout(double rate) { return {LayerKind::kDropout, 0, 0, 1, 0, rate}; }
  static LayerSpec flatten() { return {LayerKind::kFlatten, 0, 0, 1, 0, 0.0}; }
};

/// An explicit layer list; the last layer must produce exactly `classes` features.
struct CnnSpec {
  std::vector<LayerSpec> layers;
};

/// Agent i minimises f_i(x) = 0.5 * ||x - c_i||^2 over x in R^dim, with c_i ~ N(0, I) drawn at
/// build time; its stochastic gradient is x - c_i + noise_sigma * N(0, I). Needs no data.
struct QuadraticSpec {
  uint32_t dim = 10;
  double noise_sigma = 0.0;
};

/// How weight layers draw their initial parameters (scenarios/README.md, `model.init`):
/// kHeNormal: weights followed by a ReLU ~ N(0, 2/fan_in), the others (tanh, the output layer)
///   ~ N(0, 2/(fan_in + fan_out)), biases 0 (dlsim's rule before the key existed);
/// kGlorotNormal: every weight layer ~ N(0, 2/(fan_in + fan_out)), biases 0;
/// kPytorch: torch.nn.Linear / Conv2d's defaults: weights ~ U(+-1/sqrt(fan_in)) (kaiming_uniform
///   with a = sqrt(5)), biases ~ U(+-1/sqrt(fan_in)); conv fan_in = in_channels * kh * kw.
/// Quadratic models ignore it.
enum class InitScheme { kHeNormal, kGlorotNormal, kPytorch };

struct ModelSpec {
  std::variant<MlpSpec, CnnSpec, QuadraticSpec> arch;
  InitScheme init = InitScheme::kHeNormal;
};

/// conv 5x5x32 pad 2, relu, maxpool 2, conv 5x5x64 pad 2, relu, maxpool 2, flatten, dense 512,
/// relu, dense classes: the LeNet-style network for 28x28 inputs.
CnnSpec lenet_spec(uint32_t classes = 10);

/// The Elastic Gossip MLP: 1024-1024-1024 ReLU, dropout 0.2 on the input and 0.5 after each
/// hidden layer (784-1024-1024-1024-10 on MNIST).
MlpSpec elastic_gossip_mlp_spec();

}  // namespace dlsim::models
