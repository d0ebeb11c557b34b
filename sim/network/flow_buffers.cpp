#include "sim/network/flow_buffers.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

FlowBuffers::FlowBuffers(const SendBufferConfig& config, uint32_t nodes)
    : config_(config), pairs_(nodes), over_(nodes) {}

FlowBuffers::Pair& FlowBuffers::pair(uint32_t from, uint32_t to) {
  std::vector<Pair>& list = pairs_[from];
  auto it = std::lower_bound(list.begin(), list.end(), to,
                             [](const Pair& p, uint32_t v) { return p.to < v; });
  if (it == list.end() || it->to != to) it = list.insert(it, Pair{to, {}});
  return *it;
}

bool FlowBuffers::over(const Pair& p, bool with_new, uint64_t new_bytes) const {
  const size_t count = p.held.size() + (with_new ? 1 : 0);
  if (config_.messages != 0) return count > config_.messages;
  if (count <= 1) return false;  // one message always fits
  uint64_t held = with_new ? new_bytes : 0;
  for (const Held& h : p.held) held += h.bytes;
  return held > config_.bytes;
}

SendBuffers::Decision FlowBuffers::offer(uint32_t from, uint32_t to, uint64_t bytes,
                                         Buffering buffering, uint32_t slot) {
  using Verdict = SendBuffers::Verdict;
  if (!config_.bounded()) return {Verdict::kEnter, slot};
  Pair& p = pair(from, to);
  const bool full = over(p, true, bytes);
  if (full && buffering == Buffering::kLatestValue) {
    if (config_.when_full == WhenFull::kDrop) return {Verdict::kDrop, 0};
    if (config_.when_full == WhenFull::kCoalesce && p.held.back().bytes == bytes)
      return {Verdict::kSupersede, p.held.back().slot};
  }
  const bool was_over = over(p, false, 0);
  p.held.push_back(Held{bytes, slot});
  if (!was_over && over(p, false, 0)) ++over_[from];
  return {Verdict::kEnter, slot};
}

bool FlowBuffers::ended(uint32_t from, uint32_t to, uint32_t slot) {
  if (!config_.bounded()) return false;
  Pair& p = pair(from, to);
  auto it =
      std::find_if(p.held.begin(), p.held.end(), [&](const Held& h) { return h.slot == slot; });
  DLSIM_CHECK(it != p.held.end(), "slot {} ended but is not held {} -> {}", slot, from, to);
  const bool was_over = over(p, false, 0);
  p.held.erase(it);
  const bool still_over = over(p, false, 0);
  // An empty buffer is forgotten: a run whose agents meet ever new peers keeps only live pairs.
  if (p.held.empty()) {
    std::vector<Pair>& list = pairs_[from];
    list.erase(list.begin() + (&p - list.data()));
  }
  if (!was_over || still_over) return false;
  return --over_[from] == 0;
}

void FlowBuffers::archive(StateArchive& ar) {
  ar.expect<uint64_t>(pairs_.size(), "another network: send buffer count");
  for (std::vector<Pair>& list : pairs_) {
    const uint64_t n = ar.count(list.size());
    if (ar.loading()) list.resize(n);
    for (Pair& p : list) {
      ar.value(p.to);
      ar.vector(p.held);
    }
  }
  ar.sized_vector(over_, "another network: blocked senders");
}

}  // namespace dlsim
