// Uniform choice of one gossip peer among an agent's neighbours (all other agents on a complete
// graph; on a dynamic overlay its targets of the round), from the agent's own peer stream; the
// lazily made snapshot gossip sends (compressed when the algorithm has a `compression`); and what
// Gossiping SGD and Elastic Gossip both keep to make their pick (GossipPeers, GossipTurn).
#pragma once

#include <memory>
#include <span>
#include <utility>

#include "sim/agents/agent.hpp"
#include "sim/agents/agent_archive.hpp"
#include "sim/agents/agent_compression.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

inline AgentId choose_peer(std::span<const uint32_t> candidates, Agent& a) {
  DLSIM_CHECK(!candidates.empty(), "agent {} has no neighbour to gossip with", a.id.value);
  return AgentId{candidates[a.peer_rng.below(candidates.size())]};
}

/// Whether agent a gossips this iteration: its trigger fired and it has a candidate peer (a
/// single agent, or one a dynamic graph leaves without targets this round, has nobody to gossip
/// with). Then *peer is drawn uniformly among `candidates`: a's neighbours, or on a dynamic
/// overlay its targets of the round (overlay.hpp).
inline bool gossip_now(const Trigger& trigger, std::span<const uint32_t> candidates, Agent& a,
                       AgentId* peer) {
  if (!trigger.decide({a.iteration, 0.0, 0.0}, a.trigger_rng) || candidates.empty()) return false;
  *peer = choose_peer(candidates, a);
  return true;
}

/// x as an immutable snapshot, copied on first need into a buffer of the agent's pool and shared
/// until `cache` is reset. The pool's use counts are exact wherever gossip calls this: in sync
/// mode prepare() and after_gradient() run in the parallel phase, where nobody copies or drops
/// another agent's snapshots (receivers drop them in update(), a later phase); receive() runs in
/// the event loop; in async mode prepare(), receive() and update() all run in the event loop. With
/// compression, the snapshot holds C(x) (naive compressed gossip).
inline const Snapshot& snapshot_of(Snapshot& cache, SnapshotPool& pool,
                                   AgentCompression& compression, Agent& a) {
  if (!cache) cache = compression.snapshot(a, pool, a.x);
  return cache;
}

/// Where a one-peer gossip algorithm draws its peer: its trigger, and the overlay: a static graph
/// is a fixed one (the agent's neighbours); a dynamic one draws the targets each round or, in
/// async mode, at each agent's own iteration. The overlay's weights are not used.
class GossipPeers {
 public:
  GossipPeers(const TriggerSpec& trigger, Overlay overlay)
      : trigger_(trigger), overlay_(std::move(overlay)) {}

  /// Sync mode: a dynamic overlay draws round k's graph.
  void begin_round(int64_t k, SimTime now) {
    if (overlay_.dynamic()) overlay_.begin_round(k, now);
  }
  /// Whether agent a gossips at its iteration, and then with whom (*peer; gossip_now). On a
  /// per-agent overlay a draws its own targets first (async mode: serial, in event order).
  bool draw(Agent& a, AgentId* peer) {
    if (!overlay_.dynamic()) return gossip_now(trigger_, overlay_.neighbours(a.id.value), a, peer);
    overlay_.begin_iteration(a.id.value, a.iteration);
    return gossip_now(trigger_, overlay_.targets(a.id.value), a, peer);
  }
  /// Agent i's neighbour count on a static overlay; `otherwise` on a dynamic one.
  size_t degree_or(uint32_t i, size_t otherwise) const {
    return overlay_.dynamic() ? otherwise : overlay_.neighbours(i).size();
  }
  /// For checkpoints: a dynamic overlay's state (nothing on a static one).
  void archive(StateArchive& ar) {
    if (overlay_.dynamic()) overlay_.archive(ar);
  }

 private:
  Trigger trigger_;
  Overlay overlay_;
};

/// An agent's pick for its iteration, the start of a one-peer gossip algorithm's per-agent state.
struct GossipTurn {
  bool fire = false;  // it gossips this iteration
  AgentId peer;       // with whom
  Snapshot current;   // x_i as sent this iteration (made on first need: snapshot_of)
  SnapshotPool pool;  // buffers of i's snapshots

  /// For checkpoints: the pick and the snapshot (the pool starts empty).
  void archive_turn(AgentArchive& ar) {
    ar.value(fire);
    ar.value(peer);
    ar.snapshot(current);
  }
};

}  // namespace dlsim
