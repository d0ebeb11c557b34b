// The two ways simulated time runs (docs/algorithms.md, "Time"); the drivers in sim/run implement
// them, and an algorithm whose protocol differs between them (EASGD, Elastic Gossip) is told which.
#pragma once

namespace dlsim {

/// kSync: rounds with a barrier; kAsync: every agent on its own clock.
enum class TimeMode { kSync, kAsync };

}  // namespace dlsim
