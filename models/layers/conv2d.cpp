#include "models/layers/conv2d.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/layers/gemm.hpp"
#include "models/layers/init.hpp"
#include "models/layers/pool2x2.hpp"

namespace dlsim::models::layers {

Index Conv2D::output_size(Index in, Index kernel, Index stride, Index padding) {
  const Index span = in + 2 * padding - kernel;
  return span < 0 ? 0 : span / stride + 1;
}

namespace {

Shape conv_output(Shape in, Index filters, Index kernel, Index stride, Index padding) {
  return Shape{filters, Conv2D::output_size(in.height, kernel, stride, padding),
               Conv2D::output_size(in.width, kernel, stride, padding)};
}

Shape pooled(Shape s, FusedPool pool) {
  return pool == FusedPool::kMax2x2 ? Shape{s.channels, s.height / 2, s.width / 2} : s;
}

}  // namespace

Conv2D::Conv2D(Shape in, Index filters, Index kernel, Index stride, Index padding, FusedRelu relu,
               FusedPool pool)
    : Layer(in, pooled(conv_output(in, filters, kernel, stride, padding), pool)),
      filters_(filters),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      relu_(relu),
      pool_(pool),
      conv_shape_(conv_output(in, filters, kernel, stride, padding)),
      patch_(in.channels * kernel * kernel),
      positions_(conv_shape_.height * conv_shape_.width),
      im2col_(in, kernel, stride, padding, conv_shape_.height, conv_shape_.width),
      cols_(positions_, patch_ + 1),
      dy_t_(filters, positions_),
      dk_(filters * patch_ + filters),
      z_(positions_, filters),
      dz_(positions_, filters),
      dy_masked_(output_shape().size()) {
  cols_.col(patch_).setOnes();  // the bias column: [cols 1] * [K b]^T = cols * K^T + b
}

void Conv2D::reserve(Index max_batch) {
  if (pool_ == FusedPool::kMax2x2 && codes_.cols() < max_batch)
    codes_.resize(output_shape().size(), max_batch);
}

std::string Conv2D::describe() const {
  // The fused layers describe themselves as the separate ones: the same architecture hash.
  std::string text = fmt::format("conv {} -> {} kernel {} stride {} padding {}",
                                 to_string(input_shape()), to_string(conv_shape_), kernel_,
                                 stride_, padding_);
  if (relu_ == FusedRelu::kYes) text += "\nrelu";
  if (pool_ == FusedPool::kMax2x2)
    text += fmt::format("\nmaxpool {} -> {} kernel 2 stride 2", to_string(conv_shape_),
                        to_string(output_shape()));
  return text;
}

Index Conv2D::parameter_count() const { return filters_ * patch_ + filters_; }

void Conv2D::initialize(float* p, Init init, RandomStream& rng) const {
  const Index k2 = kernel_ * kernel_;
  fill_weights(p, filters_ * patch_, patch_, filters_ * k2, init, rng);
  std::fill_n(p + filters_ * patch_, filters_, 0.0f);
}

void Conv2D::forward(const float* p, ConstAct x, Act y, Phase, RandomStream*) {
  for (Index s = 0; s < x.cols(); ++s) {
    im2col_.expand(x.col(s).data(), cols_.data());
    // z (P x F) = [cols 1] (P x Ckk+1) * [K b]^T (Ckk+1 x F); p read row-major is [K b]^T.
    float* z = pool_ == FusedPool::kMax2x2 ? z_.data() : y.col(s).data();
    gemm(positions_, filters_, patch_ + 1, 1.0f, cols_.data(), positions_,
         Operand{p, filters_, Layout::kRowMajor}, z, positions_, Accumulate::kNo);
    if (relu_ == FusedRelu::kYes) {
      Eigen::Map<Eigen::ArrayXf> zs(z, positions_ * filters_);
      zs = zs.max(0.0f);
    }
    if (pool_ == FusedPool::kMax2x2) pool2x2_forward(z, conv_shape_, y.col(s).data(), codes_.col(s).data());
  }
}

const float* Conv2D::conv_output_gradient(ConstAct y, ConstAct dy, Index s) {
  if (relu_ == FusedRelu::kNo && pool_ == FusedPool::kNo) return dy.col(s).data();
  // The ReLU mask is y > 0 whether or not a pool follows: max-pooling relu(z) picks an element
  // with z = y, and y = 0 means the whole window was clipped.
  const float* g = dy.col(s).data();
  if (relu_ == FusedRelu::kYes) {
    float* out = pool_ == FusedPool::kMax2x2 ? dy_masked_.data() : dz_.data();
    Eigen::Map<Eigen::ArrayXf>(out, dy.rows()) =
        (y.col(s).array() > 0.0f).select(dy.col(s).array(), 0.0f);
    g = out;
  }
  if (pool_ == FusedPool::kMax2x2) pool2x2_backward(g, codes_.col(s).data(), conv_shape_, dz_.data());
  return dz_.data();
}

void Conv2D::backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                      const GradientOut& grad) {
  const Index n = x.cols();
  for (Index s = 0; s < n; ++s) {
    const float* dz = conv_output_gradient(y, dy, s);  // (P x F)
    im2col_.expand(x.col(s).data(), cols_.data());
    // [dK db] (F x Ckk+1) += dz^T (F x P) * [cols 1] (P x Ckk+1): the bias gradient is the
    // product's last column, summed in a fixed order.
    transpose(dz, positions_, filters_, dy_t_.data());
    gemm(filters_, patch_ + 1, positions_, 1.0f, dy_t_.data(), filters_,
         Operand{cols_.data(), positions_}, dk_.data(), filters_,
         s == 0 ? Accumulate::kNo : Accumulate::kYes);
    if (dx != nullptr) {
      // dcols (P x Ckk) = dz (P x F) * K (F x Ckk), then scattered back onto the input.
      gemm(positions_, patch_, filters_, 1.0f, dz, positions_, Operand{p, filters_},
           im2col_.dcols_buffer(), positions_, Accumulate::kNo);
      im2col_.fold(dx->col(s).data());
    }
  }
  Eigen::Map<Eigen::VectorXf> g(grad.data, parameter_count());
  if (grad.mode == Accumulate::kNo) {
    g.noalias() = grad.scale * dk_;
  } else {
    g.noalias() += grad.scale * dk_;
  }
}

double Conv2D::forward_flops() const {
  const double pf = static_cast<double>(positions_ * filters_);
  double flops = 2.0 * static_cast<double>(patch_) * pf + pf;
  if (relu_ == FusedRelu::kYes) flops += pf;
  if (pool_ == FusedPool::kMax2x2) flops += static_cast<double>(output_shape().size() * 4);
  return flops;
}

double Conv2D::backward_flops(bool input_gradient) const {
  const double pf = static_cast<double>(positions_ * filters_);
  const double product = 2.0 * static_cast<double>(patch_) * pf;
  const double scatter = static_cast<double>(positions_ * patch_);
  double flops = product + pf + (input_gradient ? product + scatter : 0.0);
  // As the separate layers count: the ReLU backward over the conv output, the pool over its own.
  if (relu_ == FusedRelu::kYes) flops += pf;
  if (pool_ == FusedPool::kMax2x2) flops += static_cast<double>(output_shape().size());
  return flops;
}

}  // namespace dlsim::models::layers
