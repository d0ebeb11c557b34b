#include "sim/run/run_over_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {

namespace fs = std::filesystem;

void refuse_over_ranks(const RunOptions& options, uint32_t ranks) {
  if (options.virtual_ranks != 1)
    throw InputError(
        fmt::format("--virtual-ranks: a run over {} MPI ranks is partitioned "
                    "already: give one or the other",
                    ranks));
  if (options.trigger)
    throw InputError(fmt::format("a custom trigger cannot run over {} MPI ranks", ranks));
}

// Every rank resumes, or none: a rank without its part cannot continue the run.
void agree_on_resuming(bool resuming, RankCollectives& ranks, const fs::path& staging) {
  int64_t found[2] = {resuming ? 1 : 0, resuming ? 0 : 1};  // has it, lacks it
  ranks.all_reduce(found, Reduction::kMax);
  if (found[0] && found[1])
    throw InputError(
        fmt::format("{}: lacks the checkpoint of some of the {} ranks: remove the "
                    "folder to start over",
                    staging.string(), ranks.ranks()));
}

// The ranks' parts must be of one iteration: a crash while they were being replaced can leave
// some from the one before.
void agree_on_iteration(int64_t iteration, RankCollectives& ranks, const fs::path& staging) {
  int64_t range[2] = {iteration, -iteration};
  ranks.all_reduce(range, Reduction::kMax);
  if (range[0] != -range[1])
    throw InputError(
        fmt::format("{}: the ranks' checkpoints are of iterations {} to {} (a crash "
                    "while they were being replaced): remove the folder to start "
                    "over",
                    staging.string(), -range[1], range[0]));
}

// This rank's agents: a contiguous block (contiguous_partitions).
std::pair<uint32_t, uint32_t> block_of(const Partitions& p, uint32_t rank) {
  const auto first = std::find(p.of_node.begin(), p.of_node.end(), rank);
  const auto end = std::find_if(first, p.of_node.end(), [&](uint32_t r) { return r != rank; });
  return {static_cast<uint32_t>(first - p.of_node.begin()),
          static_cast<uint32_t>(end - p.of_node.begin())};
}

}  // namespace dlsim
