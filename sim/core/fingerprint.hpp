// A 64-bit hash over a run: the event trajectory and, at the end, the final parameters. Two runs
// agree on it only if they did the same things at the same times in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "sim/core/random.hpp"

namespace dlsim {

class Fingerprint {
 public:
  void add(uint64_t word) { state_ = mix64(state_ ^ word) + 0x2545f4914f6cdd1dull; }
  /// Folds raw bytes (e.g. a float parameter vector) 8 at a time, then the length.
  void add_bytes(std::span<const std::byte> bytes) {
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, bytes.data() + i, 8);
      add(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
    add(tail);
    add(bytes.size());
  }
  uint64_t value() const { return state_; }
  /// The fingerprint whose value() is `state` (a checkpoint's): adding to it continues the hash.
  static Fingerprint resume_from(uint64_t state) {
    Fingerprint f;
    f.state_ = state;
    return f;
  }

 private:
  uint64_t state_ = 0x6a09e667f3bcc909ull;
};

}  // namespace dlsim
