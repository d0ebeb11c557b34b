// One run over MPI ranks (docs/partitioned-runs.md, slice (c)): a message whose next event (the
// arrival at the far end of a link, or its delivery) belongs to a node of another rank travels
// there whole: the network's record of it (Network::hand_over) and its content, the parameter
// snapshot and the algorithm's payload, written as a checkpoint writes a message in flight. The
// sending rank frees both; the receiving rank installs them in slots of its own. A message still
// waiting in its send buffer, which a newer copy may replace (network.when_full "coalesce"),
// leaves only once it is on the wire.
#pragma once

#include <vector>

#include "sim/agents/snapshot_pool.hpp"
#include "sim/core/partition_exchange.hpp"
#include "sim/network/network.hpp"
#include "sim/run/swarm.hpp"

namespace dlsim {

class MessageShipping final : public EventShipping {
 public:
  /// Registers itself with the swarm's simulator (already partitioned over the ranks) for
  /// kLinkArrival and kDelivery; outlives the runs of that simulator.
  explicit MessageShipping(Swarm& swarm);

  void pack(const Event& e, uint32_t to_rank, std::vector<std::byte>& out) override;
  uint32_t unpack(const Event& e, uint32_t from_rank, std::span<const std::byte> content) override;
  void window_shipped() override {
    for (SnapshotNumbers& n : sent_) n.clear();
    for (SnapshotNumbers& n : received_numbers_) n.clear();
  }
  SimTime content_final_at(const Event& e) const override {
    return swarm_.network().content_final_at(e.payload);
  }

 private:
  Swarm& swarm_;
  // A snapshot goes to another rank once per window however many of its agents a sender's
  // messages go to (a DETSGRAD broadcast, say): the messages one window sends a rank number
  // their snapshots together, and so do those from each rank here (unpacked in the order they
  // were packed), as a checkpoint does. Cleared once the window is shipped.
  std::vector<SnapshotNumbers> sent_;              // by receiving rank
  std::vector<SnapshotNumbers> received_numbers_;  // by sending rank
  // The snapshots of messages from other ranks, by the node they come to: model-sized buffers
  // reused once their messages and copies are gone (a fresh allocation faults in hundreds of
  // pages). One pool per node, as senders keep one per agent: take() scans its pool, which
  // holds about the node's copies, not every crossing edge's. Taken from on the window loop's
  // thread only, while no update runs.
  std::vector<SnapshotPool> received_;
  HandedOverMessage where_;  // the message being packed (its rest's capacity kept) or unpacked
};

}  // namespace dlsim
