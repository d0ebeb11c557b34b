#include "sim/scenario/dynamic_json.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/json_object.hpp"
#include "sim/scenario/topology_json.hpp"

namespace dlsim {
namespace {

using nlohmann::json;
using topo::DynamicKind;

// An overlay graph: a topology object whose edges say who talks, not where links are.
topo::TopologySpec overlay_graph(JsonObject& parent, const json& j, const std::string& pointer,
                                 uint32_t agents) {
  topo::TopologySpec spec = parse_topology(j, parent.file(), pointer, agents);
  for (const char* key : {"latency", "bandwidth", "overrides"})
    if (j.contains(key))
      throw InputError(fmt::format(
          "{}: {}/{}: an overlay graph has no links of its own (messages travel over the "
          "underlay); set latency and bandwidth in /network or /network/underlay",
          parent.file(), pointer, key));
  return spec;
}

void read_sequence(JsonObject& d, topo::DynamicSpec& spec, uint32_t agents) {
  const json& list = d.raw("topologies");
  const std::string list_pointer = child_pointer(d.pointer(), "topologies");
  if (!list.is_array() || list.empty())
    d.fail("topologies", fmt::format("expected a non-empty array of topology objects, got {}",
                                     list.dump()));
  for (size_t i = 0; i < list.size(); ++i)
    spec.graphs.push_back(overlay_graph(d, list[i], child_pointer(list_pointer, i), agents));
  if (d.has("every") == d.has("at"))
    d.fail_here("give either \"every\" (iterations per graph) or \"at\" (simulated times), "
                "not both or neither");
  if (d.has("every")) {
    spec.every = d.integer("every", {}, 1);
    return;
  }
  spec.at = d.durations("at");
  if (spec.at.size() != spec.graphs.size())
    d.fail("at", fmt::format("expected one time per topology ({}), got {}", spec.graphs.size(),
                             spec.at.size()));
  if (spec.at.front() != SimTime{})
    d.fail("at", "the first topology starts at \"0\"");
  for (size_t i = 1; i < spec.at.size(); ++i)
    if (!(spec.at[i - 1] < spec.at[i]))
      throw InputError(fmt::format("{}: {}: times must increase strictly", d.file(),
                                   child_pointer(child_pointer(d.pointer(), "at"), i)));
}

// The graph rendered back without the link values topology_to_json fills in.
json overlay_graph_to_json(const topo::TopologySpec& spec) {
  json j = topology_to_json(spec);
  for (const char* key : {"latency", "bandwidth", "overrides"}) j.erase(key);
  return j;
}

}  // namespace

bool is_dynamic_topology(const json& j) { return j.is_object() && j.contains("dynamic"); }

topo::DynamicSpec parse_dynamic_topology(const json& j, const std::string& file,
                                         const std::string& pointer, uint32_t agents) {
  JsonObject top(j, file, pointer);
  JsonObject d = top.object("dynamic");
  top.finish();
  topo::DynamicSpec spec;
  spec.kind = d.choice<DynamicKind>(
      "kind", {{"one_peer_exponential", DynamicKind::kOnePeerExponential},
               {"random_matching", DynamicKind::kRandomMatching},
               {"epidemic", DynamicKind::kEpidemic},
               {"sequence", DynamicKind::kSequence}});
  switch (spec.kind) {
    case DynamicKind::kOnePeerExponential:
      break;
    case DynamicKind::kRandomMatching:
      if (d.has("over"))
        spec.graphs.push_back(
            overlay_graph(d, d.raw("over"), child_pointer(d.pointer(), "over"), agents));
      break;
    case DynamicKind::kEpidemic:
      spec.s = static_cast<uint32_t>(d.integer("s", {}, 1, agents - 1));
      break;
    case DynamicKind::kSequence:
      read_sequence(d, spec, agents);
      break;
  }
  d.finish();
  return spec;
}

json dynamic_topology_to_json(const topo::DynamicSpec& spec) {
  json d = {{"kind", to_string(spec.kind)}};
  switch (spec.kind) {
    case DynamicKind::kOnePeerExponential:
      break;
    case DynamicKind::kRandomMatching:
      if (!spec.graphs.empty()) d["over"] = overlay_graph_to_json(spec.graphs.front());
      break;
    case DynamicKind::kEpidemic:
      d["s"] = spec.s;
      break;
    case DynamicKind::kSequence: {
      json list = json::array();
      for (const topo::TopologySpec& g : spec.graphs) list.push_back(overlay_graph_to_json(g));
      d["topologies"] = list;
      if (spec.every > 0) {
        d["every"] = spec.every;
      } else {
        json at = json::array();
        for (SimTime t : spec.at) at.push_back(format_duration(t));
        d["at"] = at;
      }
      break;
    }
  }
  return {{"dynamic", d}};
}

}  // namespace dlsim
