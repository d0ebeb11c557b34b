// One vector register of floats, as GCC's vector extension: the unit in which a tile's rows
// (selection_network.hpp) are loaded, compared and stored. Every pass over a tile moves its rows
// in parts of this width, so that a load always meets a store of its own size (a wider load over
// narrower stores cannot be forwarded and stalls).
#pragma once

#include <cstddef>

#include "sim/robust/selection_network.hpp"

namespace dlsim {

#if defined(__AVX512F__)
inline constexpr size_t kVectorLanes = 16;
#elif defined(__AVX__)
inline constexpr size_t kVectorLanes = 8;
#else
inline constexpr size_t kVectorLanes = 4;
#endif
using FloatVector = float __attribute__((vector_size(kVectorLanes * sizeof(float))));
static_assert(kTileLanes % kVectorLanes == 0);
/// Vectors per tile row.
inline constexpr size_t kRowParts = kTileLanes / kVectorLanes;

}  // namespace dlsim
