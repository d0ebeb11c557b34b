#include "sim/scenario/algorithms/compressed_gain.hpp"

namespace dlsim {

// The consensus gain must stay within a small multiple of what one message carries of a change,
// the compression's contraction factor delta; the theory's bound is linear in delta too.
void warn_about_compressed_gain(World& w, const char* key, const std::function<double()>& gain_of) {
  constexpr double kGainPerDelta = 4.0;  // measured: docs/compression.md's table
  const CompressionSpec& c = w.spec.algorithm.compression;
  // The factor was measured with sparsifiers; a quantizer's delta is a worst-case bound (rescaled
  // qsgd4 after top 1 % trains at 29 x it), so quantized messages are not judged.
  if (!c.enabled() || w.spec.dynamic || c.quantizer != Quantizer::kFloat32) return;
  const std::optional<double> delta = c.contraction(w.parameter_count());
  if (!delta) return;
  const double gain = gain_of();
  if (gain > kGainPerDelta * *delta)
    w.warnings.push_back(fmt::format(
        "{}: {}: the consensus gain {:.3g} (per iteration, the largest agent's) is more than {} "
        "times the compression's contraction factor {:.3g}: with error feedback the copies cannot "
        "follow and the agents fall to chance (docs/compression.md, \"Stable consensus "
        "steps\"); a gain up to {:.3g} trained",
        w.spec.file, key, gain, kGainPerDelta, *delta, kGainPerDelta * *delta));
}

}  // namespace dlsim
