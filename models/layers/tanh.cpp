#include "models/layers/tanh.hpp"

namespace dlsim::models::layers {

void Tanh::forward(const float*, ConstAct x, Act y, Phase, RandomStream*) {
  y.array() = x.array().tanh();
}

void Tanh::backward(const float*, ConstAct, ConstAct y, ConstAct dy, Act* dx, const GradientOut&) {
  if (dx != nullptr) dx->array() = dy.array() * (1.0f - y.array().square());
}

}  // namespace dlsim::models::layers
