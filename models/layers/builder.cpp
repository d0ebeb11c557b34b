#include "models/layers/builder.hpp"

#include <fmt/format.h>

#include "models/layers/conv2d.hpp"
#include "models/layers/dense.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/flatten.hpp"
#include "models/layers/max_pool2d.hpp"
#include "models/layers/relu.hpp"
#include "models/layers/tanh.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models::layers {
namespace {

using Layers = std::vector<std::unique_ptr<Layer>>;

Shape input_shape(const InputShape& in) {
  if (in.channels == 0 || in.height == 0 || in.width == 0 || in.classes < 2)
    throw InputError(
        fmt::format("input {}x{}x{} with {} classes: every side must be at least 1 "
                    "and there must be at least 2 classes",
                    in.channels, in.height, in.width, in.classes));
  return Shape{in.channels, in.height, in.width};
}

void check_rate(double rate, const std::string& path) {
  if (!(rate >= 0.0 && rate < 1.0))
    throw InputError(fmt::format("{}: a dropout rate must be in [0, 1), got {}", path, rate));
}

// Weight layers followed (before the next weight layer) by a ReLU get He initialisation; by a tanh
// or by nothing (the linear output layer) Glorot.
Init init_for(const std::vector<LayerSpec>& spec, size_t i) {
  for (size_t j = i + 1; j < spec.size(); ++j) {
    const LayerKind k = spec[j].kind;
    if (k == LayerKind::kRelu) return Init::kHeNormal;
    if (k == LayerKind::kTanh || k == LayerKind::kConv || k == LayerKind::kDense) break;
  }
  return Init::kGlorotNormal;
}

// The rule of one weight layer: kHeNormal keeps the per-layer choice (He before a ReLU, else
// Glorot), the other schemes use one rule for every layer.
Init scheme_init(InitScheme scheme, Init per_layer) {
  switch (scheme) {
    case InitScheme::kHeNormal: return per_layer;
    case InitScheme::kGlorotNormal: return Init::kGlorotNormal;
    case InitScheme::kPytorch: return Init::kPytorchUniform;
  }
  return per_layer;
}

void check_output(Index out, const InputShape& in, const char* path) {
  if (out != static_cast<Index>(in.classes))
    throw InputError(fmt::format("{}: the last layer gives {} outputs but the data has {} classes",
                                 path, out, in.classes));
}

// The output shape of layer spec l on input `in`, or an InputError naming `path`.
Shape checked_shape(const LayerSpec& l, Shape in, const std::string& path) {
  switch (l.kind) {
    case LayerKind::kConv: {
      if (l.units == 0 || l.kernel == 0 || l.stride == 0)
        throw InputError(
            fmt::format("{}: conv needs filters, kernel and stride of at least 1", path));
      const Index k = l.kernel, p = l.padding;
      if (k > in.height + 2 * p || k > in.width + 2 * p)
        throw InputError(
            fmt::format("{}: conv kernel {} with padding {} does not fit the {} "
                        "input",
                        path, k, p, to_string(in)));
      return Shape{l.units, Conv2D::output_size(in.height, k, l.stride, p),
                   Conv2D::output_size(in.width, k, l.stride, p)};
    }
    case LayerKind::kMaxPool:
      if (l.kernel == 0 || l.stride == 0)
        throw InputError(
            fmt::format("{}: max_pool needs a kernel and a stride of at least 1", path));
      if (l.kernel > in.height || l.kernel > in.width)
        throw InputError(fmt::format("{}: max_pool kernel {} does not fit the {} input", path,
                                     l.kernel, to_string(in)));
      return Shape{in.channels, (in.height - l.kernel) / l.stride + 1,
                   (in.width - l.kernel) / l.stride + 1};
    case LayerKind::kDense:
      if (l.units == 0) throw InputError(fmt::format("{}: dense needs at least 1 unit", path));
      return Shape{l.units, 1, 1};
    case LayerKind::kDropout:
      check_rate(l.rate, path);
      return in;
    case LayerKind::kFlatten:
      return Shape{in.size(), 1, 1};
    case LayerKind::kRelu:
    case LayerKind::kTanh:
      return in;
  }
  DLSIM_CHECK(false, "unknown layer kind {}", static_cast<int>(l.kind));
  return in;
}

// Builds spec[i] on `in`; a conv absorbs a following relu and 2x2 stride-2 max-pool (`used` says
// how many spec entries the layer took).
std::unique_ptr<Layer> make_layer(const std::vector<LayerSpec>& spec, size_t i, Shape in,
                                  size_t& used) {
  const LayerSpec& l = spec[i];
  used = 1;
  switch (l.kind) {
    case LayerKind::kConv: {
      FusedRelu relu = FusedRelu::kNo;
      FusedPool pool = FusedPool::kNo;
      if (i + used < spec.size() && spec[i + used].kind == LayerKind::kRelu) {
        relu = FusedRelu::kYes;
        ++used;
      }
      if (i + used < spec.size() && spec[i + used].kind == LayerKind::kMaxPool &&
          spec[i + used].kernel == 2 && spec[i + used].stride == 2) {
        pool = FusedPool::kMax2x2;
        ++used;
      }
      return std::make_unique<Conv2D>(in, l.units, l.kernel, l.stride, l.padding, relu, pool);
    }
    case LayerKind::kMaxPool:
      return std::make_unique<MaxPool2D>(in, l.kernel, l.stride);
    case LayerKind::kDense:
      return std::make_unique<Dense>(in, l.units);
    case LayerKind::kRelu:
      return std::make_unique<Relu>(in);
    case LayerKind::kTanh:
      return std::make_unique<Tanh>(in);
    case LayerKind::kDropout:
      return std::make_unique<Dropout>(in, l.rate);
    case LayerKind::kFlatten:
      return std::make_unique<Flatten>(in);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<Network> build_network(const MlpSpec& spec, const InputShape& in,
                                       InitScheme scheme) {
  const Shape input = input_shape(in);
  if (spec.dropout.size() > 2)
    throw InputError(fmt::format("/dropout: expected at most 2 rates (input, hidden), got {}",
                                 spec.dropout.size()));
  for (size_t i = 0; i < spec.dropout.size(); ++i)
    check_rate(spec.dropout[i], fmt::format("/dropout/{}", i));
  const double input_rate = spec.dropout.empty() ? 0.0 : spec.dropout[0];
  const double hidden_rate = spec.dropout.size() < 2 ? 0.0 : spec.dropout[1];
  const Init hidden_init =
      spec.activation == Activation::kRelu ? Init::kHeNormal : Init::kGlorotNormal;
  Layers layers;
  std::vector<Init> inits;
  Shape cur = input;
  auto add = [&](std::unique_ptr<Layer> l, Init init) {
    cur = l->output_shape();
    layers.push_back(std::move(l));
    inits.push_back(scheme_init(scheme, init));
  };
  if (input_rate > 0.0) add(std::make_unique<Dropout>(cur, input_rate), Init::kGlorotNormal);
  for (size_t i = 0; i < spec.hidden.size(); ++i) {
    if (spec.hidden[i] == 0)
      throw InputError(fmt::format("/hidden/{}: a hidden layer needs at least 1 unit", i));
    add(std::make_unique<Dense>(cur, spec.hidden[i]), hidden_init);
    if (spec.activation == Activation::kRelu) {
      add(std::make_unique<Relu>(cur), hidden_init);
    } else {
      add(std::make_unique<Tanh>(cur), hidden_init);
    }
    if (hidden_rate > 0.0) add(std::make_unique<Dropout>(cur, hidden_rate), hidden_init);
  }
  add(std::make_unique<Dense>(cur, in.classes), Init::kGlorotNormal);
  return std::make_unique<Network>(input, std::move(layers), std::move(inits));
}

std::unique_ptr<Network> build_network(const CnnSpec& spec, const InputShape& in,
                                       InitScheme scheme) {
  const Shape input = input_shape(in);
  if (spec.layers.empty()) throw InputError("/layers: the network has no layers");
  Shape cur = input;  // first every shape is checked on the spec as written
  for (size_t i = 0; i < spec.layers.size(); ++i)
    cur = checked_shape(spec.layers[i], cur, fmt::format("/layers/{}", i));
  check_output(cur.size(), in, "/layers");
  Layers layers;
  std::vector<Init> inits;
  cur = input;
  for (size_t i = 0, used = 0; i < spec.layers.size(); i += used) {
    layers.push_back(make_layer(spec.layers, i, cur, used));
    inits.push_back(scheme_init(scheme, init_for(spec.layers, i)));
    cur = layers.back()->output_shape();
  }
  return std::make_unique<Network>(input, std::move(layers), std::move(inits));
}

}  // namespace dlsim::models::layers
