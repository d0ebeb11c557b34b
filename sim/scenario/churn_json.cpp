#include "sim/scenario/churn_json.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/interval_trace.hpp"

namespace dlsim {

using nlohmann::json;

std::vector<std::vector<OfflineInterval>> read_churn_trace(const std::string& path,
                                                           uint32_t agents) {
  const TraceFormat format{{"agent"}, "agent", agents, "offline_from", "online_again"};
  std::vector<TraceRow> rows = read_interval_trace(path, format);
  sort_disjoint(rows, path, [](const TraceRow& r) { return fmt::format("agent {}", r.ids[0]); });
  std::vector<std::vector<OfflineInterval>> offline(agents);
  for (const TraceRow& r : rows) offline[r.ids[0]].push_back(r.interval);
  return offline;
}

ChurnSpec parse_churn(JsonObject o, uint32_t agents) {
  ChurnSpec c;
  c.kind = o.choice<ChurnKind>("kind", {{"trace", ChurnKind::kTrace},
                                        {"markov", ChurnKind::kMarkov}});
  c.rejoin = o.choice<Rejoin>("rejoin", {{"stale", Rejoin::kStale}, {"pull", Rejoin::kPull}},
                              Rejoin::kStale);
  if (c.kind == ChurnKind::kTrace) {
    c.file = o.file_path("file");
  } else {
    c.mean_online = o.positive_duration("mean_online");
    c.mean_offline = o.positive_duration("mean_offline");
    // Default: the stationary share of offline time, so the run starts in equilibrium.
    const double stationary = static_cast<double>(c.mean_offline.ns) /
                              static_cast<double>(c.mean_online.ns + c.mean_offline.ns);
    c.start_offline = o.number("start_offline", stationary, 0.0, 1.0);
  }
  o.finish();  // unknown keys first: the trace is read only from a valid object
  if (c.kind == ChurnKind::kTrace) c.offline = read_churn_trace(c.file, agents);
  return c;
}

json churn_to_json(const ChurnSpec& c) {
  json j = {{"kind", c.kind == ChurnKind::kTrace ? "trace" : "markov"},
            {"rejoin", c.rejoin == Rejoin::kStale ? "stale" : "pull"}};
  if (c.kind == ChurnKind::kTrace) {
    j["file"] = std::filesystem::absolute(c.file).lexically_normal().string();
  } else {
    j["mean_online"] = format_duration(c.mean_online);
    j["mean_offline"] = format_duration(c.mean_offline);
    j["start_offline"] = c.start_offline;
  }
  return j;
}

}  // namespace dlsim
