#include "models/layers/conv2d.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/layers/gemm.hpp"
#include "models/layers/init.hpp"
#include "models/layers/pool2x2.hpp"
#include "models/layers/row_ops.hpp"

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

// C^T (m x rows*width, column-major) = A (m x k) * B^T, where B's rows for output row oh and
// columns [ow0, ow0 + w) are plane.window(oh, ow0) + row_offsets: a stride-1 convolution read in
// place. Each product covers at most 14 positions of one output row (one register tile).
void gemm_over_rows(const Im2Col& plane, Index rows, Index width, const float* a, Index m, Index k,
                    float* c_t) {
  const Index segments = (width + 13) / 14;
  for (Index oh = 0; oh < rows; ++oh) {
    for (Index g = 0, ow0 = 0; g < segments; ++g) {
      const Index w = width / segments + (g < width % segments ? 1 : 0);
      gemm(m, w, k, 1.0f, a, m,
           Operand{plane.window(oh, ow0), 0, Layout::kRowOffsets, plane.row_offsets()},
           c_t + (oh * width + ow0) * m, m, Accumulate::kNo);
      ow0 += w;
    }
  }
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
      in_place_(stride == 1 && padding < kernel),
      im2col_(in, kernel, stride, padding, conv_shape_.height, conv_shape_.width,
              in_place_ ? 0 : std::max<Index>(1, kFoldColumns / (kernel * kernel))),
      dz_plane_(in_place_ ? conv_shape_ : Shape{0, 1, 1}, kernel, 1,
                in_place_ ? kernel - 1 - padding : 0, in.height, in.width, 0),
      cols_(in_place_ ? 0 : positions_, in_place_ ? 0 : patch_),
      col_tile_(positions_ * kTileColumns + kRowSlack),
      dy_t_(filters, positions_),
      dk_(filters * patch_ + filters),
      z_(positions_, filters),
      z_t_(in_place_ ? filters : 0, in_place_ ? positions_ : 0),
      dz_(positions_, filters),
      dy_masked_(output_shape().size()),
      k_flipped_(in_place_ ? in.channels : 0, in_place_ ? filters * kernel * kernel : 0),
      dx_t_(in_place_ ? in.channels : 0, in_place_ ? in.height * in.width : 0) {}

void Conv2D::reserve(Index max_batch, Use) {
  if (pool_ == FusedPool::kMax2x2 && codes_.cols() < max_batch)
    codes_.resize(output_shape().size(), max_batch);
}

size_t Conv2D::scratch_bytes() const {
  const Index floats = cols_.size() + col_tile_.size() + dy_t_.size() + dk_.size() + z_.size() +
                       z_t_.size() + dz_.size() + dy_masked_.size() + codes_.size() +
                       k_flipped_.size() + dx_t_.size() + im2col_.floats() + dz_plane_.floats();
  return static_cast<size_t>(floats) * sizeof(float);
}

std::string Conv2D::describe() const {
  // The fused layers describe themselves as the separate ones: the same architecture hash.
  std::string text =
      fmt::format("conv {} -> {} kernel {} stride {} padding {}", to_string(input_shape()),
                  to_string(conv_shape_), kernel_, stride_, padding_);
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
  fill_biases(p + filters_ * patch_, filters_, patch_, init, rng);
}

// z (P x F) = conv(x) + b, clamped at 0 with a fused ReLU.
void Conv2D::convolve_sample(const float* p, const float* x, float* z) {
  const float* bias = p + filters_ * patch_;
  const Rectify rectify = relu_ == FusedRelu::kYes ? Rectify::kYes : Rectify::kNo;
  im2col_.load(x);
  if (in_place_) {
    // z^T (F x P) = K (F x Ckk) * cols^T (Ckk x P): the filters are the 32-row dimension, so no
    // tile is partly empty, and cols^T is read in place. The transpose adds b and clamps.
    gemm_over_rows(im2col_, conv_shape_.height, conv_shape_.width, p, filters_, patch_,
                   z_t_.data());
    transpose_add(z_t_.data(), filters_, positions_, bias, rectify, z);
    return;
  }
  // z (P x F) = cols (P x Ckk) * K^T (Ckk x F); K read row-major is K^T.
  im2col_.columns(0, patch_, cols_.data(), Spill::kNo);
  gemm(positions_, filters_, patch_, 1.0f, cols_.data(), positions_,
       Operand{p, filters_, Layout::kRowMajor}, z, positions_, Accumulate::kNo);
  Eigen::Map<Eigen::MatrixXf> zs(z, positions_, filters_);
  const Eigen::Map<const Eigen::RowVectorXf> b(bias, filters_);
  if (rectify == Rectify::kYes) {
    zs = (zs.rowwise() + b).cwiseMax(0.0f);
  } else {
    zs.rowwise() += b;
  }
}

void Conv2D::forward(const float* p, ConstAct x, Act y, Phase, RandomStream*) {
  for (Index s = 0; s < x.cols(); ++s) {
    float* z = pool_ == FusedPool::kMax2x2 ? z_.data() : y.col(s).data();  // (P x F)
    convolve_sample(p, x.col(s).data(), z);
    if (pool_ == FusedPool::kMax2x2)
      pool2x2_forward(z, conv_shape_, y.col(s).data(), codes_.col(s).data());
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
  if (pool_ == FusedPool::kMax2x2)
    pool2x2_backward(g, codes_.col(s).data(), conv_shape_, dz_.data());
  return dz_.data();
}

// [dK db] (F x Ckk+1) (+)= dz^T (F x P) * [cols 1] (P x Ckk+1), 12 columns of cols at a time built
// into an L1 tile from the loaded sample; db is the last column, summed in a fixed order.
void Conv2D::kernel_gradient(const float* dz, bool first) {
  transpose(dz, positions_, filters_, dy_t_.data());
  for (Index q0 = 0; q0 <= patch_; q0 += kTileColumns) {
    const Index count = std::min(kTileColumns, patch_ + 1 - q0);
    const Index real = std::min(count, patch_ - q0);
    im2col_.columns(q0, real, col_tile_.data(), Spill::kAllowed);
    if (real < count) std::fill_n(col_tile_.data() + real * positions_, positions_, 1.0f);
    gemm(filters_, count, positions_, 1.0f, dy_t_.data(), filters_,
         Operand{col_tile_.data(), positions_}, dk_.data() + q0 * filters_, filters_,
         first ? Accumulate::kNo : Accumulate::kYes);
  }
}

void Conv2D::input_gradient(const float* p, const float* dz, float* dx) {
  const Shape& in = input_shape();
  const Index k2 = kernel_ * kernel_;
  if (in_place_) {
    // Stride 1: dx is the full convolution of dz (padded by k-1-padding) with the flipped
    // kernel: dx^T (C x H*W) = Kflip (C x F*k*k) * im2col(dz)^T, read in place as forward does.
    dz_plane_.load(dz);
    gemm_over_rows(dz_plane_, in.height, in.width, k_flipped_.data(), in.channels, filters_ * k2,
                   dx_t_.data());
    transpose(dx_t_.data(), in.channels, in.height * in.width, dx);
    return;
  }
  // dcols (P x Ckk) = dz (P x F) * K (F x Ckk), a few input channels at a time, each folded
  // back onto the input while it is in cache.
  const Index group = std::max<Index>(1, kFoldColumns / k2);
  for (Index c0 = 0; c0 < in.channels; c0 += group) {
    const Index c1 = std::min(in.channels, c0 + group);
    gemm(positions_, (c1 - c0) * k2, filters_, 1.0f, dz, positions_,
         Operand{p + c0 * k2 * filters_, filters_}, im2col_.dcols_buffer(), positions_,
         Accumulate::kNo);
    im2col_.fold(c0, c1, dx);
  }
}

void Conv2D::backward(const float* p, ConstAct x, ConstAct y, ConstAct dy, Act* dx,
                      const GradientOut& grad) {
  if (dx != nullptr && in_place_) {
    // Kflip(c, f*k*k + ki*k + kj) = K(f, c, k-1-ki, k-1-kj).
    const Index k = kernel_, k2 = k * k;
    for (Index c = 0; c < input_shape().channels; ++c)
      for (Index f = 0; f < filters_; ++f)
        for (Index r = 0; r < k2; ++r)
          k_flipped_(c, f * k2 + r) = p[f + filters_ * (c * k2 + (k2 - 1 - r))];
  }
  for (Index s = 0; s < x.cols(); ++s) {
    const float* dz = conv_output_gradient(y, dy, s);  // (P x F)
    im2col_.load(x.col(s).data());
    kernel_gradient(dz, s == 0);
    if (dx != nullptr) input_gradient(p, dz, dx->col(s).data());
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
