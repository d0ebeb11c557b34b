// Uniform choice of one gossip peer among an agent's neighbours (all other agents on a complete
// graph), from the agent's own peer stream.
#pragma once

#include "sim/agents/agent.hpp"
#include "sim/core/error.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

inline AgentId choose_peer(const topo::Graph& graph, Agent& a) {
  const auto neighbours = graph.neighbors(a.id.value);
  DLSIM_CHECK(!neighbours.empty(), "agent {} has no neighbour to gossip with", a.id.value);
  return AgentId{neighbours[a.peer_rng.below(neighbours.size())]};
}

}  // namespace dlsim
