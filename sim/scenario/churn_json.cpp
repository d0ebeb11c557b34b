#include "sim/scenario/churn_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace dlsim {
namespace {

using nlohmann::json;

constexpr const char* kHeader = "agent,offline_from,online_again";

// One field in seconds -> nanoseconds; "inf" only where `infinite_ok`.
SimTime seconds(const std::string& field, bool infinite_ok, const std::string& where,
                const char* name) {
  if (infinite_ok && field == "inf") return SimTime::max();
  double value = 0;
  size_t used = 0;
  try {
    value = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != field.size() || !std::isfinite(value))
    throw InputError(fmt::format("{}: {}: expected seconds{}, got \"{}\"", where, name,
                                 infinite_ok ? " or \"inf\"" : "", field));
  if (value < 0) throw InputError(fmt::format("{}: {}: negative time {}", where, name, value));
  if (value * 1e9 >= static_cast<double>(SimTime::max().ns) / 4)
    throw InputError(fmt::format("{}: {}: {} s is beyond the simulated clock", where, name, value));
  return SimTime{std::llround(value * 1e9)};
}

struct TraceLine {
  OfflineInterval interval;
  size_t line = 0;
};

}  // namespace

std::vector<std::vector<OfflineInterval>> read_churn_trace(const std::string& path,
                                                           uint32_t agents) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read", path));
  std::vector<std::vector<TraceLine>> lines(agents);
  std::string text;
  for (size_t number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const std::string where = fmt::format("{}:{}", path, number);
    if (text.empty() || text[0] == '#') continue;
    if (text == kHeader) continue;
    std::vector<std::string> fields;
    std::stringstream split(text);
    for (std::string f; std::getline(split, f, ',');) fields.push_back(f);
    if (fields.size() != 3)
      throw InputError(fmt::format("{}: expected 3 fields ({}), got {}", where, kHeader,
                                   fields.size()));
    uint64_t agent = 0;
    const auto& a = fields[0];
    if (a.empty() || a.size() > 9 || a.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(fmt::format("{}: agent: expected an agent number, got \"{}\"", where, a));
    agent = std::stoull(a);
    if (agent >= agents)
      throw InputError(fmt::format("{}: agent: unknown agent {} (the scenario has {}: 0..{})",
                                   where, agent, agents, agents - 1));
    const SimTime from = seconds(fields[1], false, where, "offline_from");
    const SimTime until = seconds(fields[2], true, where, "online_again");
    if (!(from < until))
      throw InputError(fmt::format("{}: online_again {} is not after offline_from {}", where,
                                   fields[2], fields[1]));
    lines[agent].push_back({{from, until}, number});
  }
  std::vector<std::vector<OfflineInterval>> offline(agents);
  for (uint32_t i = 0; i < agents; ++i) {
    std::vector<TraceLine>& list = lines[i];
    std::stable_sort(list.begin(), list.end(), [](const TraceLine& x, const TraceLine& y) {
      return x.interval.from < y.interval.from;
    });
    for (size_t k = 1; k < list.size(); ++k) {
      const TraceLine& earlier = list[k - 1];
      const TraceLine& later = list[k];
      if (later.interval.from < earlier.interval.until) {
        const TraceLine& second = earlier.line > later.line ? earlier : later;
        const TraceLine& first = earlier.line > later.line ? later : earlier;
        throw InputError(fmt::format("{}:{}: agent {}'s interval overlaps line {}'s", path,
                                     second.line, i, first.line));
      }
    }
    for (const TraceLine& l : list) offline[i].push_back(l.interval);
  }
  return offline;
}

ChurnSpec parse_churn(JsonObject o, uint32_t agents) {
  ChurnSpec c;
  c.kind = o.choice<ChurnKind>("kind", {{"trace", ChurnKind::kTrace},
                                        {"markov", ChurnKind::kMarkov}});
  c.rejoin = o.choice<Rejoin>("rejoin", {{"stale", Rejoin::kStale}, {"pull", Rejoin::kPull}},
                              Rejoin::kStale);
  if (c.kind == ChurnKind::kTrace) {
    const std::string name = o.string("file");
    if (name.empty()) o.fail("file", "the file name is empty");
    const std::filesystem::path folder = std::filesystem::path(o.file()).parent_path();
    c.file = (folder / name).lexically_normal().string();
  } else {
    c.mean_online = o.duration("mean_online");
    c.mean_offline = o.duration("mean_offline");
    if (c.mean_online.ns <= 0) o.fail("mean_online", "must be positive");
    if (c.mean_offline.ns <= 0) o.fail("mean_offline", "must be positive");
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
