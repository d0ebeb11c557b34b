// One run over MPI ranks: each rank's CommRecorder records the signals of the events it ran, so
// a node's counts may be spread over ranks (a message is sent on one, delivered on another).
// Rank 0 adds them up for evaluation points and summary.json.
#pragma once

#include "sim/core/rank_collectives.hpp"
#include "sim/metrics/comm_recorder.hpp"

namespace dlsim {

/// Collective. On rank 0: the counts of every rank added up (CommRecorder::add), which are one
/// process's; on the others: their own counts, unchanged.
CommRecorder comm_over_ranks(const CommRecorder& mine, RankCollectives& ranks);

}  // namespace dlsim
