#include "sim/run/async_agreement.hpp"

#include <cstring>

namespace dlsim {

std::vector<RankReport> all_reports(RankCollectives& ranks, const RankReport& mine) {
  const std::vector<std::byte> bytes = ranks.all_gather(std::as_bytes(std::span(&mine, 1)));
  std::vector<RankReport> all(bytes.size() / sizeof(RankReport));
  std::memcpy(all.data(), bytes.data(), all.size() * sizeof(RankReport));
  return all;
}

EventBound latest_lagging_step(std::span<const RankReport> reports) {
  EventBound latest{SimTime{}, 0};
  bool any = false;
  for (const RankReport& r : reports)
    if (r.has_lagging && (!any || latest < r.lagging_step)) {
      latest = r.lagging_step;
      any = true;
    }
  return any ? latest : EventBound{};
}

const RankReport* earliest_divergence(std::span<const RankReport> reports) {
  const RankReport* earliest = nullptr;
  for (const RankReport& r : reports)
    if (r.diverged_agent >= 0 && (!earliest || r.diverged_at < earliest->diverged_at))
      earliest = &r;
  return earliest;
}

}  // namespace dlsim
