#include "sim/network/send_buffers.hpp"

#include <algorithm>
#include <functional>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// std::push_heap with this comparison keeps the earliest start on top.
constexpr auto later_start = [](const auto& l, const auto& r) { return l.start > r.start; };

}  // namespace

SendBuffers::SendBuffers(const SendBufferConfig& config, uint32_t nodes)
    : config_(config),
      pairs_(nodes),
      blocked_until_(nodes),
      last_start_(nodes),
      waiting_(nodes),
      queued_bytes_(nodes, 0) {
  DLSIM_CHECK(config.messages == 0 || config.bytes == 0,
              "a send buffer bounded in messages ({}) and bytes ({})", config.messages,
              config.bytes);
}

bool SendBuffers::full(const std::vector<Waiting>& waiting, uint64_t bytes) const {
  if (config_.messages != 0) return waiting.size() >= config_.messages;
  if (config_.bytes == 0 || waiting.empty()) return false;
  uint64_t held = bytes;
  for (const Waiting& w : waiting) held += w.bytes;
  return held > config_.bytes;
}

SimTime SendBuffers::room_at(const std::vector<Waiting>& waiting) const {
  // The buffer is within the bound once the first k waiting messages are on the wire: at the
  // start of the k-th. A single message always fits.
  const size_t c = waiting.size();
  size_t k = 0;
  if (config_.messages != 0) {
    k = c > config_.messages ? c - config_.messages : 0;
  } else {
    uint64_t held = 0;
    for (const Waiting& w : waiting) held += w.bytes;
    while (c - k > 1 && held > config_.bytes) held -= waiting[k++].bytes;
  }
  return k == 0 ? SimTime{} : waiting[k - 1].start;
}

void SendBuffers::expire(uint32_t from, SimTime now) {
  std::vector<Queued>& heap = waiting_[from];
  while (!heap.empty() && heap.front().start <= now) {
    queued_bytes_[from] -= heap.front().bytes;
    std::pop_heap(heap.begin(), heap.end(), later_start);
    heap.pop_back();
  }
}

SendBuffers::Decision SendBuffers::offer(SimTime now, uint32_t from, uint32_t to, uint64_t bytes,
                                         SimTime start, Buffering buffering, uint32_t slot) {
  expire(from, now);
  // The common case without a pair lookup: the message goes on the wire at once, and every
  // message this sender left waiting has started (its buffers are empty).
  if (start <= now && last_start_[from] <= now) return {Verdict::kEnter, slot};
  if (!config_.bounded()) {  // never full: only the bytes waiting are counted
    if (start > now) queue(from, start, bytes);
    return {Verdict::kEnter, slot};
  }
  // Every message this sender left waiting has started: its buffers are empty, so they are
  // forgotten (on a dynamic topology a sender meets ever new peers; memory stays with the
  // buffers that hold something).
  if (last_start_[from] <= now) pairs_.forget_all(from);
  std::vector<Waiting>& waiting = pairs_.at(from, to);
  auto on_wire =
      std::find_if(waiting.begin(), waiting.end(), [&](const Waiting& w) { return w.start > now; });
  waiting.erase(waiting.begin(), on_wire);
  const bool is_full = config_.bounded() && full(waiting, bytes);
  if (is_full && buffering == Buffering::kLatestValue) {
    if (config_.when_full == WhenFull::kDrop) return {Verdict::kDrop, 0};
    // Coalesce into the newest waiting message: it has the same size (a copy of the same
    // vector), so its place and timing in the queue stay exact.
    if (config_.when_full == WhenFull::kCoalesce && waiting.back().bytes == bytes)
      return {Verdict::kSupersede, waiting.back().slot};
  }
  // A message whose first link changed (a detour around a failed link, network.failures) can
  // start before those still waiting for the old one: the list stays in start order, which is
  // the order messages leave it.
  if (start > now) {
    const auto at = std::upper_bound(waiting.begin(), waiting.end(), start,
                                     [](SimTime t, const Waiting& w) { return t < w.start; });
    waiting.insert(at, Waiting{start, bytes, slot});
    queue(from, start, bytes);
  }
  if (is_full) blocked_until_[from] = max(blocked_until_[from], room_at(waiting));
  // An empty buffer is forgotten too, so a sender that always has something waiting somewhere
  // keeps only the buffers that hold messages.
  pairs_.forget_if_empty(from, to);
  return {Verdict::kEnter, slot};
}

void SendBuffers::queue(uint32_t from, SimTime start, uint64_t bytes) {
  std::vector<Queued>& heap = waiting_[from];
  heap.push_back(Queued{start, bytes});
  std::push_heap(heap.begin(), heap.end(), later_start);
  queued_bytes_[from] += bytes;
  last_start_[from] = max(last_start_[from], start);
}

void SendBuffers::lost_at_once(uint32_t from, uint32_t to, uint32_t slot) {
  for (Waiting& w : pairs_.at(from, to))
    if (w.slot == slot) w.slot = kLostSlot;
}

void SendBuffers::archive(StateArchive& ar) {
  pairs_.archive(ar);
  ar.sized_vector(blocked_until_, "another network: blocked senders");
  ar.sized_vector(last_start_, "another network: blocked senders");
  ar.items(waiting_, [&](std::vector<Queued>& heap) { ar.vector(heap); });
  if (ar.loading() && waiting_.size() != blocked_until_.size())
    ar.fail("another network: send buffers");
  ar.sized_vector(queued_bytes_, "another network: send buffers");
}

std::optional<double> LoadWatch::offered(State& s, SimTime now, uint64_t bytes,
                                         uint64_t bandwidth_bps, SimTime* since) {
  // transmission_time's 128-bit division is not needed below 2^30 bytes (same result).
  const SimTime transmission =
      bytes < (uint64_t{1} << 30)
          ? SimTime{static_cast<int64_t>((bytes * 8000000000u + bandwidth_bps - 1) / bandwidth_bps)}
          : transmission_time(bytes, bandwidth_bps);
  if (s.offered_until <= now) {  // idle: a new stretch begins
    s.since = now;
    s.offered_until = now + transmission;
  } else {
    s.offered_until += transmission;
  }
  if (s.warned || now - s.since < kOverloadStretch) return std::nullopt;
  s.warned = 1;
  *since = s.since;
  return static_cast<double>((s.offered_until - s.since).ns) /
         static_cast<double>((now - s.since).ns);
}
}  // namespace dlsim
