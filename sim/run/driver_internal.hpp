// Pieces the sync and async drivers share; not part of the agents' public interface.
#pragma once

#include <optional>
#include <span>

#include "sim/run/driver.hpp"

namespace dlsim {

/// The first agent (in id order) whose last mini-batch loss is not finite, as a diverged outcome.
std::optional<RunOutcome> check_losses(std::span<const Agent> agents, int64_t iterations_done);

RunOutcome run_sync(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                    RunObserver& observer);
RunOutcome run_async(Swarm& swarm, ThreadPool& pool, const DriverConfig& config,
                     RunObserver& observer);

}  // namespace dlsim
