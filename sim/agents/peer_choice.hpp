// Uniform choice of one gossip peer among an agent's neighbours (all other agents on a complete
// graph; on a dynamic overlay its targets of the round), from the agent's own peer stream; and
// the lazily made snapshot gossip sends (compressed when the algorithm has a `compression`).
#pragma once

#include <memory>
#include <span>

#include "sim/agents/agent.hpp"
#include "sim/agents/agent_compression.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/core/error.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

inline AgentId choose_peer(std::span<const uint32_t> candidates, Agent& a) {
  DLSIM_CHECK(!candidates.empty(), "agent {} has no neighbour to gossip with", a.id.value);
  return AgentId{candidates[a.peer_rng.below(candidates.size())]};
}

inline AgentId choose_peer(const topo::Graph& graph, Agent& a) {
  return choose_peer(graph.neighbors(a.id.value), a);
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

inline bool gossip_now(const Trigger& trigger, const topo::Graph& graph, Agent& a, AgentId* peer) {
  return gossip_now(trigger, graph.neighbors(a.id.value), a, peer);
}

/// x as an immutable snapshot, copied on first need into a buffer of the agent's pool and shared
/// until `cache` is reset. The pool's use counts are exact wherever gossip calls this: in sync
/// mode prepare() and after_gradient() run in the parallel phase, where nobody copies or drops another agent's
/// snapshots (receivers drop them in update(), a later phase); receive() runs in the event loop;
/// in async mode prepare(), receive() and update() all run in the event loop.
/// With compression, the snapshot holds C(x) (naive compressed gossip).
inline const Snapshot& snapshot_of(Snapshot& cache, SnapshotPool& pool,
                                   AgentCompression& compression, Agent& a) {
  if (!cache) cache = compression.snapshot(a, pool, a.x);
  return cache;
}

}  // namespace dlsim
