#include "models/layers/max_pool2d.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/layers/pool2x2.hpp"

namespace dlsim::models::layers {

MaxPool2D::MaxPool2D(Shape in, Index kernel, Index stride)
    : Layer(in, Shape{in.channels, (in.height - kernel) / stride + 1,
                      (in.width - kernel) / stride + 1}),
      kernel_(kernel),
      stride_(stride) {}

std::string MaxPool2D::describe() const {
  return fmt::format("maxpool {} -> {} kernel {} stride {}", to_string(input_shape()),
                     to_string(output_shape()), kernel_, stride_);
}

void MaxPool2D::reserve(Index max_batch, Use) {
  if (argmax_.cols() < max_batch) argmax_.resize(output_shape().size(), max_batch);
}

void MaxPool2D::pool_sample(const float* x, float* y, int32_t* arg) const {
  const Shape& in = input_shape();
  const Shape& out = output_shape();
  for (Index c = 0; c < in.channels; ++c) {
    for (Index oh = 0; oh < out.height; ++oh) {
      for (Index ow = 0; ow < out.width; ++ow) {
        Index best = (c * in.height + oh * stride_) * in.width + ow * stride_;
        for (Index ki = 0; ki < kernel_; ++ki) {
          const Index row = (c * in.height + oh * stride_ + ki) * in.width + ow * stride_;
          for (Index kj = 0; kj < kernel_; ++kj)
            if (x[row + kj] > x[best]) best = row + kj;
        }
        *y++ = x[best];
        *arg++ = static_cast<int32_t>(best);
      }
    }
  }
}

void MaxPool2D::forward(const float*, ConstAct x, Act y, Phase, RandomStream*) {
  if (kernel_ == 2 && stride_ == 2) {
    for (Index s = 0; s < x.cols(); ++s)
      pool2x2_forward(x.col(s).data(), input_shape(), y.col(s).data(), argmax_.col(s).data());
    return;
  }
  for (Index s = 0; s < x.cols(); ++s)
    pool_sample(x.col(s).data(), y.col(s).data(), argmax_.col(s).data());
}

void MaxPool2D::backward(const float*, ConstAct x, ConstAct, ConstAct dy, Act* dx,
                         const GradientOut&) {
  if (dx == nullptr) return;
  if (kernel_ == 2 && stride_ == 2) {
    for (Index s = 0; s < x.cols(); ++s)
      pool2x2_backward(dy.col(s).data(), argmax_.col(s).data(), input_shape(), dx->col(s).data());
    return;
  }
  const Index outputs = output_shape().size();
  for (Index s = 0; s < x.cols(); ++s) {
    float* dxs = dx->col(s).data();
    std::fill_n(dxs, input_shape().size(), 0.0f);
    const float* dys = dy.col(s).data();
    const int32_t* arg = argmax_.col(s).data();
    for (Index o = 0; o < outputs; ++o) dxs[arg[o]] += dys[o];
  }
}

double MaxPool2D::forward_flops() const {
  return static_cast<double>(output_shape().size() * kernel_ * kernel_);
}

double MaxPool2D::backward_flops(bool input_gradient) const {
  return input_gradient ? static_cast<double>(output_shape().size()) : 0.0;
}

}  // namespace dlsim::models::layers
