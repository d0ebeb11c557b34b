// Parsing of the topology object. Type and unit errors are found here with the JSON value in
// hand; range checks are topologies' find_spec_problem, so code-built specs get the same ones.
#include "sim/scenario/topology_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/json_object.hpp"
#include "sim/scenario/topology_kind_keys.hpp"

namespace dlsim {
namespace {

using nlohmann::json;
using topo::TopologyKind;

// The keys every kind accepts (each kind's own: topology_kind_keys).
const std::vector<std::string>& common_keys() {
  static const std::vector<std::string> keys{"kind",      "n",         "latency",
                                             "bandwidth", "overrides", "seed"};
  return keys;
}

// A topology object read through JsonObject, the one JSON reader.
using Reader = JsonObject;

// "2ms", or {"min": "1ms", "max": "5ms"} drawn uniformly per edge; read(object, key) reads one
// value in its unit.
template <class T, class Read>
topo::ValueRange<T> unit_range(Reader& r, const std::string& key, Read read) {
  if (!r.raw(key).is_object()) {
    const T value = read(r, key);
    return {value, value};
  }
  Reader range = r.object(key);
  range.expect_keys(std::vector<std::string>{"min", "max"}, "a range has only \"min\" and \"max\"");
  const T lo = read(range, "min"), hi = read(range, "max");
  if (lo > hi)
    r.fail(key,
           fmt::format("min {} exceeds max {}", range.raw("min").dump(), range.raw("max").dump()));
  return {lo, hi};
}

uint32_t count(Reader& r, const std::string& key) {
  return static_cast<uint32_t>(r.unsigned_integer(key, {}, std::numeric_limits<uint32_t>::max()));
}

TopologyKind read_kind(Reader& r) {
  if (!r.has("kind"))
    r.fail_here("missing key \"kind\"; known kinds: " + topo::topology_kind_names());
  const std::string name = r.string("kind");
  const auto kind = topo::topology_kind_from_string(name);
  if (!kind)
    r.fail("kind", fmt::format("unknown topology kind \"{}\"; known kinds: {}", name,
                               topo::topology_kind_names()));
  return *kind;
}

void check_keys(const Reader& r, TopologyKind kind) {
  std::vector<std::string> allowed = common_keys();
  for (const TopologyKindKey& key : topology_kind_keys(kind)) allowed.push_back(key.name);
  r.expect_keys(allowed, fmt::format("a \"{}\" topology has {}", topo::to_string(kind),
                                     fmt::join(allowed, ", ")));
}

topo::EdgeOverride read_override(Reader& o) {
  o.expect_keys(std::vector<std::string>{"u", "v", "latency", "bandwidth"},
                "an override has u, v, latency and bandwidth");
  topo::EdgeOverride out;
  out.u = static_cast<uint32_t>(o.unsigned_integer("u", {}, topo::kMaxNodes));
  out.v = static_cast<uint32_t>(o.unsigned_integer("v", {}, topo::kMaxNodes));
  if (o.has("latency")) out.latency = o.duration("latency");
  if (o.has("bandwidth")) out.bandwidth_bps = o.rate_bps("bandwidth");
  return out;
}

// Grid and torus: rows and cols, with n (if given) and the agent count agreeing.
void read_lattice_size(Reader& r, topo::TopologySpec& spec, std::optional<uint32_t> agents) {
  for (const char* k : {"rows", "cols"})
    if (!r.has(k)) r.fail_here(fmt::format("missing key \"{}\"", k));
  spec.rows = count(r, "rows");
  spec.cols = count(r, "cols");
  const uint64_t cells = uint64_t{spec.rows} * spec.cols;
  if (agents && cells != *agents)
    r.fail("rows", fmt::format("rows x cols is {} but the scenario has {} agents", cells, *agents));
  if (r.has("n") && spec.n != cells)
    r.fail("n", fmt::format("n is {} but rows x cols is {}", spec.n, cells));
  // Clamped so that find_spec_problem reports an oversized lattice rather than a wrapped n.
  spec.n = static_cast<uint32_t>(std::min<uint64_t>(cells, topo::kMaxNodes + 1));
}

// Hypercube "dimension": n = 2^dimension, agreeing with n or the agent count.
void read_dimension(Reader& r, topo::TopologySpec& spec, std::optional<uint32_t> agents) {
  const uint64_t d = r.unsigned_integer("dimension", {}, 19);
  if (d < 1) r.fail("dimension", "a hypercube needs dimension >= 1, got 0");
  const uint32_t n = uint32_t{1} << d;
  const uint32_t want = agents ? *agents : r.has("n") ? spec.n : n;
  if (n != want)
    r.fail("dimension", fmt::format("dimension {} gives {} nodes but {} is {}", d, n,
                                    agents ? "the agent count" : "n", want));
  spec.n = n;
}

// Fills the node count from "n", rows x cols or "dimension", and the scenario's agents.
void read_size(Reader& r, topo::TopologySpec& spec, std::optional<uint32_t> agents) {
  if (r.has("n")) spec.n = count(r, "n");
  if (spec.kind == TopologyKind::kGrid || spec.kind == TopologyKind::kTorus)
    return read_lattice_size(r, spec, agents);
  if (agents && r.has("n") && spec.n != *agents)
    r.fail("n", fmt::format("n is {} but the scenario has {} agents; drop \"n\" or make them agree",
                            spec.n, *agents));
  if (r.has("dimension")) read_dimension(r, spec, agents);
  if (agents) spec.n = *agents;
  const bool from_file = spec.kind == TopologyKind::kEdgeList || spec.kind == TopologyKind::kDot;
  if (spec.n == 0 && !from_file && !r.has("n"))
    r.fail_here(spec.kind == TopologyKind::kHypercube ? "missing key \"n\" or \"dimension\""
                                                      : "missing key \"n\"");
}

// The kind's own keys, into their fields; a lattice's rows and cols were read with its size.
void read_parameters(Reader& r, topo::TopologySpec& spec) {
  const std::span<const TopologyKindKey> keys = topology_kind_keys(spec.kind);
  for (const TopologyKindKey& key : keys)
    if (!r.has(key.name) && key.name != "dimension")
      r.fail_here(fmt::format("missing key \"{}\"", key.name));
  if (spec.kind == TopologyKind::kGrid || spec.kind == TopologyKind::kTorus) return;
  for (const TopologyKindKey& key : keys)
    key.with_field(spec, [&](auto& value) {
      using Value = std::decay_t<decltype(value)>;
      if constexpr (std::is_same_v<Value, uint32_t>)
        value = count(r, key.name);
      else if constexpr (std::is_same_v<Value, double>)
        value = r.number(key.name);
      else
        value = r.file_path(key.name);
    });
}

void read_edges(Reader& r, topo::TopologySpec& spec) {
  if (r.has("latency"))
    spec.latency = unit_range<SimTime>(
        r, "latency", [](Reader& o, const std::string& k) { return o.duration(k); });
  if (r.has("bandwidth"))
    spec.bandwidth_bps = unit_range<uint64_t>(
        r, "bandwidth", [](Reader& o, const std::string& k) { return o.rate_bps(k); });
  if (r.has("overrides"))
    for (Reader& o : r.objects("overrides")) spec.overrides.push_back(read_override(o));
  if (r.has("seed")) spec.seed = r.unsigned_integer("seed");
}

}  // namespace

topo::TopologySpec parse_topology(const json& j, const std::string& file,
                                  const std::string& pointer, std::optional<uint32_t> agents,
                                  topo::EdgeLimit limit) {
  Reader r(j, file, pointer);
  topo::TopologySpec spec;
  spec.kind = read_kind(r);
  check_keys(r, spec.kind);
  read_size(r, spec, agents);
  read_parameters(r, spec);
  read_edges(r, spec);
  spec.source_file = file;
  spec.source_pointer = pointer;
  if (const auto problem = topo::find_spec_problem(spec, limit)) {
    // The problem's key is a path relative to the topology object ("overrides/1/u").
    const std::string top = problem->key.substr(0, problem->key.find('/'));
    if (!j.contains(top)) r.fail_here(problem->message);
    r.fail_relative("/" + problem->key + ": " + problem->message);
  }
  return spec;
}

}  // namespace dlsim
