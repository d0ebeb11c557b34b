// Exact top-k by magnitude, fast when it is asked again and again about similar vectors: error
// feedback compresses x - x^ at almost every iteration, and the k-th largest magnitude moves by a
// few percent from one call to the next (docs/compression.md, "Speed").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

class TopKSelector {
 public:
  /// out <- the indices of the k entries of v = x - base with the largest |v_i|, ascending; among
  /// equal magnitudes the lower index wins (NaN ranks above infinity). `base` empty: v = x;
  /// otherwise as long as x. k >= d: every index. The result depends on (x, base, k) only: the
  /// threshold hint one call leaves for the next steers how much work the next one does, never
  /// what it selects. Scratch lists per thread; allocation-free once they and out have grown.
  ///
  /// With a hint (the last k-th largest magnitude, less a margin): one pass reads v and lists the
  /// entries at or above it; when they are at least k (and not too many), a radix select among
  /// them finds the exact k-th largest. Otherwise (the first call, or the hint was too high):
  /// a histogram pass on the magnitudes' top 11 bits finds the bucket of the k-th largest, a
  /// second pass lists the entries from that bucket up, and the same radix select finishes.
  void select(std::span<const float> x, std::span<const float> base, uint64_t k,
              std::vector<uint32_t>& out);

  /// Calls answered after one pass (with the hint) and after two (histogram), so far.
  uint64_t one_pass_calls() const { return one_pass_; }
  uint64_t two_pass_calls() const { return two_pass_; }

 private:
  // Leaves the hint for the next call: the k-th largest magnitude (as its key) less the margin.
  void set_hint(uint32_t kth_key);

  uint32_t hint_key_ = 0;  // magnitude key to list from; 0: none
  float margin_ = 0.05f;   // relative: the hint is (1 - margin) * the last k-th largest
  uint64_t one_pass_ = 0;
  uint64_t two_pass_ = 0;
};

}  // namespace dlsim
