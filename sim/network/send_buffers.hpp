// Bounded send buffers (network.send_buffer, network.when_full): per (sender, destination) pair,
// the messages offered and not yet on the wire, i.e. queued behind others at their first
// serialiser (the sender's NIC uplink, or its first link when it has none). Timing stays the
// FIFO store-and-forward of link.hpp: a message's start on its first serialiser is fixed when it
// is offered, so the buffer holds (start, slot, bytes) and a message leaves it at its start.
// When an offer finds its buffer full:
//   kLatestValue messages (a copy whose newer version makes the older worthless), when_full
//     "coalesce": the newest waiting message is replaced by the new one (same slot, same place
//     in the queue, same size: the copy travels, the older is counted superseded; a copy of
//     another size blocks instead); "drop": the new one is refused; "block": as below.
//   kEveryMessage messages (requests, replies, exchanges, all-reduce pieces, compressed deltas
//     that build on each other) and "block": the message is queued beyond the bound, and the
//     sender is blocked until its buffer is back within the bound (blocked_until()), as a
//     blocking socket's write returns once its data fit in the buffer.
// Also LoadWatch: per first serialiser, a virtual FIFO of every offered message (discarded ones
// too); a stretch in which it never caught up that lasts kOverloadStretch is an overload.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "sim/core/state_archive.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

enum class WhenFull : uint8_t { kCoalesce, kBlock, kDrop };

/// What a message is to its receiver: only the latest copy matters, or every message must come.
enum class Buffering : uint8_t { kEveryMessage, kLatestValue };

/// The bound on each (sender, destination) buffer: messages, or bytes (one of them non-zero);
/// both 0: unbounded (nothing is ever superseded, dropped or blocked).
struct SendBufferConfig {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  WhenFull when_full = WhenFull::kCoalesce;
  bool bounded() const { return messages != 0 || bytes != 0; }
};

/// Per sender, a short list of `Entry` for each destination it has a buffer to, kept sorted by
/// destination: the layout both send buffers keep (SendBuffers, and FlowBuffers under max-min
/// sharing). An empty list is forgotten on request, so a sender that meets ever new peers (a
/// dynamic topology) keeps only the buffers that hold something.
template <class Entry>
class BufferPairs {
 public:
  explicit BufferPairs(uint32_t nodes) : pairs_(nodes) {}

  /// from -> to's list, made (empty) when from had none.
  std::vector<Entry>& at(uint32_t from, uint32_t to) {
    std::vector<Pair>& list = pairs_[from];
    auto it = find(list, to);
    if (it == list.end() || it->to != to) it = list.insert(it, Pair{to, {}});
    return it->entries;
  }
  /// from -> to's list, or null when from has none.
  const std::vector<Entry>* find_list(uint32_t from, uint32_t to) const {
    const std::vector<Pair>& list = pairs_[from];
    const auto it = std::lower_bound(list.begin(), list.end(), to,
                                     [](const Pair& p, uint32_t v) { return p.to < v; });
    return it == list.end() || it->to != to ? nullptr : &it->entries;
  }
  /// Forgets from -> to's list when it is empty (it must exist).
  void forget_if_empty(uint32_t from, uint32_t to) {
    std::vector<Pair>& list = pairs_[from];
    const auto it = find(list, to);
    if (it->entries.empty()) list.erase(it);
  }
  /// Forgets every list of `from` (all empty).
  void forget_all(uint32_t from) { pairs_[from].clear(); }
  /// The lists `from` keeps now.
  size_t kept(uint32_t from) const { return pairs_[from].size(); }

  /// Entry: trivially copyable, without unnamed padding (its bytes are written).
  void archive(StateArchive& ar) {
    ar.expect<uint64_t>(pairs_.size(), "another network: send buffer count");
    for (std::vector<Pair>& list : pairs_)
      ar.items(list, [&ar](Pair& p) {
        ar.value(p.to);
        ar.vector(p.entries);
      });
  }

 private:
  struct Pair {
    uint32_t to = 0;
    std::vector<Entry> entries;
  };
  static typename std::vector<Pair>::iterator find(std::vector<Pair>& list, uint32_t to) {
    return std::lower_bound(list.begin(), list.end(), to,
                            [](const Pair& p, uint32_t v) { return p.to < v; });
  }

  std::vector<std::vector<Pair>> pairs_;  // per sender, sorted by destination
};

class SendBuffers {
 public:
  SendBuffers(const SendBufferConfig& config, uint32_t nodes);

  enum class Verdict : uint8_t { kEnter, kSupersede, kDrop };
  struct Decision {
    Verdict verdict = Verdict::kEnter;
    uint32_t slot = 0;  ///< kEnter: the slot given; kSupersede: the waiting message's slot
  };
  /// A message of `bytes` (wire bytes) from -> to offered at `now` that its first serialiser
  /// would start at `start` (>= now). kEnter records it in `slot`; kSupersede: the message in
  /// the returned slot now carries the new one; kDrop: nothing is recorded.
  Decision offer(SimTime now, uint32_t from, uint32_t to, uint64_t bytes, SimTime start,
                 Buffering buffering, uint32_t slot);
  /// The message just entered from -> to was lost on its first link at once (its slot is free
  /// again; it waits in its buffer when its start is later): an offer superseding it is lost
  /// with it.
  void lost_at_once(uint32_t from, uint32_t to, uint32_t slot);
  /// Marks a waiting entry whose message was lost; superseding it loses the newer one too.
  static constexpr uint32_t kLostSlot = 0xffffffffu;
  /// When `node` may go on: its buffers are back within the bound (<= now: not blocked).
  SimTime blocked_until(uint32_t node) const { return blocked_until_[node]; }
  /// Bytes waiting in `from`'s buffers after its last offer (at that offer's time). Per
  /// sender, not summed over the network: what each node holds depends only on its own
  /// messages, so it is the same however a run is partitioned.
  uint64_t queued_bytes(uint32_t from) const { return queued_bytes_[from]; }
  /// When the message in `slot` (from -> to) leaves its buffer for the wire: until then an offer
  /// may coalesce a newer copy into it. SimTime{} when it never waited (or its buffer forgot it).
  SimTime leaves_at(uint32_t from, uint32_t to, uint32_t slot) const {
    SimTime latest{};
    if (const std::vector<Waiting>* waiting = pairs_.find_list(from, to))
      for (const Waiting& w : *waiting)
        if (w.slot == slot) latest = max(latest, w.start);  // a reused slot's old entry is earlier
    return latest;
  }
  /// The (from, destination) buffers `from` keeps now: those that may hold waiting messages.
  size_t buffers_kept(uint32_t from) const { return pairs_.kept(from); }

  void archive(StateArchive& ar);

 private:
  struct Waiting {
    SimTime start;
    uint64_t bytes;
    uint32_t slot;
    uint32_t zero = 0;  // the padding, named: checkpoints write these bytes
  };
  bool full(const std::vector<Waiting>& waiting, uint64_t bytes) const;
  SimTime room_at(const std::vector<Waiting>& waiting) const;
  void expire(uint32_t from, SimTime now);
  void queue(uint32_t from, SimTime start, uint64_t bytes);

  SendBufferConfig config_;
  // Per (sender, destination): the messages waiting, in start order (one FIFO serialiser);
  // short: about the bound.
  BufferPairs<Waiting> pairs_;
  std::vector<SimTime> blocked_until_;  // per node
  std::vector<SimTime> last_start_;     // per node: the latest start of its waiting messages
  struct Queued {
    SimTime start;
    uint64_t bytes;
  };
  std::vector<std::vector<Queued>> waiting_;  // per sender: its waiting messages, min-heap on start
  std::vector<uint64_t> queued_bytes_;        // per sender: their bytes
};

/// Flags the first serialisers (link or uplink) offered more than they carry for a long stretch.
class LoadWatch {
 public:
  /// Backlogged without a pause for this long (simulated) counts as overloaded.
  static constexpr SimTime kOverloadStretch = SimTime::from_ms(1000);

  explicit LoadWatch(uint32_t resources) : state_(resources) {}
  /// A message of `bytes` (wire bytes) offered at `now` (discarded ones too) to `resource`
  /// of `bandwidth_bps`. Returns the utilisation over the stretch the first time the
  /// resource's stretch reaches kOverloadStretch; nullopt otherwise. *since: its start.
  std::optional<double> offered(SimTime now, uint32_t resource, uint64_t bytes,
                                uint64_t bandwidth_bps, SimTime* since) {
    return offered(state_[resource], now, bytes, bandwidth_bps, since);
  }

  /// One resource's watch, for resources kept elsewhere (complete_links.hpp).
  struct State {
    SimTime offered_until;  ///< when the virtual FIFO of every offered message would be idle
    SimTime since;          ///< start of its current backlogged stretch
    uint8_t warned = 0;
    uint8_t unused[7] = {};  // written to checkpoints: no unnamed padding
    /// As a resource never offered anything (a stretch that ended, no warning yet).
    bool idle(SimTime now) const { return offered_until <= now && warned == 0; }
  };
  static_assert(std::has_unique_object_representations_v<State>);
  static std::optional<double> offered(State& state, SimTime now, uint64_t bytes,
                                       uint64_t bandwidth_bps, SimTime* since);

  void archive(StateArchive& ar) { ar.sized_vector(state_, "another network: load watch"); }

 private:
  std::vector<State> state_;
};

}  // namespace dlsim
