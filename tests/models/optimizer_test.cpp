#include "models/optimizer.hpp"

#include <doctest/doctest.h>

#include <Eigen/Core>

#include "sim/core/error.hpp"

using namespace dlsim;
using namespace dlsim::models;

namespace {

// Two steps from x0 = (1, -2) with g1 = (0.5, 1), g2 = (1, -1), lr 0.1, mu 0.9.
Eigen::VectorXf two_steps(Momentum momentum, Eigen::VectorXf* velocity = nullptr) {
  OptimizerSpec spec;
  spec.momentum = momentum;
  spec.mu = 0.9;
  spec.schedule.lr = 0.1;
  Optimizer opt(spec, 2);
  Eigen::VectorXf x(2), g1(2), g2(2);
  x << 1.0f, -2.0f;
  g1 << 0.5f, 1.0f;
  g2 << 1.0f, -1.0f;
  opt.step(x, g1, 0);
  opt.step(x, g2, 1);
  if (velocity != nullptr) *velocity = opt.state();
  return x;
}

}  // namespace

TEST_CASE("momentum: v = mu*v + g, x -= lr*v, two steps by hand") {
  Eigen::VectorXf v;
  const Eigen::VectorXf x = two_steps(Momentum::kClassic, &v);
  // v1 = (0.5, 1), x1 = (0.95, -2.1); v2 = 0.9*v1 + g2 = (1.45, -0.1), x2 = (0.805, -2.09).
  CHECK(v[0] == doctest::Approx(1.45));
  CHECK(v[1] == doctest::Approx(-0.1));
  CHECK(x[0] == doctest::Approx(0.805));
  CHECK(x[1] == doctest::Approx(-2.09));
}

TEST_CASE("Nesterov: x -= lr*(g + mu*v) after v = mu*v + g, two steps by hand") {
  const Eigen::VectorXf x = two_steps(Momentum::kNesterov);
  // Step 1: g + mu*v1 = (0.95, 1.9), x1 = (0.905, -2.19).
  // Step 2: v2 = (1.45, -0.1), g2 + mu*v2 = (2.305, -1.09), x2 = (0.6745, -2.081).
  CHECK(x[0] == doctest::Approx(0.6745));
  CHECK(x[1] == doctest::Approx(-2.081));
}

TEST_CASE("plain SGD with weight decay adds wd*x to the gradient") {
  OptimizerSpec spec;
  spec.weight_decay = 0.01;
  spec.schedule.lr = 0.1;
  Optimizer opt(spec, 2);
  CHECK(opt.state().size() == 0);
  CHECK_FALSE(opt.is_plain_sgd());
  Eigen::VectorXf x(2), g(2);
  x << 1.0f, -2.0f;
  g << 0.5f, 1.0f;
  opt.step(x, g, 0);
  // g' = (0.51, 0.98); x = (1 - 0.051, -2 - 0.098).
  CHECK(x[0] == doctest::Approx(0.949));
  CHECK(x[1] == doctest::Approx(-2.098));
}

TEST_CASE("inverse-decay schedule a / (eps*k + 1)^d") {
  LrSchedule s;
  s.kind = ScheduleKind::kInverseDecay;
  s.lr = 0.1;
  s.eps = 1.0;
  s.decay = 1.0;
  CHECK(s.at(0) == doctest::Approx(0.1));
  CHECK(s.at(1) == doctest::Approx(0.05));
  CHECK(s.at(3) == doctest::Approx(0.025));
  s.decay = 0.5;
  CHECK(s.at(3) == doctest::Approx(0.05));
  s.eps = 1e-5;
  s.decay = 1.0;
  CHECK(s.at(100000) == doctest::Approx(0.05));
}

TEST_CASE("step-decay schedule multiplies by gamma at each milestone") {
  LrSchedule s;
  s.kind = ScheduleKind::kStepDecay;
  s.lr = 0.1;
  s.milestones = {2, 5};
  s.gamma = 0.5;
  CHECK(s.at(1) == doctest::Approx(0.1));
  CHECK(s.at(2) == doctest::Approx(0.05));
  CHECK(s.at(4) == doctest::Approx(0.05));
  CHECK(s.at(5) == doctest::Approx(0.025));
  CHECK(s.at(1000) == doctest::Approx(0.025));
}

TEST_CASE("optimizer specs outside their domain are input errors naming the field") {
  OptimizerSpec spec;
  spec.momentum = Momentum::kNesterov;
  spec.mu = 1.0;
  CHECK_THROWS_WITH_AS(validate(spec), "/mu: must be in [0, 1), got 1", InputError);
  spec.mu = 0.9;
  spec.schedule.lr = 0.0;
  CHECK_THROWS_WITH_AS(validate(spec), "/lr: must be a positive number, got 0", InputError);
  spec.schedule.lr = 0.1;
  spec.schedule.kind = ScheduleKind::kStepDecay;
  spec.schedule.milestones = {5, 5};
  CHECK_THROWS_AS(validate(spec), InputError);
}
