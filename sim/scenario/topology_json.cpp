// Parsing of the topology object. Type and unit errors are found here with the JSON value in
// hand; range checks are topologies' find_spec_problem, so code-built specs get the same ones.
#include "sim/scenario/topology_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace dlsim {
namespace {

using nlohmann::json;
using topo::TopologyKind;

// The keys every kind accepts, and each kind's own.
const std::vector<std::string>& common_keys() {
  static const std::vector<std::string> keys{"kind",      "n",         "latency",
                                             "bandwidth", "overrides", "seed"};
  return keys;
}

std::vector<std::string> kind_keys(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kGrid:
    case TopologyKind::kTorus:
      return {"rows", "cols"};
    case TopologyKind::kHypercube:
      return {"dimension"};
    case TopologyKind::kRandomRegular:
      return {"degree"};
    case TopologyKind::kErdosRenyi:
      return {"p"};
    case TopologyKind::kWattsStrogatz:
      return {"k", "beta"};
    case TopologyKind::kBarabasiAlbert:
      return {"m"};
    case TopologyKind::kRandomGeometric:
      return {"radius"};
    case TopologyKind::kEdgeList:
    case TopologyKind::kDot:
      return {"file"};
    default:
      return {};
  }
}

std::string quoted(const json& value) { return value.dump(); }

// Reads one topology object; every error names file, pointer and key.
class TopologyReader {
 public:
  TopologyReader(const json& j, std::string file, std::string pointer)
      : j_(j), file_(std::move(file)), pointer_(std::move(pointer)) {}

  [[noreturn]] void fail(const std::string& key, std::string message) const {
    // Unit errors quote the user's text verbatim; keep the error on one line.
    for (size_t i = message.find('\n'); i != std::string::npos; i = message.find('\n', i))
      message.replace(i, 1, "\\n");
    const std::string where = key.empty() ? pointer_ : pointer_ + "/" + key;
    if (where.empty()) throw InputError(fmt::format("{}: {}", file_, message));
    throw InputError(fmt::format("{}: {}: {}", file_, where, message));
  }

  bool has(const std::string& key) const { return j_.contains(key); }
  const json& at(const std::string& key) const { return j_.at(key); }

  std::string string(const json& v, const std::string& key, std::string_view what) const {
    if (!v.is_string()) fail(key, fmt::format("expected {}, got {}", what, quoted(v)));
    return v.get<std::string>();
  }

  uint64_t unsigned_integer(const json& v, const std::string& key, uint64_t max) const {
    const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    if (!ok || v.get<uint64_t>() > max)
      fail(key, fmt::format("expected an integer in 0..{}, got {}", max, quoted(v)));
    return v.get<uint64_t>();
  }

  uint32_t count(const std::string& key) const {
    return static_cast<uint32_t>(
        unsigned_integer(at(key), key, std::numeric_limits<uint32_t>::max()));
  }

  double number(const std::string& key) const {
    if (!at(key).is_number()) fail(key, fmt::format("expected a number, got {}", quoted(at(key))));
    return at(key).get<double>();
  }

  template <class Parse>
  auto unit_value(const json& v, const std::string& key, std::string_view what, Parse parse) const {
    const std::string text = string(v, key, what);
    try {
      return parse(text);
    } catch (const InputError& e) {
      fail(key, e.what());
    }
  }

  // "2ms", or {"min": "1ms", "max": "5ms"} drawn uniformly per edge.
  template <class T, class Parse>
  topo::ValueRange<T> range(const std::string& key, std::string_view what, Parse parse) const {
    const json& v = at(key);
    if (!v.is_object()) {
      const T value = unit_value(v, key, what, parse);
      return {value, value};
    }
    for (const auto& [k, unused] : v.items())
      if (k != "min" && k != "max")
        fail(key + "/" + k, "unknown key; a range has only \"min\" and \"max\"");
    for (const char* k : {"min", "max"})
      if (!v.contains(k)) fail(key, fmt::format("missing key \"{}\" of the range", k));
    const T lo = unit_value(v["min"], key + "/min", what, parse);
    const T hi = unit_value(v["max"], key + "/max", what, parse);
    if (lo > hi)
      fail(key, fmt::format("min {} exceeds max {}", quoted(v["min"]), quoted(v["max"])));
    return {lo, hi};
  }

 private:
  const json& j_;
  std::string file_;
  std::string pointer_;
};

constexpr std::string_view kDurationWhat = "a duration string such as \"2ms\"";
constexpr std::string_view kRateWhat = "a rate string such as \"10Mbps\"";
const auto kParseDuration = [](const std::string& s) { return parse_duration(s); };
const auto kParseRate = [](const std::string& s) { return parse_rate_bps(s); };

TopologyKind read_kind(const TopologyReader& r) {
  if (!r.has("kind"))
    r.fail("", "missing key \"kind\"; known kinds: " + topo::topology_kind_names());
  const std::string name = r.string(r.at("kind"), "kind", "a topology kind string");
  const auto kind = topo::topology_kind_from_string(name);
  if (!kind)
    r.fail("kind", fmt::format("unknown topology kind \"{}\"; known kinds: {}", name,
                               topo::topology_kind_names()));
  return *kind;
}

void check_keys(const json& j, const TopologyReader& r, TopologyKind kind) {
  std::vector<std::string> allowed = common_keys();
  for (std::string& k : kind_keys(kind)) allowed.push_back(std::move(k));
  for (const auto& [key, unused] : j.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      r.fail(key, fmt::format("unknown key for a \"{}\" topology; its keys are {}",
                              topo::to_string(kind), fmt::join(allowed, ", ")));
}

topo::EdgeOverride read_override(const TopologyReader& r, const json& o, const std::string& key) {
  if (!o.is_object())
    r.fail(key,
           fmt::format("expected an object {{\"u\", \"v\", \"latency\", \"bandwidth\"}}, got {}",
                       quoted(o)));
  for (const auto& [k, unused] : o.items())
    if (k != "u" && k != "v" && k != "latency" && k != "bandwidth")
      r.fail(key + "/" + k, "unknown key; an override has u, v, latency and bandwidth");
  topo::EdgeOverride out;
  for (const char* k : {"u", "v"}) {
    if (!o.contains(k)) r.fail(key, fmt::format("missing key \"{}\"", k));
    const uint64_t node = r.unsigned_integer(o[k], key + "/" + k, topo::kMaxNodes);
    (k[0] == 'u' ? out.u : out.v) = static_cast<uint32_t>(node);
  }
  if (o.contains("latency"))
    out.latency = r.unit_value(o["latency"], key + "/latency", kDurationWhat, kParseDuration);
  if (o.contains("bandwidth"))
    out.bandwidth_bps = r.unit_value(o["bandwidth"], key + "/bandwidth", kRateWhat, kParseRate);
  return out;
}

// Grid and torus: rows and cols, with n (if given) and the agent count agreeing.
void read_lattice_size(const TopologyReader& r, topo::TopologySpec& spec,
                       std::optional<uint32_t> agents) {
  for (const char* k : {"rows", "cols"})
    if (!r.has(k)) r.fail("", fmt::format("missing key \"{}\"", k));
  spec.rows = r.count("rows");
  spec.cols = r.count("cols");
  const uint64_t cells = uint64_t{spec.rows} * spec.cols;
  if (agents && cells != *agents)
    r.fail("rows", fmt::format("rows x cols is {} but the scenario has {} agents", cells, *agents));
  if (r.has("n") && spec.n != cells)
    r.fail("n", fmt::format("n is {} but rows x cols is {}", spec.n, cells));
  // Clamped so that find_spec_problem reports an oversized lattice rather than a wrapped n.
  spec.n = static_cast<uint32_t>(std::min<uint64_t>(cells, topo::kMaxNodes + 1));
}

// Hypercube "dimension": n = 2^dimension, agreeing with n or the agent count.
void read_dimension(const TopologyReader& r, topo::TopologySpec& spec,
                    std::optional<uint32_t> agents) {
  const uint64_t d = r.unsigned_integer(r.at("dimension"), "dimension", 19);
  if (d < 1) r.fail("dimension", "a hypercube needs dimension >= 1, got 0");
  const uint32_t n = uint32_t{1} << d;
  const uint32_t want = agents ? *agents : r.has("n") ? spec.n : n;
  if (n != want)
    r.fail("dimension", fmt::format("dimension {} gives {} nodes but {} is {}", d, n,
                                    agents ? "the agent count" : "n", want));
  spec.n = n;
}

// Fills the node count from "n", rows x cols or "dimension", and the scenario's agents.
void read_size(const TopologyReader& r, topo::TopologySpec& spec, std::optional<uint32_t> agents) {
  if (r.has("n")) spec.n = r.count("n");
  if (spec.kind == TopologyKind::kGrid || spec.kind == TopologyKind::kTorus)
    return read_lattice_size(r, spec, agents);
  if (agents && r.has("n") && spec.n != *agents)
    r.fail("n", fmt::format("n is {} but the scenario has {} agents; drop \"n\" or make them agree",
                            spec.n, *agents));
  if (r.has("dimension")) read_dimension(r, spec, agents);
  if (agents) spec.n = *agents;
  const bool from_file = spec.kind == TopologyKind::kEdgeList || spec.kind == TopologyKind::kDot;
  if (spec.n == 0 && !from_file && !r.has("n"))
    r.fail("", spec.kind == TopologyKind::kHypercube ? "missing key \"n\" or \"dimension\""
                                                     : "missing key \"n\"");
}

void read_parameters(const TopologyReader& r, topo::TopologySpec& spec, const std::string& file) {
  for (const std::string& key : kind_keys(spec.kind))
    if (!r.has(key) && key != "dimension") r.fail("", fmt::format("missing key \"{}\"", key));
  if (r.has("degree")) spec.degree = r.count("degree");
  if (r.has("p")) spec.p = r.number("p");
  if (r.has("k")) spec.k = r.count("k");
  if (r.has("beta")) spec.beta = r.number("beta");
  if (r.has("m")) spec.m = r.count("m");
  if (r.has("radius")) spec.radius = r.number("radius");
  if (r.has("file")) {
    const std::string name = r.string(r.at("file"), "file", "a file name string");
    if (name.empty()) r.fail("file", "the file name is empty");
    const std::filesystem::path folder = std::filesystem::path(file).parent_path();
    spec.file = (folder / name).lexically_normal().string();
  }
}

void read_edges(const TopologyReader& r, topo::TopologySpec& spec) {
  if (r.has("latency")) spec.latency = r.range<SimTime>("latency", kDurationWhat, kParseDuration);
  if (r.has("bandwidth"))
    spec.bandwidth_bps = r.range<uint64_t>("bandwidth", kRateWhat, kParseRate);
  if (r.has("overrides")) {
    const json& list = r.at("overrides");
    if (!list.is_array())
      r.fail("overrides", fmt::format("expected an array, got {}", quoted(list)));
    for (size_t i = 0; i < list.size(); ++i)
      spec.overrides.push_back(read_override(r, list[i], fmt::format("overrides/{}", i)));
  }
  if (r.has("seed"))
    spec.seed = r.unsigned_integer(r.at("seed"), "seed", std::numeric_limits<uint64_t>::max());
}

}  // namespace

topo::TopologySpec parse_topology(const json& j, const std::string& file,
                                  const std::string& pointer, std::optional<uint32_t> agents) {
  const TopologyReader r(j, file, pointer);
  if (!j.is_object()) r.fail("", fmt::format("expected a topology object, got {}", quoted(j)));
  topo::TopologySpec spec;
  spec.kind = read_kind(r);
  check_keys(j, r, spec.kind);
  read_size(r, spec, agents);
  read_parameters(r, spec, file);
  read_edges(r, spec);
  spec.source_file = file;
  spec.source_pointer = pointer;
  if (const auto problem = topo::find_spec_problem(spec)) {
    const std::string top = problem->key.substr(0, problem->key.find('/'));
    r.fail(j.contains(top) ? problem->key : "", problem->message);
  }
  return spec;
}

}  // namespace dlsim
