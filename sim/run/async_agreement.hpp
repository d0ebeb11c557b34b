// An async run over MPI ranks (async_driver.cpp): after each window every rank tells the others
// what its driver needs to decide alike, in one all-gather of a fixed-size report; here is the
// report and how the ranks' reports are combined.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/partitions.hpp"
#include "sim/core/rank_collectives.hpp"

namespace dlsim {

/// Plain data, gathered as its bytes.
struct RankReport {
  EventBound lagging_step;  ///< the rank's latest pending step of an agent at the minimum
  EventBound diverged_at;   ///< its earliest non-finite loss (EventBound{}: none)
  int64_t diverged_agent = -1;
  int64_t diverged_iteration = -1;
  int64_t at_minimum = 0;   ///< its agents at the minimum iteration
  int64_t has_lagging = 0;  ///< 1: lagging_step is an agent's
  int64_t deferred = 0;     ///< 1: the window's horizon step ran on this rank
};

/// Collective: every rank's report, by rank.
std::vector<RankReport> all_reports(RankCollectives& ranks, const RankReport& mine);
/// The latest lagging step of any rank: the next windows' horizon (EventBound{}: none lags).
EventBound latest_lagging_step(std::span<const RankReport> reports);
/// The report with the earliest non-finite loss, or null.
const RankReport* earliest_divergence(std::span<const RankReport> reports);

}  // namespace dlsim
