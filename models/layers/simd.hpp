// The vector unit the layers' hand-written kernels (gemm, sparse products, im2col, pooling) are
// written for, picked at compile time from the instruction set: AVX-512 (16 floats), AVX2 (8;
// fused multiply-add when FMA is on too), SSE2 or ARM NEON (4), or else plain arrays of 4 floats.
// Each kernel is written once over kWidth with these operations; per element its arithmetic is
// the same whatever the width (the same sums in the same order), so only fused against unfused
// multiply-adds (FMA) change results between backends.
//
// Every backend defines, in namespace simd:
//   Vec, kWidth, kRegisters (vector registers), kFused (whether fmadd rounds once)
//   Vec zero(); set1(float); load(const float*); store(float*, Vec)      (unaligned)
//   Vec add, sub, mul, fmadd(a, b, c) = a * b + c
//   unsigned differs(Vec a, Vec b): lane bits where a != b (NaN differs); greater(a, b): a > b;
//     equal(a, b): a == b
//   Vec select(unsigned lanes, Vec a, Vec b): a in the given lanes, b elsewhere
//   Tail tail(n), n >= 0: the first min(n, kWidth) lanes; Vec load_tail(p, Tail) reads only those
//     (0 elsewhere); store_tail(p, v, Tail) writes only those
//   Vec load_range(p, lo, hi): lanes [lo, hi) of p, 0 elsewhere; reads nothing else
//   Index compress_store(float* dst, Vec v, unsigned lanes): the given lanes of v, in order, at
//     dst; writes up to kWidth floats (the rest is scratch). Returns how many lanes.
//   void compress_positions(uint32_t* dst, uint32_t first, unsigned lanes): first + lane for
//     the given lanes, in order; writes up to kWidth values
//   void deinterleave(Vec a, Vec b, Vec& even, Vec& odd): the even and odd elements of (a, b);
//     interleave(Vec even, Vec odd, Vec& lo, Vec& hi): the inverse
//   Vec load_int_tail(const int32_t*, Tail), store_int_tail(int32_t*, Vec, Tail): small
//     integers held as floats
//   transpose4(const Vec (&d)[4], Vec (&out)[4]): 4 rows of kWidth -> kWidth/4 columns of 4 per
//     vector: out[q] lane 4f + r = d[r] lane q * kWidth / 4 + f
//   Index compress_quads(float* dst, Vec v, unsigned quads): v's groups of 4 lanes whose bit is
//     set, in order, at dst; writes up to kWidth floats. Returns how many groups.
// The ARM NEON backend runs only under QEMU: tools/arm_check.sh builds the models tests for aarch64
// and runs them there; no ARM machine was at hand.
#pragma once

#include <Eigen/Core>
#include <bit>
#include <cstdint>

#if defined(__AVX512F__)
#include "models/layers/simd_avx512.hpp"
#elif defined(__AVX2__)
#include "models/layers/simd_avx2.hpp"
#elif defined(__SSE2__)
#include "models/layers/simd_sse2.hpp"
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include "models/layers/simd_neon.hpp"
#else
#include "models/layers/simd_scalar.hpp"
#endif

namespace dlsim::models::layers::simd {

static_assert(kWidth % 4 == 0, "transpose4 and compress_quads need groups of 4 lanes");

/// The lane bits of the first n lanes, n >= 0.
inline unsigned first_lanes(Eigen::Index n) {
  return n >= kWidth ? (1u << kWidth) - 1u : (1u << n) - 1u;
}

/// Fetches the cache line at p into L1 (a hint: p may be any address).
inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }

inline Vec load_first(const float* p, Eigen::Index n) { return load_tail(p, tail(n)); }
inline void store_first(float* p, Vec v, Eigen::Index n) { store_tail(p, v, tail(n)); }

}  // namespace dlsim::models::layers::simd
