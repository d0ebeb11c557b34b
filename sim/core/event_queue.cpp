#include "sim/core/event_queue.hpp"

#include <algorithm>

namespace dlsim {
namespace {

// Bucket 0's consumed front is dropped once it is this long and at least half the bucket, so a
// long run of events at one instant does not keep every popped event in memory.
constexpr size_t kCompactAfter = 1024;
// A bucket emptied by next_time() keeps at most this capacity: memory then follows the events
// pending now, not the sum of every bucket's peak. Larger storage, up to kSpareCapacity (1.5 MiB),
// goes to the one spare, which the next bucket to fill up takes over instead of regrowing (and
// page-faulting) by doubling: rounds of a few thousand messages reuse one buffer.
constexpr size_t kKeepCapacity = 4096;
constexpr size_t kSpareCapacity = size_t{1} << 16;

bool key_before(const Event& a, const Event& b) { return a.key < b.key; }

}  // namespace

void EventQueue::push_not_after_last(Event e) {
  if (size_ == 0) last_ = ordinal(e);  // an empty queue restarts at any time
  if (ordinal(e) < last_) {
    rebuild(e);
    return;
  }
  compact_now();
  std::vector<Event>& now = buckets_[0];
  if (now.size() == now.capacity()) grow(now);
  // An event for now goes after every pending one of smaller key: at the end when the highest
  // origin pending schedules it, before the larger origins' otherwise. A binary search and one
  // memmove, so k events at one instant from k origins cost O(k log k) compares, not k^2 swaps.
  const auto pending = now.begin() + static_cast<std::ptrdiff_t>(head_);
  now.insert(std::upper_bound(pending, now.end(), e, key_before), e);
  ++size_;
}

void EventQueue::compact_now() {
  std::vector<Event>& now = buckets_[0];
  if (head_ < kCompactAfter || 2 * head_ < now.size()) return;
  now.erase(now.begin(), now.begin() + static_cast<std::ptrdiff_t>(head_));
  head_ = 0;
}

void EventQueue::next_time() {
  buckets_[0].clear();
  head_ = 0;
  if (size_ == 0) return;
  // The lowest non-empty bucket holds the next time; its events spread over lower buckets
  // relative to that time, and those exactly at it land in bucket 0.
  const unsigned b = static_cast<unsigned>(std::countr_zero(occupied_)) + 1;
  std::vector<Event>& from = buckets_[b];
  uint64_t earliest = ordinal(from.front());
  for (const Event& e : from) earliest = std::min(earliest, ordinal(e));
  last_ = earliest;
  for (const Event& e : from) {
    const unsigned to = bucket_of(ordinal(e));
    buckets_[to].push_back(e);
    if (to > 0) occupied_ |= uint64_t{1} << (to - 1);
  }
  occupied_ &= ~(uint64_t{1} << (b - 1));
  from.clear();
  if (from.capacity() > kKeepCapacity) {
    const bool keep = from.capacity() > spare_.capacity() && from.capacity() <= kSpareCapacity;
    if (keep) from.swap(spare_);
    std::vector<Event>().swap(from);
  }
  // Bucket b kept insertion order, which is not key order for events that moved buckets or came
  // from several origins (it often is: one batch of sends, from one origin, in counter order).
  std::vector<Event>& now = buckets_[0];
  if (!std::is_sorted(now.begin(), now.end(), key_before))
    std::sort(now.begin(), now.end(), key_before);
}

void EventQueue::grow(std::vector<Event>& bucket) {
  if (spare_.capacity() >= 2 * bucket.size() + 16) {  // at least what doubling would give
    spare_.assign(bucket.begin(), bucket.end());
    bucket.swap(spare_);
    spare_.clear();
    if (spare_.capacity() > kKeepCapacity) std::vector<Event>().swap(spare_);
  } else {
    bucket.reserve(2 * bucket.size() + 16);
  }
}

void EventQueue::rebuild(const Event& earliest) {
  // `earliest` precedes every pending event: restart the buckets from its time.
  std::vector<Event> all{earliest};
  all.reserve(size_ + 1);
  all.insert(all.end(), buckets_[0].begin() + static_cast<std::ptrdiff_t>(head_),
             buckets_[0].end());
  for (size_t b = 1; b < kBuckets; ++b)
    all.insert(all.end(), buckets_[b].begin(), buckets_[b].end());
  clear();
  for (const Event& e : all) push(e);
}

void EventQueue::clear() {
  for (std::vector<Event>& bucket : buckets_) bucket.clear();
  head_ = 0;
  size_ = 0;
  occupied_ = 0;
}

std::vector<Event> EventQueue::pending() const {
  std::vector<Event> out(buckets_[0].begin() + static_cast<std::ptrdiff_t>(head_),
                         buckets_[0].end());
  for (size_t b = 1; b < kBuckets; ++b)
    out.insert(out.end(), buckets_[b].begin(), buckets_[b].end());
  std::sort(out.begin(), out.end(), runs_before);
  return out;
}

}  // namespace dlsim
