// The other half of topology_json.hpp: rendering a spec back to JSON, loading a standalone
// topology file, and writing a graph as DOT through a temporary file.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/json_depth.hpp"
#include "sim/scenario/topology_json.hpp"
#include "sim/scenario/topology_kind_keys.hpp"
#include "topologies/generators.hpp"
#include "topologies/writers.hpp"

namespace dlsim {
namespace {

using nlohmann::json;
using topo::TopologyKind;

template <class T, class Format>
json range_to_json(const topo::ValueRange<T>& range, Format format) {
  if (range.is_constant()) return format(range.min);
  return json{{"min", format(range.min)}, {"max", format(range.max)}};
}

json kind_parameters(const topo::TopologySpec& s) {
  json j = json::object();
  for (const TopologyKindKey& key : topology_kind_keys(s.kind))
    key.with_field(s, [&](const auto& value) {
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>)
        j[key.name] = std::filesystem::absolute(value).string();
      else
        j[key.name] = value;
    });
  return j;
}

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot open the file: {}", path, std::strerror(errno)));
  try {
    return json::parse(in, json_depth_limit<json>(path));
  } catch (const json::exception& e) {
    // A syntax error, or a number beyond a double ("1e999": out_of_range, valid JSON that
    // nlohmann cannot hold). what() is "[json.exception.parse_error.101] parse error at ...".
    std::string message = e.what();
    if (const size_t end = message.find("] "); end != std::string::npos) message.erase(0, end + 2);
    throw InputError(fmt::format("{}: not valid JSON: {}", path, message));
  }
}

}  // namespace

json topology_to_json(const topo::TopologySpec& spec) {
  json j = kind_parameters(spec);
  j["kind"] = topo::to_string(spec.kind);
  if (spec.n != 0) j["n"] = topo::node_count(spec);
  j["latency"] = range_to_json(spec.latency, [](SimTime t) { return format_duration(t); });
  j["bandwidth"] = range_to_json(spec.bandwidth_bps, [](uint64_t b) { return format_rate(b); });
  j["overrides"] = json::array();
  for (const topo::EdgeOverride& o : spec.overrides) {
    json item = {{"u", o.u}, {"v", o.v}};
    if (o.latency) item["latency"] = format_duration(*o.latency);
    if (o.bandwidth_bps) item["bandwidth"] = format_rate(*o.bandwidth_bps);
    j["overrides"].push_back(std::move(item));
  }
  if (spec.seed) j["seed"] = *spec.seed;
  return j;
}

TopologyFileReport load_topology_file(const std::string& path) {
  TopologyFileReport report;
  report.spec = parse_topology(read_json_file(path), path, "", std::nullopt);
  report.seed = report.spec.seed.value_or(kDefaultTopologySeed);
  report.graph = topo::build_topology(report.spec, report.seed);
  report.metrics = topo::compute_metrics(report.graph, topo::MixingRule::kMetropolisHastings);
  return report;
}

void write_topology_dot(const topo::Graph& graph, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      // A folder that does not exist is a mistyped path (bad input); anything else (read-only,
      // full, no permission) is the machine's.
      const std::string message = fmt::format("{}: cannot write: {}", tmp, std::strerror(errno));
      if (errno == ENOENT || errno == ENOTDIR) throw InputError(message);
      throw EnvironmentError(message);
    }
    topo::write_dot(graph, out);
    out.close();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw EnvironmentError(fmt::format("{}: writing failed", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw EnvironmentError(fmt::format("{}: cannot rename {} to it: {}", path, tmp, ec.message()));
  }
}

}  // namespace dlsim
