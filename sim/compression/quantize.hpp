// How each travelling value is coded, applied in place: `values` ends as what the receiver
// decodes. Each is the rule of docs/compression.md; the bit widths are CompressionSpec's.
#pragma once

#include <cstdint>
#include <span>

namespace dlsim {

class RandomStream;

/// QSGD (Alistarh et al. 2017) with s levels: v_i <- ||v|| sign(v_i) l_i / s, where l_i is
/// |v_i| s / ||v|| rounded down or up at random so that E[l_i] = |v_i| s / ||v||: unbiased. One
/// draw from rng per call (a key); each entry's 24-bit uniform comes from (key, index) by a
/// counter-based hash. A zero vector stays zero (and draws nothing). With `rescale` every decoded
/// value is also divided by 1 + omega, omega = min(n / s^2, sqrt(n) / s) for n values: then
/// E||Q(v) - v||^2 <= (1 - 1 / (1 + omega)) ||v||^2 (Koloskova et al. 2019, CHOCO-SGD).
void quantize_qsgd(std::span<float> values, uint32_t levels, RandomStream& rng,
                   bool rescale = false);

/// Sign with one scale: v_i <- m for v_i >= 0 (also +0 and -0), -m below, m = mean |v_i|.
void quantize_sign(std::span<float> values);

/// Deterministic casts through IEEE half and bfloat16 (round to nearest, ties to even; beyond
/// the format's range a value becomes infinite, as on hardware).
void quantize_fp16(std::span<float> values);
void quantize_bf16(std::span<float> values);

}  // namespace dlsim
