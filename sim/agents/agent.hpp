// One simulated agent's own state: parameters, this iteration's gradient, its learner and its
// random streams. Algorithm-specific state (held copies, peers) lives in the algorithm.
//
// Over MPI ranks a process holds only its block of agents in full; the others are
// place-holders (held() false): their id and streams, no parameters (x and g empty) and no
// learner, so that what an algorithm sizes from a.x costs them nothing. Only the agent's own
// rank computes, sends or saves it (docs/partitioned-runs.md, slice (d)).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sim/agents/learner.hpp"
#include "sim/core/ids.hpp"
#include "sim/core/random.hpp"

namespace dlsim {

struct Agent {
  Agent(AgentId agent_id, uint64_t seed, std::unique_ptr<Learner> agent_learner, ParamVector x0)
      : id(agent_id),
        x(std::move(x0)),
        g(ParamVector::Zero(x.size())),
        learner(std::move(agent_learner)),
        trigger_rng(seed, "trigger", agent_id.value),
        peer_rng(seed, "peer", agent_id.value),
        compress_rng(seed, "compress", agent_id.value) {}

  AgentId id;
  ParamVector x;            // current parameters
  ParamVector g;            // stochastic gradient at x for this iteration
  float loss = 0.0f;        // mini-batch loss of this iteration
  int64_t iteration = 0;    // k, counted from 0
  std::unique_ptr<Learner> learner;
  RandomStream trigger_rng;  // draws of the trigger (probability triggers)
  RandomStream peer_rng;     // choice of gossip peers
  RandomStream compress_rng; // draws of the compressor (random_k, qsgd)

  /// Whether this process holds the agent in full (not a place-holder).
  bool held() const { return learner != nullptr; }
};

/// The first agent this process holds in full: every agent trains the same architecture, so its
/// tensors and size are everyone's. Every process holds at least one.
const Agent& first_held(std::span<const Agent> agents);

}  // namespace dlsim
