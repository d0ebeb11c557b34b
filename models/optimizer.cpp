#include "models/optimizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "sim/core/error.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim::models {
namespace {

void require(bool ok, const char* path, const char* rule, double value) {
  if (!ok) throw InputError(fmt::format("{}: must be {}, got {}", path, rule, value));
}

}  // namespace

double LrSchedule::at(int64_t k) const {
  switch (kind) {
    case ScheduleKind::kConstant:
      return lr;
    case ScheduleKind::kInverseDecay:
      return lr / std::pow(eps * static_cast<double>(k) + 1.0, decay);
    case ScheduleKind::kStepDecay: {
      const auto passed =
          std::upper_bound(milestones.begin(), milestones.end(), k) - milestones.begin();
      return lr * std::pow(gamma, static_cast<double>(passed));
    }
  }
  return lr;
}

void validate(const OptimizerSpec& spec) {
  const LrSchedule& s = spec.schedule;
  require(std::isfinite(s.lr) && s.lr > 0.0, "/lr", "a positive number", s.lr);
  if (spec.momentum != Momentum::kNone)
    require(spec.mu >= 0.0 && spec.mu < 1.0, "/mu", "in [0, 1)", spec.mu);
  require(spec.weight_decay >= 0.0, "/weight_decay", "at least 0", spec.weight_decay);
  if (s.kind == ScheduleKind::kInverseDecay) {
    require(s.eps >= 0.0, "/schedule/eps", "at least 0", s.eps);
    require(s.decay >= 0.0, "/schedule/decay", "at least 0", s.decay);
  }
  if (s.kind == ScheduleKind::kStepDecay) {
    require(s.gamma > 0.0, "/schedule/gamma", "positive", s.gamma);
    for (size_t i = 0; i < s.milestones.size(); ++i) {
      const bool ok = s.milestones[i] >= 0 && (i == 0 || s.milestones[i] > s.milestones[i - 1]);
      if (!ok)
        throw InputError(
            fmt::format("/schedule/milestones/{}: milestones must be increasing "
                        "iterations >= 0, got {}",
                        i, s.milestones[i]));
    }
  }
}

Optimizer::Optimizer(const OptimizerSpec& spec, Eigen::Index parameter_count) : spec_(spec) {
  validate(spec_);
  if (spec_.momentum != Momentum::kNone) velocity_ = Eigen::VectorXf::Zero(parameter_count);
}

float Optimizer::learning_rate(int64_t iteration) const {
  return static_cast<float>(spec_.schedule.at(iteration));
}

bool Optimizer::is_plain_sgd() const {
  return spec_.momentum == Momentum::kNone && spec_.weight_decay == 0.0;
}

void Optimizer::step(Eigen::Ref<Eigen::VectorXf> params, Eigen::Ref<const Eigen::VectorXf> grads,
                     int64_t iteration) {
  DLSIM_CHECK(params.size() == grads.size(), "{} parameters, {} gradients", params.size(),
              grads.size());
  step_slice(params.data(), grads.data(), 0, params.size(), learning_rate(iteration));
}

void Optimizer::step_slice(float* x, const float* g, Eigen::Index offset, Eigen::Index count,
                           float lr) {
  const auto wd = static_cast<float>(spec_.weight_decay);
  const auto mu = static_cast<float>(spec_.mu);
  // One pass each, written as plain loops (vectorised by the compiler): a parameter is read and
  // written once per step.
  switch (spec_.momentum) {
    case Momentum::kNone:
      for (Eigen::Index i = 0; i < count; ++i) x[i] -= lr * (g[i] + wd * x[i]);
      break;
    case Momentum::kClassic: {
      float* v = velocity_.data() + offset;
      for (Eigen::Index i = 0; i < count; ++i) {
        v[i] = mu * v[i] + (g[i] + wd * x[i]);
        x[i] -= lr * v[i];
      }
      break;
    }
    case Momentum::kNesterov: {
      float* v = velocity_.data() + offset;
      for (Eigen::Index i = 0; i < count; ++i) {
        const float gi = g[i] + wd * x[i];
        v[i] = mu * v[i] + gi;
        x[i] -= lr * (gi + mu * v[i]);
      }
      break;
    }
  }
}

void Optimizer::archive(StateArchive& ar) {
  ar.span(std::span<float>(velocity_.data(), static_cast<size_t>(velocity_.size())));
}

}  // namespace dlsim::models
