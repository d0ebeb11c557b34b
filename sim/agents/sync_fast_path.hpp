// The one optional interface for speed paths that bend Algorithm's contract, all in sync mode and
// all documented here. An algorithm opts in by deriving from SyncFastPath besides Algorithm; the
// sync driver looks for it once per run (dynamic_cast) and otherwise uses the plain contract.
// A path stays only while a benchmark shows it worth at least 5 % of the default scenario's wall
// time (docs/performance.md, "Speed paths"); DETSGRAD is today's only user.
//
// Fused local step: right after prepare(a), in the parallel phase, fused_local_step(a) computes
// a's stochastic gradient at a.x (setting a.loss) and applies the algorithm's gradient term to
// a.x at once, inside the gradient computation, so the gradient is never written to memory and
// read back (a.g is not written). update() then applies the rest. The result differs from the
// plain contract's in float rounding only (one rounding fewer per parameter). It returns false,
// having done nothing, when it does not apply this iteration: the driver then computes a.g.
#pragma once

#include "sim/agents/agent.hpp"

namespace dlsim {

class SyncFastPath {
 public:
  virtual ~SyncFastPath() = default;
  /// The fused local step (above); false when it does not apply to a this iteration.
  virtual bool fused_local_step(Agent& a) = 0;
};

}  // namespace dlsim
