#include "models/layers/network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string>

#include "sim/core/error.hpp"

namespace dlsim::models::layers {

Network::Network(Shape input, std::vector<std::unique_ptr<Layer>> layers, std::vector<Init> inits)
    : input_(input), layers_(std::move(layers)), inits_(std::move(inits)) {
  DLSIM_CHECK(!layers_.empty() && inits_.size() == layers_.size(), "bad network description");
  offsets_.push_back(0);
  first_param_layer_ = layers_.size();
  for (size_t i = 0; i < layers_.size(); ++i) {
    offsets_.push_back(offsets_.back() + layers_[i]->parameter_count());
    if (layers_[i]->parameter_count() > 0) first_param_layer_ = std::min(first_param_layer_, i);
  }
  outputs_.resize(layers_.size());
  out_ptr_.resize(layers_.size(), nullptr);
}

Index Network::output_size() const { return layers_.back()->output_shape().size(); }

std::string Network::describe() const {
  std::string text = fmt::format("input {}", to_string(input_));
  for (const auto& layer : layers_)
    fmt::format_to(std::back_inserter(text), "\n{}", layer->describe());
  return text;
}

void Network::initialize(float* p, RandomStream& rng) const {
  for (size_t i = 0; i < layers_.size(); ++i)
    layers_[i]->initialize(p + offsets_[i], inits_[i], rng);
}

void Network::reserve(Index max_batch, Phase phase) {
  if (max_batch > capacity_) {
    capacity_ = max_batch;
    for (size_t i = 0; i < layers_.size(); ++i) {
      // Flatten never computes; dropout computes in training unless its rate is zero.
      if (!layers_[i]->is_identity(Phase::kTrain))
        outputs_[i].resize(layers_[i]->output_shape().size(), max_batch);
      layers_[i]->reserve(max_batch, Use::kEvaluation);
    }
  }
  if (phase != Phase::kTrain || max_batch <= train_capacity_) return;
  train_capacity_ = max_batch;
  // The gradient buffers hold d loss / d logits (even in a network without parameters), d loss /
  // d y for the layers backward runs through, and their dx.
  Index widest = output_size();
  for (size_t i = 0; i < layers_.size(); ++i) {
    const bool input_gradient = i > first_param_layer_;
    layers_[i]->reserve(max_batch,
                        input_gradient ? Use::kTrainingWithInputGradient : Use::kTraining);
    if (i < first_param_layer_) continue;  // before it, backward never runs
    widest = std::max(widest, layers_[i]->output_shape().size());
    if (input_gradient) widest = std::max(widest, layers_[i]->input_shape().size());
  }
  for (auto& g : grad_) g.resize(widest, max_batch);
}

ConstAct Network::forward(const float* p, ConstAct x, Phase phase, RandomStream* rng,
                          std::optional<float> background) {
  DLSIM_CHECK(x.rows() == input_.size() && x.cols() > 0 && x.cols() <= capacity_,
              "forward on a ({}, {}) input; the network takes ({}, <= {})", x.rows(), x.cols(),
              input_.size(), capacity_);
  n_ = x.cols();
  const float* cur = x.data();
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer& layer = *layers_[i];
    if (!layer.is_identity(phase)) {
      Act y(outputs_[i].data(), layer.output_shape().size(), n_);
      layer.set_input_background(cur == x.data() ? background : std::nullopt);
      layer.forward(p + offsets_[i], ConstAct(cur, layer.input_shape().size(), n_), y, phase, rng);
      cur = y.data();
    }
    out_ptr_[i] = cur;
  }
  return ConstAct(cur, output_size(), n_);
}

Act Network::output_gradient() { return Act(grad_[0].data(), output_size(), n_); }

void Network::backward(const float* p, ConstAct x, GradientSink& sink) {
  DLSIM_CHECK(n_ <= train_capacity_, "backward on {} samples, reserved for training on {}", n_,
              train_capacity_);
  int cur = 0;  // grad_[cur] holds d loss / d (output of layer i)
  for (size_t i = layers_.size(); i-- > first_param_layer_;) {
    Layer& layer = *layers_[i];
    if (layer.is_identity(Phase::kTrain)) continue;
    const Index in = layer.input_shape().size();
    const Index out = layer.output_shape().size();
    const ConstAct xi(i == 0 ? x.data() : out_ptr_[i - 1], in, n_);
    const ConstAct yi(out_ptr_[i], out, n_);
    const ConstAct dy(grad_[cur].data(), out, n_);
    Act dx(grad_[1 - cur].data(), in, n_);
    const bool need_dx = i > first_param_layer_;
    const Index count = layer.parameter_count();
    const GradientOut g = count > 0 ? sink.target(offsets_[i], count) : GradientOut{};
    layer.backward(p + offsets_[i], xi, yi, dy, need_dx ? &dx : nullptr, g);
    if (count > 0) sink.done(offsets_[i], count);
    if (need_dx) cur = 1 - cur;
  }
}

double Network::flops_per_sample(Phase phase) const {
  double flops = 0.0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (!layers_[i]->is_identity(phase)) flops += layers_[i]->forward_flops();
    if (phase == Phase::kTrain && i >= first_param_layer_ && !layers_[i]->is_identity(phase))
      flops += layers_[i]->backward_flops(i > first_param_layer_);
  }
  return flops;
}

size_t Network::workspace_bytes() const {
  size_t floats = static_cast<size_t>(grad_[0].size() + grad_[1].size());
  for (const auto& o : outputs_) floats += static_cast<size_t>(o.size());
  size_t bytes = floats * sizeof(float);
  for (const auto& layer : layers_) bytes += layer->scratch_bytes();
  return bytes;
}

Index Network::activation_floats_per_sample() const {
  Index floats = 0;
  for (const auto& layer : layers_) floats += layer->output_shape().size();
  return floats;
}

// Named as PyTorch's Sequential modules would be by kind: the n-th layer of a kind ("dense",
// "conv": the first word of its description) is kind + n, its tensors .weight and .bias.
std::vector<TensorRange> Network::parameter_tensors() const {
  std::vector<TensorRange> tensors;
  std::map<std::string, int> seen;  // layers of each kind so far
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Index count = layers_[i]->parameter_count();
    const Index bias = layers_[i]->bias_count();
    if (count == 0) continue;
    const std::string description = layers_[i]->describe();
    const std::string kind = description.substr(0, description.find(' '));
    const std::string layer = kind + std::to_string(++seen[kind]);
    if (count > bias) tensors.push_back({offsets_[i], count - bias, layer + ".weight"});
    if (bias > 0) tensors.push_back({offsets_[i] + count - bias, bias, layer + ".bias"});
  }
  return tensors;
}

Index Network::max_layer_parameters() const {
  Index most = 0;
  for (const auto& layer : layers_) most = std::max(most, layer->parameter_count());
  return most;
}

}  // namespace dlsim::models::layers
