// Pending events, popped in (time, key) order (event.hpp: time, origin, origin counter). A radix heap on the time (Ahuja, Mehlhorn, Orlin
// and Tarjan, "Faster algorithms for the shortest path problem", 1990): a simulator schedules
// only at or after the current time, so no pending event is earlier than the last one popped.
// Bucket b > 0 holds the events whose time first differs from that last time in bit b-1, bucket
// 0 those at exactly that time, in key order. An event only ever moves to lower buckets (at most
// 64 moves, a few in practice), each move a sequential copy, so there are few cache misses; it
// trades some memory per pending event for that against a binary or 4-ary heap
// (tools/bench/engine_bench.cpp compares them).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.hpp"

namespace dlsim {

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  /// The earliest event. Precondition: !empty().
  const Event& top() const { return buckets_[0][head_]; }
  /// Adds an event; the caller has set time, key (a fresh origin counter), agent, payload.
  /// Amortised O(1) when e.time is not before the last popped event's time (always so under a
  /// Simulator); an earlier event is still ordered correctly but costs O(size()).
  void push(const Event& e) {
    const uint64_t t = ordinal(e);
    if (t <= last_ || size_ == 0) {
      push_not_after_last(e);
      return;
    }
    ++size_;
    const unsigned b = bucket_of(t);  // > 0, since t > last_
    if (buckets_[b].size() == buckets_[b].capacity()) grow(buckets_[b]);
    buckets_[b].push_back(e);
    occupied_ |= uint64_t{1} << (b - 1);
  }
  /// Removes and returns the earliest event. Precondition: !empty().
  Event pop() {
    const Event result = buckets_[0][head_++];
    if (--size_ == 0 || head_ == buckets_[0].size()) next_time();
    return result;
  }
  /// Kept for callers that size the queue up front: the buckets size themselves, so a no-op.
  void reserve(size_t) {}
  void clear();
  /// Every pending event, in (time, key) order: what a checkpoint saves.
  std::vector<Event> pending() const;

 private:
  static constexpr size_t kBuckets = 65;
  /// The time as an unsigned number with the same order.
  static uint64_t ordinal(const Event& e) {
    return static_cast<uint64_t>(e.time.ns) ^ (uint64_t{1} << 63);
  }
  unsigned bucket_of(uint64_t t) const {
    return t == last_ ? 0 : 64 - static_cast<unsigned>(std::countl_zero(t ^ last_));
  }
  void push_not_after_last(Event e);  // by value: `e` may live in this queue
  void next_time();
  void rebuild(const Event& earliest);
  void compact_now();
  void grow(std::vector<Event>& bucket);  // makes room for one more event, from spare_ if it can

  std::array<std::vector<Event>, kBuckets> buckets_;
  size_t head_ = 0;  // bucket 0 is consumed from here on
  size_t size_ = 0;
  uint64_t last_ = 0;      // ordinal of bucket 0's time; no pending event is earlier
  uint64_t occupied_ = 0;  // bit b-1 set while bucket b > 0 is non-empty
  std::vector<Event> spare_;  // empty storage kept from an emptied large bucket
};

}  // namespace dlsim
