#include "models/layers/gemm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {

#if defined(__AVX512F__)
namespace {

// Register tile: 32 rows of C (two zmm) x up to 14 columns = 28 accumulators. Per k step: two
// loads of A, 14 broadcasts of B, 28 FMAs (FMA-bound on two 512-bit FMA pipes).
// A is read in place; its 32 x kKc block (32 KiB) stays in L1 while the column tiles sweep B.
constexpr Index kMr = 32;
constexpr Index kMaxNr = 14;  // 28 accumulators + 2 of A + 1 broadcast: 31 of the 32 registers
constexpr Index kKc = 256;
// A is read in place with a column stride of lda floats; the hardware prefetchers do not follow
// such a stream across pages (wide weights, such as a CNN's 512 x 3136 layer, slow down most),
// so the kernel prefetches A kPrefetch columns ahead (tools/bench/train_step_bench.cpp tells).
constexpr Index kPrefetch = 32;

using Kernel = void (*)(Index kc, const float* a, Index lda, const float* b, Index ldb,
                        const Index* boff, float* c, Index ldc, float alpha, bool accumulate,
                        __mmask16 m0, __mmask16 m1);

// B element (p, j): b[p*ldb + j] (row-major), b[p + j*ldb] (column-major) or b[boff[p] + j].
template <int NV, int NR, Layout L>
void micro_kernel(Index kc, const float* a, Index lda, const float* b, Index ldb, const Index* boff,
                  float* c, Index ldc, float alpha, bool accumulate, __mmask16 m0, __mmask16 m1) {
  __m512 acc[NV][NR];
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
    acc[0][j] = _mm512_setzero_ps();
    if constexpr (NV == 2) acc[1][j] = _mm512_setzero_ps();
  }
  const auto ahead = static_cast<uintptr_t>(kPrefetch * lda) * sizeof(float);  // may pass the end
  for (Index p = 0; p < kc; ++p) {
    const float* ap = a + p * lda;
    const auto next = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(ap) + ahead);
    _mm_prefetch(next, _MM_HINT_T0);
    if constexpr (NV == 2) _mm_prefetch(next + 64, _MM_HINT_T0);
    const __m512 a0 = _mm512_maskz_loadu_ps(m0, ap);
    __m512 a1 = a0;
    if constexpr (NV == 2) a1 = _mm512_maskz_loadu_ps(m1, ap + 16);
    const float* brow = L == Layout::kRowOffsets ? b + boff[p] : b + p * ldb;
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const float bj = L == Layout::kColMajor ? b[p + j * ldb] : brow[j];
      const __m512 bv = _mm512_set1_ps(bj);
      acc[0][j] = _mm512_fmadd_ps(a0, bv, acc[0][j]);
      if constexpr (NV == 2) acc[1][j] = _mm512_fmadd_ps(a1, bv, acc[1][j]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
    float* cj = c + j * ldc;
    for (int v = 0; v < NV; ++v) {
      const __mmask16 m = v == 0 ? m0 : m1;
      const __m512 old = accumulate ? _mm512_maskz_loadu_ps(m, cj + 16 * v) : _mm512_setzero_ps();
      _mm512_mask_storeu_ps(cj + 16 * v, m, _mm512_fmadd_ps(acc[v][j], va, old));
    }
  }
}

template <int NV, Layout L, size_t... J>
constexpr std::array<Kernel, kMaxNr> kernel_row(std::index_sequence<J...>) {
  return {&micro_kernel<NV, static_cast<int>(J) + 1, L>...};
}

template <Layout L>
constexpr std::array<std::array<Kernel, kMaxNr>, 2> kernel_table() {
  return {kernel_row<1, L>(std::make_index_sequence<kMaxNr>{}),
          kernel_row<2, L>(std::make_index_sequence<kMaxNr>{})};
}

// kKernels[layout][nv - 1][nr - 1]
const std::array<std::array<std::array<Kernel, kMaxNr>, 2>, 3> kKernels = {
    kernel_table<Layout::kColMajor>(), kernel_table<Layout::kRowMajor>(),
    kernel_table<Layout::kRowOffsets>()};

__mmask16 row_mask(Index rows) {
  return rows >= 16 ? __mmask16(0xffff) : __mmask16((1u << rows) - 1u);
}

}  // namespace

void gemm(Index m, Index n, Index k, float alpha, const float* a, Index lda, Operand b, float* c,
          Index ldc, Accumulate acc) {
  if (k == 0) {
    if (acc == Accumulate::kNo)
      for (Index j = 0; j < n; ++j) std::fill_n(c + j * ldc, m, 0.0f);
    return;
  }
  const auto layout = static_cast<size_t>(b.layout);
  auto tile = [&](Index i0, Index p0, Index j0, Index nr) {
    const Index mr = std::min(kMr, m - i0), kc = std::min(kKc, k - p0);
    const float* bp = b.layout == Layout::kColMajor   ? b.data + p0 + j0 * b.ld
                      : b.layout == Layout::kRowMajor ? b.data + p0 * b.ld + j0
                                                      : b.data + j0;
    const Index* boff = b.row_offsets == nullptr ? nullptr : b.row_offsets + p0;
    kKernels[layout][mr > 16 ? 1 : 0][nr - 1](
        kc, a + i0 + p0 * lda, lda, bp, b.ld, boff, c + i0 + j0 * ldc, ldc, alpha,
        p0 > 0 || acc == Accumulate::kYes, row_mask(mr), row_mask(std::max<Index>(mr - 16, 0)));
  };
  // Column tiles of (nearly) equal width <= 14: no narrow remainder tile.
  const Index tiles = (n + kMaxNr - 1) / kMaxNr;
  const Index narrow = n / tiles, wide_tiles = n % tiles;
  auto width = [&](Index j0) { return j0 < wide_tiles * (narrow + 1) ? narrow + 1 : narrow; };
  // Row blocks outside: B is swept once per 32 rows of A while the A block stays in L1. When A
  // is small (fits in L2) and B is larger, column tiles outside instead: B is read once and A
  // re-read from cache (conv backward: A = dz^T, B = the 600 KiB im2col buffer).
  const bool a_small = m * std::min(k, kKc) * 4 <= (256 << 10) && m * k < k * n;
  for (Index p0 = 0; a_small && p0 < k; p0 += kKc)
    for (Index j0 = 0; j0 < n; j0 += width(j0))
      for (Index i0 = 0; i0 < m; i0 += kMr) tile(i0, p0, j0, width(j0));
  for (Index i0 = 0; !a_small && i0 < m; i0 += kMr)
    for (Index p0 = 0; p0 < k; p0 += kKc)
      for (Index j0 = 0; j0 < n; j0 += width(j0)) tile(i0, p0, j0, width(j0));
}

#else  // portable fallback

namespace {
using ConstStrided = Eigen::Map<const Eigen::MatrixXf, 0, Eigen::OuterStride<> >;
using ConstStridedRow =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
               Eigen::OuterStride<> >;
using Strided = Eigen::Map<Eigen::MatrixXf, 0, Eigen::OuterStride<> >;
// Blocks this small keep Eigen's packing buffers on the stack (EIGEN_STACK_ALLOCATION_LIMIT).
constexpr Index kBm = 64, kBn = 64, kBk = 256;
}  // namespace

void gemm(Index m, Index n, Index k, float alpha, const float* a, Index lda, Operand b, float* c,
          Index ldc, Accumulate acc) {
  Strided cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (acc == Accumulate::kNo) cm.setZero();
  const ConstStrided am(a, m, k, Eigen::OuterStride<>(lda));
  for (Index j0 = 0; j0 < n; j0 += kBn) {
    const Index nb = std::min(kBn, n - j0);
    for (Index p0 = 0; p0 < k; p0 += kBk) {
      const Index kb = std::min(kBk, k - p0);
      for (Index i0 = 0; i0 < m; i0 += kBm) {
        const Index mb = std::min(kBm, m - i0);
        auto cb = cm.block(i0, j0, mb, nb);
        const auto ab = am.block(i0, p0, mb, kb);
        if (b.layout == Layout::kRowOffsets) {
          for (Index p = p0; p < p0 + kb; ++p)
            cb.noalias() +=
                alpha * ab.col(p - p0) *
                Eigen::Map<const Eigen::RowVectorXf>(b.data + b.row_offsets[p] + j0, nb);
        } else if (b.layout == Layout::kColMajor) {
          const ConstStrided bm(b.data, k, n, Eigen::OuterStride<>(b.ld));
          cb.noalias() += alpha * ab * bm.block(p0, j0, kb, nb);
        } else {
          const ConstStridedRow bm(b.data, k, n, Eigen::OuterStride<>(b.ld));
          cb.noalias() += alpha * ab * bm.block(p0, j0, kb, nb);
        }
      }
    }
  }
}

#endif

namespace {

// Writes v (+ bias, then max(v, 0) when Rectify) to dst.
template <bool kBias, Rectify kRectify>
inline float finish(float v, float bias) {
  if constexpr (kBias) v += bias;
  if constexpr (kRectify == Rectify::kYes) v = std::max(v, 0.0f);
  return v;
}

#if defined(__AVX__)
// dst (8 x 8 block, leading dimension ldd) = src (8 x 8 block, leading dimension lds)^T: the
// classic unpack / shuffle / lane-permute sequence on eight 8-float rows. Output row i (= src
// column i) gets bias[i] added, then is clamped at 0, when asked.
template <bool kBias, Rectify kRectify>
void transpose8x8(const float* src, Index lds, float* dst, Index ldd, const float* bias) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // Rows 0-3 take the low 128-bit lanes, rows 4-7 the high ones. The permute's selector must be
  // an immediate at every optimisation level (-O0 folds no ternary), hence one call per value.
  for (int i = 0; i < 8; ++i) {
    __m256 v = i < 4 ? _mm256_permute2f128_ps(r[i % 4], r[i % 4 + 4], 0x20)
                     : _mm256_permute2f128_ps(r[i % 4], r[i % 4 + 4], 0x31);
    if constexpr (kBias) v = _mm256_add_ps(v, _mm256_set1_ps(bias[i]));
    if constexpr (kRectify == Rectify::kYes) v = _mm256_max_ps(v, _mm256_setzero_ps());
    _mm256_storeu_ps(dst + i * ldd, v);
  }
}
#endif

template <bool kBias, Rectify kRectify>
void transpose_impl(const float* src, Index rows, Index cols, float* dst, const float* bias) {
  // Column-major src: column j at src + j*rows; dst (cols x rows): column i at dst + i*cols.
  Index j0 = 0;
#if defined(__AVX__)
  for (; j0 + 8 <= cols; j0 += 8) {
    Index i0 = 0;
    for (; i0 + 8 <= rows; i0 += 8)
      transpose8x8<kBias, kRectify>(src + i0 + j0 * rows, rows, dst + j0 + i0 * cols, cols,
                                    kBias ? bias + i0 : nullptr);
    for (Index j = j0; j < j0 + 8; ++j)
      for (Index i = i0; i < rows; ++i)
        dst[j + i * cols] = finish<kBias, kRectify>(src[i + j * rows], kBias ? bias[i] : 0.0f);
  }
#endif
  for (Index j = j0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i)
      dst[j + i * cols] = finish<kBias, kRectify>(src[i + j * rows], kBias ? bias[i] : 0.0f);
}

}  // namespace

void transpose(const float* src, Index rows, Index cols, float* dst) {
  transpose_impl<false, Rectify::kNo>(src, rows, cols, dst, nullptr);
}

void transpose_add(const float* src, Index rows, Index cols, const float* row_bias, Rectify rectify,
                   float* dst) {
  if (rectify == Rectify::kYes) {
    transpose_impl<true, Rectify::kYes>(src, rows, cols, dst, row_bias);
  } else {
    transpose_impl<true, Rectify::kNo>(src, rows, cols, dst, row_bias);
  }
}

}  // namespace dlsim::models::layers
