#include "models/layers/gemm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "models/layers/simd.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace dlsim::models::layers {

namespace {

using simd::Vec;
constexpr Index kW = simd::kWidth;

// Register tile: two vectors of rows of C (32 with AVX-512, 16 with AVX2, 8 with SSE2 or NEON)
// x up to kMaxNr columns. Per k step: two loads of A, kMaxNr broadcasts of B, 2 x kMaxNr FMAs.
// With 32 registers: 28 accumulators + 2 of A + 1 broadcast; with 16: 12 + 2 + 1.
// A is read in place; its 2 x kWidth x kKc block stays in L1 while the column tiles sweep B.
constexpr Index kMr = 2 * kW;
constexpr Index kMaxNr = simd::kRegisters == 32 ? 14 : 6;
constexpr Index kKc = 256;
// A is read in place with a column stride of lda floats; the hardware prefetchers do not follow
// such a stream across pages (wide weights, such as a CNN's 512 x 3136 layer, slow down most),
// so the kernel prefetches A kPrefetch columns ahead (tools/bench/train_step_bench.cpp tells).
constexpr Index kPrefetch = 32;

using Kernel = void (*)(Index kc, const float* a, Index lda, const float* b, Index ldb,
                        const Index* boff, float* c, Index ldc, float alpha, bool accumulate,
                        Index lanes);

// B element (p, j): b[p*ldb + j] (row-major), b[p + j*ldb] (column-major) or b[boff[p] + j].
// NV vectors of rows, the last one partial (`lanes` rows) when kPartial. Every element of C is
// one chain of fused multiply-adds over p, whatever the tile: the results do not depend on kW.
template <int NV, int NR, Layout L, bool kPartial>
void micro_kernel(Index kc, const float* a, Index lda, const float* b, Index ldb, const Index* boff,
                  float* c, Index ldc, float alpha, bool accumulate, Index lanes) {
  // Built here, not passed: AVX2's tail is a 64-byte struct, which a call passes on the stack.
  const simd::Tail tail = simd::tail(kPartial ? lanes : kW);
  auto load_a = [&](const float* p, int v) {
    return kPartial && v == NV - 1 ? simd::load_tail(p, tail) : simd::load(p);
  };
  Vec acc[NV][NR];
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
    acc[0][j] = simd::zero();
    if constexpr (NV == 2) acc[1][j] = simd::zero();
  }
  const auto ahead = static_cast<uintptr_t>(kPrefetch * lda) * sizeof(float);  // may pass the end
  constexpr int kLines = (NV * kW * sizeof(float) + 63) / 64;
  for (Index p = 0; p < kc; ++p) {
    const float* ap = a + p * lda;
    const auto next = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(ap) + ahead);
    for (int line = 0; line < kLines; ++line) simd::prefetch(next + 64 * line);
    const Vec a0 = load_a(ap, 0);
    Vec a1 = a0;
    if constexpr (NV == 2) a1 = load_a(ap + kW, 1);
    const float* brow = L == Layout::kRowOffsets ? b + boff[p] : b + p * ldb;
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j) {
      const float bj = L == Layout::kColMajor ? b[p + j * ldb] : brow[j];
      const Vec bv = simd::set1(bj);
      acc[0][j] = simd::fmadd(a0, bv, acc[0][j]);
      if constexpr (NV == 2) acc[1][j] = simd::fmadd(a1, bv, acc[1][j]);
    }
  }
  const Vec va = simd::set1(alpha);
#pragma GCC unroll 16
  for (int j = 0; j < NR; ++j) {
    float* cj = c + j * ldc;
    for (int v = 0; v < NV; ++v) {
      if (kPartial && v == NV - 1) {
        const Vec old = accumulate ? simd::load_tail(cj + kW * v, tail) : simd::zero();
        simd::store_tail(cj + kW * v, simd::fmadd(acc[v][j], va, old), tail);
      } else {
        const Vec old = accumulate ? simd::load(cj + kW * v) : simd::zero();
        simd::store(cj + kW * v, simd::fmadd(acc[v][j], va, old));
      }
    }
  }
}

// With 16-row tiles (AVX2) each k step of the kernel reads one cache line of A, a column of a
// wide weight matrix: with lda a multiple of 1024 floats every such line falls into the same L1
// set, and the block is evicted before the next column tile reads it again (the 784-1024x3 MLP
// ran 20 % slower than Eigen's packed product). Copied into a contiguous buffer first, the block
// stays in L1 for all the column tiles. The AVX-512 kernel's 32 x 14 tiles read each line for
// twice as many multiply-adds, and were measured faster in place: it keeps A where it is.
// Only wide strides alias so: a convolution's filters (lda 6 to 64) were slower packed.
constexpr bool kPackA = kW < 16;
constexpr Index kPackStride = 512;

// dst (mr x kc, leading dimension kMr) = the A block at a (leading dimension lda).
void pack(const float* a, Index lda, Index mr, Index kc, float* dst) {
  for (Index p = 0; p < kc; ++p) {
    const float* src = a + p * lda;
    float* out = dst + p * kMr;
    Index i = 0;
    for (; i + kW <= mr; i += kW) simd::store(out + i, simd::load(src + i));
    if (i < mr) simd::store(out + i, simd::load_first(src + i, mr - i));
  }
}

using KernelRow = std::array<Kernel, kMaxNr>;

template <int NV, Layout L, bool kPartial, size_t... J>
constexpr KernelRow kernel_row(std::index_sequence<J...>) {
  return {&micro_kernel<NV, static_cast<int>(J) + 1, L, kPartial>...};
}

// [nv - 1][partial][nr - 1]
template <Layout L>
constexpr std::array<std::array<KernelRow, 2>, 2> kernel_table() {
  constexpr auto columns = std::make_index_sequence<kMaxNr>{};
  return {{{kernel_row<1, L, false>(columns), kernel_row<1, L, true>(columns)},
           {kernel_row<2, L, false>(columns), kernel_row<2, L, true>(columns)}}};
}

// kKernels[layout][nv - 1][partial][nr - 1]
const std::array<std::array<std::array<KernelRow, 2>, 2>, 3> kKernels = {
    kernel_table<Layout::kColMajor>(), kernel_table<Layout::kRowMajor>(),
    kernel_table<Layout::kRowOffsets>()};

}  // namespace

void gemm(Index m, Index n, Index k, float alpha, const float* a, Index lda, Operand b, float* c,
          Index ldc, Accumulate acc) {
  if (k == 0) {
    if (acc == Accumulate::kNo)
      for (Index j = 0; j < n; ++j) std::fill_n(c + j * ldc, m, 0.0f);
    return;
  }
  const auto layout = static_cast<size_t>(b.layout);
  // The A block at (i0, p0) is read from `block` with leading dimension `ld`: in place, or packed.
  auto tile = [&](Index i0, Index p0, Index j0, Index nr, const float* block, Index ld) {
    const Index mr = std::min(kMr, m - i0), kc = std::min(kKc, k - p0);
    const Index nv = mr > kW ? 2 : 1, lanes = mr - (nv - 1) * kW;
    const float* bp = b.layout == Layout::kColMajor   ? b.data + p0 + j0 * b.ld
                      : b.layout == Layout::kRowMajor ? b.data + p0 * b.ld + j0
                                                      : b.data + j0;
    const Index* boff = b.row_offsets == nullptr ? nullptr : b.row_offsets + p0;
    kKernels[layout][nv - 1][lanes < kW ? 1 : 0][nr - 1](kc, block, ld, bp, b.ld, boff,
                                                         c + i0 + j0 * ldc, ldc, alpha,
                                                         p0 > 0 || acc == Accumulate::kYes, lanes);
  };
  // Column tiles of (nearly) equal width <= kMaxNr: no narrow remainder tile.
  const Index tiles = (n + kMaxNr - 1) / kMaxNr;
  const Index narrow = n / tiles, wide_tiles = n % tiles;
  auto width = [&](Index j0) { return j0 < wide_tiles * (narrow + 1) ? narrow + 1 : narrow; };
  // Row blocks outside: B is swept once per kMr rows of A while the A block stays in L1. When A
  // is small (fits in L2) and B is larger, column tiles outside instead: B is read once and A
  // re-read from cache (conv backward: A = dz^T, B = the 600 KiB im2col buffer).
  const bool a_small = m * std::min(k, kKc) * 4 <= (256 << 10) && m * k < k * n;
  for (Index p0 = 0; a_small && p0 < k; p0 += kKc)
    for (Index j0 = 0; j0 < n; j0 += width(j0))
      for (Index i0 = 0; i0 < m; i0 += kMr) tile(i0, p0, j0, width(j0), a + i0 + p0 * lda, lda);
  alignas(64) float packed[kPackA ? kMr * kKc : 1];
  for (Index i0 = 0; !a_small && i0 < m; i0 += kMr) {
    for (Index p0 = 0; p0 < k; p0 += kKc) {
      const float* block = a + i0 + p0 * lda;
      Index ld = lda;
      if (kPackA && tiles > 1 && lda >= kPackStride) {
        pack(block, lda, std::min(kMr, m - i0), std::min(kKc, k - p0), packed);
        block = packed;
        ld = kMr;
      }
      for (Index j0 = 0; j0 < n; j0 += width(j0)) tile(i0, p0, j0, width(j0), block, ld);
    }
  }
}

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
