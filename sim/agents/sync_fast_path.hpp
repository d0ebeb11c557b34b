// The one optional interface for speed paths that bend Algorithm's contract, all in sync mode and
// all documented here. An algorithm opts in by deriving from SyncFastPath besides Algorithm; the
// sync driver looks for it once per run (dynamic_cast) and otherwise uses the plain contract.
// Every path must give the plain contract's result bit for bit, except where a method says what
// it rounds differently. A path stays only while a benchmark shows it worth it (README.md,
// "Speed"); DETSGRAD is today's only user.
//
// Fused local step: right after prepare(a), in the parallel phase, fused_local_step(a) computes
// a's stochastic gradient at a.x (setting a.loss) and applies the algorithm's gradient term to
// a.x at once, fused with the gradient computation, so the gradient is never written to memory
// and read back (a.g is not written). update() then applies the rest. It returns false, having
// done nothing, when it does not apply this iteration: the driver then computes a.g itself.
//
// Blocked update: update() in column blocks, so that agents that read one another's snapshots
// read each block of them from memory once per round, not once per reader. When
// update_block_size() > 0 the driver calls, for a range of agents, update_begin(a) on each, then
// update_block(a, start, len) for each block [start, start + len) of the parameters (blocks of
// that many, the last shorter, so start is a multiple of it) on each agent in turn, then
// update_end(a) on each (update_in_blocks). The result must equal update(a)'s, bit for bit.
#pragma once

#include <span>

#include "sim/agents/agent.hpp"

namespace dlsim {

class SyncFastPath {
 public:
  virtual ~SyncFastPath() = default;
  /// The fused local step (above); false when it does not apply to a this iteration.
  virtual bool fused_local_step(Agent& a) = 0;
  /// Parameters per block of the blocked update; 0: no blocked update.
  virtual Eigen::Index update_block_size() const = 0;
  virtual void update_begin(Agent& a) = 0;
  virtual void update_block(Agent& a, Eigen::Index start, Eigen::Index len) = 0;
  virtual void update_end(Agent& a) = 0;
};

/// The updates of a range of agents, block after block over the whole range (precondition:
/// path.update_block_size() > 0).
void update_in_blocks(SyncFastPath& path, std::span<Agent> agents);

}  // namespace dlsim
