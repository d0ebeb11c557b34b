// Pending events in a 4-ary min-heap on (time, seq). A 4-ary heap halves the depth of a binary
// heap and keeps the four children of a node in one cache line pair, which is what makes 10^7
// events/s with 10^5 pending reachable (see tools/bench/engine_bench.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/event.hpp"

namespace dlsim {

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  /// The earliest event. Precondition: !empty().
  const Event& top() const { return heap_.front(); }
  /// Adds an event; the caller has set time, key (with a fresh sequence number), agent, payload.
  void push(const Event& e);
  /// Removes and returns the earliest event. Precondition: !empty().
  Event pop();
  void reserve(size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); }

 private:
  static constexpr size_t kArity = 4;
  std::vector<Event> heap_;
};

}  // namespace dlsim
