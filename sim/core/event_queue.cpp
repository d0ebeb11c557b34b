#include "sim/core/event_queue.hpp"

namespace dlsim {

void EventQueue::push(const Event& e) {
  size_t hole = heap_.size();
  heap_.push_back(e);
  while (hole > 0) {
    const size_t parent = (hole - 1) / kArity;
    if (!runs_before(e, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

Event EventQueue::pop() {
  const Event result = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return result;
  size_t hole = 0;
  for (;;) {
    const size_t first = hole * kArity + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t end = first + kArity < n ? first + kArity : n;
    for (size_t c = first + 1; c < end; ++c)
      if (runs_before(heap_[c], heap_[best])) best = c;
    if (!runs_before(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return result;
}

}  // namespace dlsim
