// The agents' side of a checkpoint, described once for saving and loading: parameter snapshots
// (each shared buffer written once, however many copies, messages and neighbours hold it, and
// shared again when loaded), messages, and the agents themselves.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "sim/agents/agent.hpp"
#include "sim/agents/message.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim {

/// The numbers given to snapshots and compressed messages, by identity when saving and by number
/// when loading, with the buffers themselves: kept alive while they have a number, so that no
/// buffer made meanwhile at a freed one's address can take its number. An archive has its own;
/// archives that write one stream in turns share one (AgentArchive::share_numbers).
struct SnapshotNumbers {
  std::unordered_map<const ParamVector*, uint32_t> ids;  // saving, looked up only
  std::unordered_map<const CompressedVector*, uint32_t> delta_ids;
  std::vector<Snapshot> table;  // by number, from 1
  std::vector<Delta> deltas;

  void clear() {
    ids.clear();
    delta_ids.clear();
    table.clear();
    deltas.clear();
  }
};

/// A StateArchive that also walks snapshots by identity: saving writes a buffer's contents the
/// first time it is seen and its number after that; loading gives back one shared buffer per
/// number. One archive per checkpoint, shared by every part that holds snapshots.
class AgentArchive : public StateArchive {
 public:
  using StateArchive::StateArchive;
  AgentArchive(const AgentArchive&) = delete;  // numbers_ may point at its own_
  AgentArchive& operator=(const AgentArchive&) = delete;

  /// A parameter vector of known length.
  void params(ParamVector& x);
  void snapshot(Snapshot& s);
  void delta(Delta& d);
  void parts(Parts& p) { archive_parts(*this, p); }
  /// A message's payload: its type's number in Payload, then what the type's archive() walks.
  void payload(Payload& p);
  void message(Message& m);
  /// A list of any length: its length, then each element; loading replaces the list.
  void list(std::vector<Snapshot>& list) {
    items(list, [this](Snapshot& s) { snapshot(s); });
  }
  void list(std::vector<Message>& list) {
    items(list, [this](Message& m) { message(m); });
  }
  /// A list whose length this run knows (one per neighbour); loading fails when it differs.
  void fixed_list(std::span<Snapshot> list);
  /// Loading: snapshots go into buffers of `pool` (which outlives the archive) rather than new
  /// allocations, for an archive read again and again (messages from another rank).
  void take_snapshots_from(SnapshotPool& pool) { pool_ = &pool; }
  /// Numbers snapshots in `numbers` (which outlives the archive) instead of its own: a buffer
  /// another archive sharing them wrote is a number here (the messages one window sends one
  /// rank, message_shipping.hpp). Before the first snapshot.
  void share_numbers(SnapshotNumbers& numbers) { numbers_ = &numbers; }

 private:
  void save_snapshot(const Snapshot& s);
  Snapshot load_snapshot();
  /// Loading: a buffer's number, at most one past the `known` ones (0: null).
  uint32_t load_number(size_t known, const char* what);
  void save_delta(const Delta& d);
  Delta load_delta();

  SnapshotNumbers own_;
  SnapshotNumbers* numbers_ = &own_;
  SnapshotPool* pool_ = nullptr;
};

/// An agent's own state: x, its loss and iteration, its streams and its learner's state. Not g:
/// the drivers save it where it is live (an async agent's gradient computed and not yet applied).
void archive_agent(Agent& a, AgentArchive& ar);

}  // namespace dlsim
