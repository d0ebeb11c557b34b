// Saving and loading the agents' side of a simulation for checkpoints: parameter snapshots
// (each shared buffer written once, however many copies, messages and neighbours hold it, and
// shared again when loaded), messages, and the agents themselves.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "sim/agents/agent.hpp"
#include "sim/agents/message.hpp"
#include "sim/core/state_io.hpp"

namespace dlsim {

/// Writes snapshots by identity: the first time a buffer is seen, its contents; after that, its
/// number. One saver per checkpoint, shared by every part that holds snapshots.
class SnapshotSaver {
 public:
  explicit SnapshotSaver(StateWriter& out) : out_(out) {}
  void put(const Snapshot& s);
  void put(const Message& m);
  void put(const Delta& d);
  void put(const Parts& p);
  /// A list: its length, then each element.
  void put_all(std::span<const Snapshot> list);
  void put_all(std::span<const Message> list);
  StateWriter& out() { return out_; }

 private:
  StateWriter& out_;
  std::unordered_map<const ParamVector*, uint32_t> ids_;  // looked up only: order is the writes'
  std::unordered_map<const CompressedVector*, uint32_t> delta_ids_;
};

/// Reads what a SnapshotSaver wrote, giving back shared buffers where the saved ones were shared.
class SnapshotLoader {
 public:
  explicit SnapshotLoader(StateReader& in) : in_(in) {}
  Snapshot get_snapshot();
  Message get_message();
  Delta get_delta();
  Parts get_parts();
  /// A list written by put_all, replacing `list`'s contents.
  void get_all(std::vector<Snapshot>& list);
  void get_all(std::vector<Message>& list);
  /// A list written by put_all into `list`, which must have its length (one per neighbour).
  void get_into(std::span<Snapshot> list);
  StateReader& in() { return in_; }

 private:
  StateReader& in_;
  std::vector<Snapshot> table_;  // by number, from 1
  std::vector<Delta> deltas_;    // by number, from 1
};

/// An agent's own state: x, its loss and iteration, its streams and its learner's state. Not g:
/// the drivers save it where it is live (an async agent's gradient computed and not yet applied).
void save_agent(const Agent& a, StateWriter& out);
void load_agent(Agent& a, StateReader& in);

/// A parameter vector of known length.
void save_params(const ParamVector& x, StateWriter& out);
void load_params(ParamVector& x, StateReader& in);

}  // namespace dlsim
