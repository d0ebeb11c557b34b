#include "models/layers/relu.hpp"

namespace dlsim::models::layers {

void Relu::forward(const float*, ConstAct x, Act y, Phase, RandomStream*) {
  y.array() = x.array().max(0.0f);
}

void Relu::backward(const float*, ConstAct, ConstAct y, ConstAct dy, Act* dx, const GradientOut&) {
  if (dx != nullptr) dx->array() = (y.array() > 0.0f).select(dy.array(), 0.0f);
}

}  // namespace dlsim::models::layers
