#include "sim/network/flow_buffers.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

FlowBuffers::FlowBuffers(const SendBufferConfig& config, uint32_t nodes)
    : config_(config), pairs_(nodes), over_(nodes) {}

bool FlowBuffers::over(const std::vector<Held>& held, bool with_new, uint64_t new_bytes) const {
  const size_t count = held.size() + (with_new ? 1 : 0);
  if (config_.messages != 0) return count > config_.messages;
  if (count <= 1) return false;  // one message always fits
  uint64_t bytes = with_new ? new_bytes : 0;
  for (const Held& h : held) bytes += h.bytes;
  return bytes > config_.bytes;
}

SendBuffers::Decision FlowBuffers::offer(uint32_t from, uint32_t to, uint64_t bytes,
                                         Buffering buffering, uint32_t slot) {
  using Verdict = SendBuffers::Verdict;
  if (!config_.bounded()) return {Verdict::kEnter, slot};
  std::vector<Held>& held = pairs_.at(from, to);
  const bool full = over(held, true, bytes);
  if (full && buffering == Buffering::kLatestValue) {
    if (config_.when_full == WhenFull::kDrop) return {Verdict::kDrop, 0};
    if (config_.when_full == WhenFull::kCoalesce && held.back().bytes == bytes)
      return {Verdict::kSupersede, held.back().slot};
  }
  const bool was_over = over(held, false, 0);
  held.push_back(Held{bytes, slot});
  if (!was_over && over(held, false, 0)) ++over_[from];
  return {Verdict::kEnter, slot};
}

bool FlowBuffers::ended(uint32_t from, uint32_t to, uint32_t slot) {
  if (!config_.bounded()) return false;
  std::vector<Held>& held = pairs_.at(from, to);
  auto it = std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.slot == slot; });
  DLSIM_CHECK(it != held.end(), "slot {} ended but is not held {} -> {}", slot, from, to);
  const bool was_over = over(held, false, 0);
  held.erase(it);
  const bool still_over = over(held, false, 0);
  // An empty buffer is forgotten: a run whose agents meet ever new peers keeps only live pairs.
  pairs_.forget_if_empty(from, to);
  if (!was_over || still_over) return false;
  return --over_[from] == 0;
}

void FlowBuffers::archive(StateArchive& ar) {
  pairs_.archive(ar);
  ar.sized_vector(over_, "another network: blocked senders");
}

}  // namespace dlsim
