#include "sim/run/run_over_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/checkpoint.hpp"

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

std::optional<fs::path> agree_on_checkpoint(const fs::path& staging, const std::string& name,
                                            RankCollectives& ranks) {
  constexpr int64_t kNone = -1;
  const fs::path files[2] = {staging / name, staging / (name + kPreviousSuffix)};
  int64_t mine[2] = {kNone, kNone};  // the iterations of this rank's current and previous part
  for (int k = 0; k < 2; ++k)
    if (fs::exists(files[k])) mine[k] = checkpoint_iterations(files[k]);
  const std::vector<std::byte> bytes = ranks.all_gather(std::as_bytes(std::span(mine)));
  std::vector<int64_t> all(bytes.size() / sizeof(int64_t));
  std::memcpy(all.data(), bytes.data(), all.size() * sizeof(int64_t));
  const auto has = [&](size_t r, int64_t iteration) {
    return all[2 * r] == iteration || all[2 * r + 1] == iteration;
  };
  bool any = false, every = true;
  for (size_t r = 0; r < ranks.ranks(); ++r) {
    const bool some = all[2 * r] != kNone || all[2 * r + 1] != kNone;
    any = any || some;
    every = every && some;
  }
  if (!any) return std::nullopt;
  if (!every)
    throw InputError(
        fmt::format("{}: lacks the checkpoint of some of the {} ranks: remove the "
                    "folder to start over",
                    staging.string(), ranks.ranks()));
  int64_t common = kNone;  // the newest iteration every rank has
  for (const int64_t candidate : all) {
    if (candidate <= common) continue;
    bool everywhere = true;
    for (size_t r = 0; r < ranks.ranks() && everywhere; ++r) everywhere = has(r, candidate);
    if (everywhere) common = candidate;
  }
  if (common == kNone)
    throw InputError(
        fmt::format("{}: the ranks' checkpoints have no iteration in common: remove "
                    "the folder to start over",
                    staging.string()));
  return files[mine[0] == common ? 0 : 1];
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

}  // namespace dlsim
