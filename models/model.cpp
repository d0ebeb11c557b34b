#include "models/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "models/layers/builder.hpp"
#include "models/layers/network.hpp"
#include "models/loss.hpp"
#include "sim/core/error.hpp"

namespace dlsim::models {
namespace {

using layers::Accumulate;
using layers::GradientOut;
using layers::GradientSink;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// compute_gradient: every layer writes its gradient into the caller's vector.
struct FullSink final : GradientSink {
  float* grads;
  explicit FullSink(float* g) : grads(g) {}
  GradientOut target(Eigen::Index offset, Eigen::Index) override {
    return {grads + offset, 1.0f, Accumulate::kNo};
  }
};

// Plain SGD: x += (-lr) * g accumulated by the gradient product itself, so the gradient is never
// stored (the layers finish using x before they write into it).
struct SgdSink final : GradientSink {
  float* params;
  float lr;
  SgdSink(float* p, float rate) : params(p), lr(rate) {}
  GradientOut target(Eigen::Index offset, Eigen::Index) override {
    return {params + offset, -lr, Accumulate::kYes};
  }
};

}  // namespace

Model::Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::build(const ModelSpec& spec, const InputShape& input, RandomStream& rng) {
  Model m;
  if (const auto* q = std::get_if<QuadraticSpec>(&spec.arch)) {
    if (q->dim == 0) throw InputError("/dim: a quadratic model needs at least 1 dimension");
    if (!(q->noise_sigma >= 0.0 && std::isfinite(q->noise_sigma)))
      throw InputError(fmt::format("/noise_sigma: must be at least 0, got {}", q->noise_sigma));
    m.kind_ = ModelKind::kQuadratic;
    m.parameter_count_ = q->dim;
    m.noise_sigma_ = q->noise_sigma;
    m.target_.resize(q->dim);
    for (Eigen::Index i = 0; i < m.target_.size(); ++i)
      m.target_[i] = static_cast<float>(rng.normal());
    m.description_ = fmt::format("quadratic dim {}", q->dim);
    return m;
  }
  if (const auto* mlp = std::get_if<MlpSpec>(&spec.arch)) {
    m.kind_ = ModelKind::kMlp;
    m.network_ = layers::build_network(*mlp, input, spec.init);
  } else {
    m.kind_ = ModelKind::kCnn;
    m.network_ = layers::build_network(std::get<CnnSpec>(spec.arch), input, spec.init);
  }
  m.parameter_count_ = m.network_->parameter_count();
  m.classes_ = input.classes;
  m.description_ = m.network_->describe();
  m.class_correct_.resize(input.classes);
  m.class_total_.resize(input.classes);
  return m;
}

uint64_t Model::architecture_hash() const { return hash_name(description_); }

std::vector<TensorRange> Model::parameter_tensors() const {
  if (network_ == nullptr) return {TensorRange{0, parameter_count_, "x"}};
  return network_->parameter_tensors();
}

double Model::flops_per_sample(Phase phase) const {
  if (network_ == nullptr) return 3.0 * static_cast<double>(parameter_count_);
  return network_->flops_per_sample(phase);
}

void Model::initialize(Eigen::Ref<Eigen::VectorXf> params, RandomStream& rng) const {
  DLSIM_CHECK(params.size() == parameter_count_, "{} parameters for a model of {}", params.size(),
              parameter_count_);
  if (network_ == nullptr) {
    for (Eigen::Index i = 0; i < params.size(); ++i) params[i] = static_cast<float>(rng.normal());
    return;
  }
  network_->initialize(params.data(), rng);
}

void Model::reserve(Eigen::Index max_batch) {
  if (network_ != nullptr) network_->reserve(max_batch, Phase::kTrain);
}

void Model::reserve_evaluation(Eigen::Index max_batch) {
  if (network_ != nullptr) network_->reserve(max_batch, Phase::kEval);
}

Eigen::Index Model::activation_floats_per_sample() const {
  return network_ == nullptr ? 0 : network_->activation_floats_per_sample();
}

size_t Model::workspace_bytes() const {
  return network_ == nullptr ? 0 : network_->workspace_bytes();
}

void Model::check_input(Eigen::Index rows, Eigen::Index n) const {
  DLSIM_CHECK(rows == network_->input_size() && n > 0,
              "a batch of {} samples of {} features for a model taking {}", n, rows,
              network_->input_size());
}

float Model::compute_gradient(Eigen::Ref<const Eigen::VectorXf> params,
                              Eigen::Ref<Eigen::VectorXf> grads, const Batch& batch,
                              RandomStream& rng) {
  DLSIM_CHECK(params.size() == parameter_count_ && grads.size() == parameter_count_,
              "{} parameters and {} gradients for a model of {}", params.size(), grads.size(),
              parameter_count_);
  if (network_ == nullptr) return quadratic_gradient(params, grads.data(), rng);
  const double loss = forward_loss(params.data(), batch, rng);
  FullSink sink(grads.data());
  network_->backward(params.data(), batch.features(), sink);
  return static_cast<float>(loss / static_cast<double>(batch.size()));
}

float Model::sgd_step(Eigen::Ref<Eigen::VectorXf> params, float step, const Batch& batch,
                      RandomStream& rng) {
  DLSIM_CHECK(params.size() == parameter_count_, "{} parameters for a model of {}", params.size(),
              parameter_count_);
  if (network_ == nullptr) return quadratic_sgd_step(params, step, rng);
  const double loss = forward_loss(params.data(), batch, rng);
  SgdSink sink(params.data(), step);
  network_->backward(params.data(), batch.features(), sink);
  return static_cast<float>(loss / static_cast<double>(batch.size()));
}

// The training forward pass and the summed loss; leaves d loss / d logits for backward.
double Model::forward_loss(const float* params, const Batch& batch, RandomStream& rng) {
  check_input(batch.dim(), batch.size());
  network_->reserve(batch.size(), Phase::kTrain);
  const auto logits =
      network_->forward(params, batch.features(), Phase::kTrain, &rng, batch.background());
  auto dlogits = network_->output_gradient();
  return softmax_cross_entropy(logits, batch.labels(), &dlogits);
}

float Model::quadratic_sgd_step(Eigen::Ref<Eigen::VectorXf> x, float step, RandomStream& rng) {
  const float loss = 0.5f * (x - target_).squaredNorm();
  if (noise_sigma_ == 0.0) {
    x -= step * (x - target_);
    return loss;
  }
  const auto sigma = static_cast<float>(noise_sigma_);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x[i] -= step * (x[i] - target_[i] + sigma * static_cast<float>(rng.normal()));
  return loss;
}

float Model::quadratic_gradient(Eigen::Ref<const Eigen::VectorXf> x, float* grads,
                                RandomStream& rng) {
  Eigen::Map<Eigen::VectorXf> g(grads, x.size());
  g = x - target_;  // vectorised; the noise, when any, is drawn in coordinate order
  const float loss = 0.5f * g.squaredNorm();
  if (noise_sigma_ > 0.0) {
    const auto sigma = static_cast<float>(noise_sigma_);
    for (Eigen::Index i = 0; i < x.size(); ++i) g[i] += sigma * static_cast<float>(rng.normal());
  }
  return loss;
}

void Model::evaluate(Eigen::Ref<const Eigen::VectorXf> params, const Dataset& data,
                     size_t max_samples, size_t batch, EvalResult& out) {
  DLSIM_CHECK(params.size() == parameter_count_, "{} parameters for a model of {}", params.size(),
              parameter_count_);
  out.optimum_distance = kNaN;
  if (network_ == nullptr) return evaluate_quadratic(params, out);
  const size_t count = std::min(max_samples, data.size());
  DLSIM_CHECK(batch > 0 && count > 0, "evaluating {} samples {} at a time", count, batch);
  const auto dim = static_cast<Eigen::Index>(data.features.rows());
  check_input(dim, 1);
  network_->reserve(static_cast<Eigen::Index>(std::min(batch, count)), Phase::kEval);
  std::fill(class_correct_.begin(), class_correct_.end(), 0);
  std::fill(class_total_.begin(), class_total_.end(), 0);
  double loss = 0.0;
  for (size_t start = 0; start < count; start += batch) {
    const auto n = static_cast<Eigen::Index>(std::min(batch, count - start));
    const layers::ConstAct x(data.features.col(static_cast<Eigen::Index>(start)).data(), dim, n);
    const auto logits = network_->forward(params.data(), x, Phase::kEval, nullptr, data.background);
    const std::span<const uint8_t> labels(data.labels.data() + start, static_cast<size_t>(n));
    loss += softmax_cross_entropy(logits, labels, nullptr);
    for (Eigen::Index s = 0; s < n; ++s) {
      const uint8_t y = labels[static_cast<size_t>(s)];
      ++class_total_[y];
      if (predicted_class(logits, s) == y) ++class_correct_[y];
    }
  }
  uint64_t correct = 0;
  out.class_accuracy.resize(classes_);
  for (size_t c = 0; c < classes_; ++c) {
    correct += class_correct_[c];
    out.class_accuracy[c] = class_total_[c] == 0 ? kNaN
                                                 : static_cast<double>(class_correct_[c]) /
                                                       static_cast<double>(class_total_[c]);
  }
  out.loss = loss / static_cast<double>(count);
  out.accuracy = static_cast<double>(correct) / static_cast<double>(count);
  out.samples = count;
}

void Model::evaluate_quadratic(Eigen::Ref<const Eigen::VectorXf> x, EvalResult& out) const {
  out.loss = 0.5 * static_cast<double>((x - target_).squaredNorm());
  out.accuracy = kNaN;
  out.class_accuracy.clear();
  out.samples = 0;
  if (optimum_ != nullptr) out.optimum_distance = (x - *optimum_).norm();
}

EvalResult Model::evaluate(Eigen::Ref<const Eigen::VectorXf> params, const Dataset& data,
                           size_t max_samples, size_t batch) {
  EvalResult result;
  evaluate(params, data, max_samples, batch, result);
  return result;
}

const Eigen::VectorXf& Model::quadratic_target() const {
  DLSIM_CHECK(kind_ == ModelKind::kQuadratic, "quadratic_target() of a non-quadratic model");
  return target_;
}

void Model::set_optimum(std::shared_ptr<const Eigen::VectorXf> optimum) {
  DLSIM_CHECK(
      kind_ == ModelKind::kQuadratic && optimum != nullptr && optimum->size() == parameter_count_,
      "set_optimum needs a quadratic model and an optimum of its dimension");
  optimum_ = std::move(optimum);
}

void QuadraticOptimum::add(const Eigen::VectorXf& target) {
  if (count_++ == 0)
    sum_ = target;
  else
    sum_ += target;
}

Eigen::VectorXf QuadraticOptimum::mean() const {
  DLSIM_CHECK(count_ > 0, "the optimum of no models");
  return sum_ / static_cast<float>(count_);
}

Eigen::VectorXf quadratic_optimum(const std::vector<const Model*>& models) {
  QuadraticOptimum optimum;
  for (const Model* m : models) optimum.add(m->quadratic_target());
  return optimum.mean();
}

}  // namespace dlsim::models
