#include "sim/scenario/failures_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/interval_trace.hpp"

namespace dlsim {

using nlohmann::json;

std::vector<LinkDownInterval> read_failure_trace(const std::string& path, uint32_t nodes) {
  const TraceFormat format{{"u", "v"}, "node", nodes, "down_from", "up_again"};
  std::vector<TraceRow> rows = read_interval_trace(path, format);
  for (TraceRow& r : rows) {
    if (r.ids[0] == r.ids[1])
      throw InputError(fmt::format("{}:{}: u and v are the same node {}", path, r.line, r.ids[0]));
    if (r.ids[0] > r.ids[1]) std::swap(r.ids[0], r.ids[1]);  // a link has no direction here
  }
  sort_disjoint(rows, path,
                [](const TraceRow& r) { return fmt::format("link {}-{}", r.ids[0], r.ids[1]); });
  std::vector<LinkDownInterval> intervals;
  intervals.reserve(rows.size());
  for (const TraceRow& r : rows) intervals.push_back({r.ids[0], r.ids[1], r.interval, r.line});
  return intervals;
}

LinkFailureSpec parse_link_failures(JsonObject o, uint32_t nodes) {
  LinkFailureSpec f;
  f.kind = o.choice<FailureKind>("kind", {{"trace", FailureKind::kTrace},
                                          {"markov", FailureKind::kMarkov}});
  if (f.kind == FailureKind::kTrace) {
    f.file = o.file_path("file");
  } else {
    f.mtbf = o.positive_duration("mtbf");
    f.mttr = o.positive_duration("mttr");
  }
  o.finish();  // unknown keys first: the trace is read only from a valid object
  if (f.kind == FailureKind::kTrace) f.intervals = read_failure_trace(f.file, nodes);
  return f;
}

json link_failures_to_json(const LinkFailureSpec& f) {
  if (f.kind == FailureKind::kTrace)
    return {{"kind", "trace"},
            {"file", std::filesystem::absolute(f.file).lexically_normal().string()}};
  return {{"kind", "markov"}, {"mtbf", format_duration(f.mtbf)},
          {"mttr", format_duration(f.mttr)}};
}

}  // namespace dlsim
