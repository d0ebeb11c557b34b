// An optional interface (an extension point, docs/architecture.md "Adding an algorithm") for
// algorithms that act on every agent at once at a sync round's barrier, serially: collectives
// (all-reduce, local SGD) and EASGD's synchronous centre update. An algorithm opts in by
// deriving from RoundHooks besides Algorithm; the sync driver looks for it once per run
// (dynamic_cast). Async mode has no barrier and never calls them.
#pragma once

#include <span>

#include "sim/agents/agent.hpp"

namespace dlsim {

class RoundHooks {
 public:
  virtual ~RoundHooks() = default;
  /// After every message of the round arrived, before any update(a).
  virtual void before_updates(std::span<Agent>) {}
  /// Once every agent applied its update.
  virtual void after_updates(std::span<Agent>) {}
  /// True for collectives: they need every agent in the same iteration, so they run in sync
  /// rounds whatever time.mode says (docs/algorithms.md, "All-reduce SGD and Local SGD").
  virtual bool collective() const { return false; }
};

}  // namespace dlsim
