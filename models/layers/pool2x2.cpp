#include "models/layers/pool2x2.hpp"

#include <algorithm>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {
namespace {

// One output row: inputs r0 (top) and r1 (bottom), wo outputs, from output column o0 on.
void forward_scalar(const float* r0, const float* r1, Index o0, Index wo, float* y, int32_t* code) {
  for (Index o = o0; o < wo; ++o) {
    const float v[4] = {r0[2 * o], r0[2 * o + 1], r1[2 * o], r1[2 * o + 1]};
    int32_t best = 0;
    for (int32_t k = 1; k < 4; ++k)
      if (v[k] > v[best]) best = k;
    y[o] = v[best];
    code[o] = best;
  }
}

void backward_scalar(const float* dy, const int32_t* code, Index o0, Index wo, float* d0,
                     float* d1) {
  for (Index o = o0; o < wo; ++o) {
    const int32_t c = code[o];
    d0[2 * o] = c == 0 ? dy[o] : 0.0f;
    d0[2 * o + 1] = c == 1 ? dy[o] : 0.0f;
    d1[2 * o] = c == 2 ? dy[o] : 0.0f;
    d1[2 * o + 1] = c == 3 ? dy[o] : 0.0f;
  }
}

#if defined(__AVX512F__)
// Lanes 0..15 of the even / odd elements of the 32 floats (lo, hi).
const __m512i kEven = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
const __m512i kOdd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
// Interleave (a, b): first 16 and last 16 of a0 b0 a1 b1 ...
const __m512i kLow = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
const __m512i kHigh =
    _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);

__mmask16 mask_of(Index n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u);
}

// Outputs [o, o + 16) of one row, n = how many of them exist.
void forward16(const float* r0, const float* r1, Index o, Index n, float* y, int32_t* code) {
  const __mmask16 lo = mask_of(2 * n), hi = mask_of(2 * n - 16);
  const __m512 a0 = _mm512_maskz_loadu_ps(lo, r0 + 2 * o),
               a1 = _mm512_maskz_loadu_ps(hi, r0 + 2 * o + 16);
  const __m512 b0 = _mm512_maskz_loadu_ps(lo, r1 + 2 * o),
               b1 = _mm512_maskz_loadu_ps(hi, r1 + 2 * o + 16);
  const __m512 v[4] = {_mm512_permutex2var_ps(a0, kEven, a1), _mm512_permutex2var_ps(a0, kOdd, a1),
                       _mm512_permutex2var_ps(b0, kEven, b1), _mm512_permutex2var_ps(b0, kOdd, b1)};
  __m512 best = v[0];
  __m512i c = _mm512_setzero_si512();
  for (int k = 1; k < 4; ++k) {  // strictly greater: ties keep the first
    const __mmask16 m = _mm512_cmp_ps_mask(v[k], best, _CMP_GT_OQ);
    best = _mm512_mask_mov_ps(best, m, v[k]);
    c = _mm512_mask_mov_epi32(c, m, _mm512_set1_epi32(k));
  }
  const __mmask16 out = mask_of(n);
  _mm512_mask_storeu_ps(y + o, out, best);
  _mm512_mask_storeu_epi32(code + o, out, c);
}

void backward16(const float* dy, const int32_t* code, Index o, Index n, float* d0, float* d1) {
  const __mmask16 out = mask_of(n);
  const __m512 g = _mm512_maskz_loadu_ps(out, dy + o);
  const __m512i c = _mm512_maskz_loadu_epi32(out, code + o);
  __m512 v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(k)), g);
  const __mmask16 lo = mask_of(2 * n), hi = mask_of(2 * n - 16);
  _mm512_mask_storeu_ps(d0 + 2 * o, lo, _mm512_permutex2var_ps(v[0], kLow, v[1]));
  _mm512_mask_storeu_ps(d0 + 2 * o + 16, hi, _mm512_permutex2var_ps(v[0], kHigh, v[1]));
  _mm512_mask_storeu_ps(d1 + 2 * o, lo, _mm512_permutex2var_ps(v[2], kLow, v[3]));
  _mm512_mask_storeu_ps(d1 + 2 * o + 16, hi, _mm512_permutex2var_ps(v[2], kHigh, v[3]));
}
#endif

}  // namespace

void pool2x2_forward(const float* x, Shape in, float* y, int32_t* code) {
  const Index ho = in.height / 2, wo = in.width / 2;
  for (Index c = 0; c < in.channels; ++c) {
    for (Index oh = 0; oh < ho; ++oh, y += wo, code += wo) {
      const float* r0 = x + (c * in.height + 2 * oh) * in.width;
      Index o = 0;
#if defined(__AVX512F__)
      for (; o < wo; o += 16) forward16(r0, r0 + in.width, o, std::min<Index>(16, wo - o), y, code);
#endif
      forward_scalar(r0, r0 + in.width, o, wo, y, code);
    }
  }
}

void pool2x2_backward(const float* dy, const int32_t* code, Shape in, float* dx) {
  const Index ho = in.height / 2, wo = in.width / 2;
  for (Index c = 0; c < in.channels; ++c) {
    float* plane = dx + c * in.height * in.width;
    for (Index oh = 0; oh < ho; ++oh, dy += wo, code += wo) {
      float* d0 = plane + 2 * oh * in.width;
      Index o = 0;
#if defined(__AVX512F__)
      for (; o < wo; o += 16)
        backward16(dy, code, o, std::min<Index>(16, wo - o), d0, d0 + in.width);
#endif
      backward_scalar(dy, code, o, wo, d0, d0 + in.width);
      if (in.width % 2 != 0) d0[in.width - 1] = d0[2 * in.width - 1] = 0.0f;
    }
    if (in.height % 2 != 0) std::fill_n(plane + (in.height - 1) * in.width, in.width, 0.0f);
  }
}

}  // namespace dlsim::models::layers
