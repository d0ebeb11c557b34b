#include "models/layers/pool2x2.hpp"

#include <algorithm>

#include "models/layers/simd.hpp"

namespace dlsim::models::layers {
namespace {

using simd::Vec;
constexpr Index kW = simd::kWidth;

// Outputs [o, o + kW) of one row, n = how many of them exist (1..kW).
void forward_vector(const float* r0, const float* r1, Index o, Index n, float* y, int32_t* code) {
  const simd::Tail lo = simd::tail(2 * n), hi = simd::tail(std::max<Index>(2 * n - kW, 0));
  Vec v[4];
  simd::deinterleave(simd::load_tail(r0 + 2 * o, lo), simd::load_tail(r0 + 2 * o + kW, hi), v[0],
                     v[1]);
  simd::deinterleave(simd::load_tail(r1 + 2 * o, lo), simd::load_tail(r1 + 2 * o + kW, hi), v[2],
                     v[3]);
  Vec best = v[0];
  Vec c = simd::zero();          // the code, as a float
  for (int k = 1; k < 4; ++k) {  // strictly greater: ties keep the first
    const unsigned m = simd::greater(v[k], best);
    best = simd::select(m, v[k], best);
    c = simd::select(m, simd::set1(static_cast<float>(k)), c);
  }
  const simd::Tail out = simd::tail(n);
  simd::store_tail(y + o, best, out);
  simd::store_int_tail(code + o, c, out);
}

void backward_vector(const float* dy, const int32_t* code, Index o, Index n, float* d0, float* d1) {
  const simd::Tail out = simd::tail(n);
  const Vec g = simd::load_tail(dy + o, out);
  const Vec c = simd::load_int_tail(code + o, out);
  Vec v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = simd::select(simd::equal(c, simd::set1(static_cast<float>(k))), g, simd::zero());
  const simd::Tail lo = simd::tail(2 * n), hi = simd::tail(std::max<Index>(2 * n - kW, 0));
  Vec first, second;
  simd::interleave(v[0], v[1], first, second);
  simd::store_tail(d0 + 2 * o, first, lo);
  simd::store_tail(d0 + 2 * o + kW, second, hi);
  simd::interleave(v[2], v[3], first, second);
  simd::store_tail(d1 + 2 * o, first, lo);
  simd::store_tail(d1 + 2 * o + kW, second, hi);
}

}  // namespace

void pool2x2_forward(const float* x, Shape in, float* y, int32_t* code) {
  const Index ho = in.height / 2, wo = in.width / 2;
  for (Index c = 0; c < in.channels; ++c) {
    for (Index oh = 0; oh < ho; ++oh, y += wo, code += wo) {
      const float* r0 = x + (c * in.height + 2 * oh) * in.width;
      for (Index o = 0; o < wo; o += kW)
        forward_vector(r0, r0 + in.width, o, std::min(kW, wo - o), y, code);
    }
  }
}

void pool2x2_backward(const float* dy, const int32_t* code, Shape in, float* dx) {
  const Index ho = in.height / 2, wo = in.width / 2;
  for (Index c = 0; c < in.channels; ++c) {
    float* plane = dx + c * in.height * in.width;
    for (Index oh = 0; oh < ho; ++oh, dy += wo, code += wo) {
      float* d0 = plane + 2 * oh * in.width;
      for (Index o = 0; o < wo; o += kW)
        backward_vector(dy, code, o, std::min(kW, wo - o), d0, d0 + in.width);
      if (in.width % 2 != 0) d0[in.width - 1] = d0[2 * in.width - 1] = 0.0f;
    }
    if (in.height % 2 != 0) std::fill_n(plane + (in.height - 1) * in.width, in.width, 0.0f);
  }
}

}  // namespace dlsim::models::layers
