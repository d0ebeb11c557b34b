// parse_scenario and scenario_to_json (declared in load_scenario.hpp): the top level of a
// scenario and the checks that span sections.
#include <filesystem>
#include <variant>

#include "models/model.hpp"
#include "sim/scenario/algorithm_json.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/byzantine_json.hpp"
#include "sim/scenario/churn_json.hpp"
#include "sim/scenario/dynamic_json.hpp"
#include "sim/scenario/learning_json.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/run_json.hpp"
#include "sim/scenario/topology_json.hpp"
#include "sim/scenario/underlay.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

bool is_quadratic(const models::ModelSpec& m) {
  return std::holds_alternative<models::QuadraticSpec>(m.arch);
}

// What the algorithm can run with (its descriptor's capabilities), then its own checks.
void check_capabilities(const ScenarioSpec& s, const json& j) {
  const std::string& file = s.file;
  const AlgorithmDescriptor& algorithm = *s.algorithm.descriptor;
  const AlgorithmCapabilities& caps = algorithm.capabilities();
  const std::string name(algorithm.name());
  if (!caps.optimizer && j.contains("optimizer")) {
    for (const auto& [key, value] : j.at("optimizer").items())
      if (key != "kind" || value != "sgd")
        throw InputError(fmt::format("{}: /optimizer/{}: \"{}\" takes its step sizes from "
                                     "/algorithm; the optimizer can only be {{\"kind\": "
                                     "\"sgd\"}}", file, key, name));
  }
  if (!caps.lossy_links && s.network.loss_probability > 0)
    throw InputError(fmt::format("{}: /network/loss: \"{}\" cannot lose a message (a collective "
                                 "needs every chunk); use loss 0", file, name));
  if (!caps.lossy_links && s.network.failures.kind != FailureKind::kNone)
    throw InputError(fmt::format("{}: /network/failures: \"{}\" cannot lose a message to a "
                                 "failed link (a collective needs every chunk); remove this key",
                                 file, name));
  // topologies/README.md, "Dynamic topologies".
  if (s.dynamic && !caps.dynamic)
    throw InputError(fmt::format("{}: /topology/dynamic: a dynamic topology works with {} so "
                                 "far; \"{}\" keeps state per fixed neighbour", file,
                                 algorithms_with(&AlgorithmCapabilities::dynamic), name));
  // Async mode has no rounds: each agent draws its own targets when it starts an iteration
  // (topologies/README.md, "Dynamic topologies in async mode").
  if (s.dynamic && s.time.mode == TimeMode::kAsync) {
    if (s.dynamic->kind == topo::DynamicKind::kSequence)
      throw InputError(fmt::format("{}: /topology/dynamic: \"sequence\" runs in sync mode only "
                                   "(it switches every agent's graph at once and weighs it with "
                                   "Metropolis weights, which needs a common round); in async "
                                   "mode use \"epidemic\", \"one_peer_exponential\" or "
                                   "\"random_matching\"", file));
    if (!caps.dynamic_async)
      throw InputError(fmt::format("{}: /topology/dynamic: \"{}\" on a dynamic topology runs in "
                                   "sync mode only (it keeps a copy per neighbour, and in async "
                                   "mode every agent changes neighbours at its own iterations); "
                                   "in async mode use {}", file, name,
                                   algorithms_with(&AlgorithmCapabilities::dynamic_async, "or")));
  }
  // A robust rule needs a fixed set of held copies, sized once (docs/algorithms.md, "Robust
  // aggregation"); a dynamic overlay changes them every round (or, in async mode, averages its
  // inbox uniformly).
  if (s.dynamic && s.algorithm.aggregation.kind != AggregationKind::kMean)
    throw InputError(fmt::format("{}: /algorithm/aggregation: \"{}\" works on a static topology "
                                 "only; on a dynamic one (/topology/dynamic) use \"mean\"", file,
                                 to_string(s.algorithm.aggregation.kind)));
  if (!caps.async && s.time.mode == TimeMode::kAsync)
    throw InputError(fmt::format("{}: /time/mode: \"{}\" runs in sync mode only ({})", file,
                                 name, caps.sync_only_reason));
  if (s.churn && !caps.churn)
    throw InputError(fmt::format("{}: /churn: churn works with {} so far, not \"{}\"", file,
                                 algorithms_with(&AlgorithmCapabilities::churn), name));
  algorithm.check(s);
}

// Sections that only make sense together.
void check_combinations(JsonObject& top, const json& j, ScenarioSpec& s) {
  const std::string& file = s.file;
  if (is_quadratic(s.model) && s.data)
    top.fail("data", "a quadratic model needs no data; remove this section");
  if (!is_quadratic(s.model) && !s.data) top.fail("data", "required key is missing");
  if (s.dynamic && !implicit_complete_underlay(s))
    if (const auto problem = topo::find_spec_problem(s.topology))
      throw InputError(fmt::format("{}: /network/underlay: {}", file, problem->message));
  if (s.data) {
    const models::InputShape shape = input_shape(s.data);
    const models::PartitionSpec& p = s.data->partition;
    if (p.kind == models::PartitionKind::kByLabel && p.labels_per_agent > shape.classes)
      throw InputError(fmt::format("{}: /data/partition/labels_per_agent: {} labels per agent, "
                                   "but the dataset has {} classes", file, p.labels_per_agent,
                                   shape.classes));
    if (p.kind == models::PartitionKind::kExplicit && p.agent_classes.size() != s.agents)
      throw InputError(fmt::format("{}: /data/partition/classes: {} class lists for {} agents",
                                   file, p.agent_classes.size(), s.agents));
  }
  check_capabilities(s, j);
  check_byzantine(s);
  if (s.trigger && per_tensor(*s.trigger) && s.algorithm.compression.enabled())
    throw InputError(fmt::format("{}: /algorithm/compression: a per-tensor trigger sends whole "
                                 "tensors; it takes no compression (remove one of them)", file));
  // Shapes are checked by building the architecture once (cheap: no parameters are allocated).
  RandomStream unused(0);
  uint64_t parameters = 0;
  try {
    parameters = static_cast<uint64_t>(
        models::Model::build(s.model, input_shape(s.data), unused).parameter_count());
  } catch (const InputError& e) {
    JsonObject(j.at("model"), file, "/model").fail_relative(e.what());
  }
  const CompressionSpec& c = s.algorithm.compression;
  if (c.sparsifier != Sparsifier::kNone && c.k > parameters)
    throw InputError(fmt::format("{}: /algorithm/compression: k = {} is more than the model's {} "
                                 "parameters", file, c.k, parameters));
}

}  // namespace

ScenarioSpec parse_scenario(const json& j, const std::string& file) {
  JsonObject top(j, file, "");
  ScenarioSpec s;
  s.file = file;
  s.name = top.string("name", std::filesystem::path(file).stem().string());
  // The name becomes a folder (runs/<name>): no separators, no "." or "..".
  const bool safe = !s.name.empty() && s.name != "." && s.name != ".." &&
                    s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789._-") == std::string::npos;
  if (!safe)
    top.fail("name", fmt::format("expected letters, digits, '.', '_' or '-', got \"{}\"", s.name));
  s.seed = static_cast<uint64_t>(top.integer("seed", 1, 0));
  s.agents = static_cast<uint32_t>(top.integer("agents", {}, 1, 10000000));
  // Default graph: a ring; two agents: their one edge; one agent has no graph at all.
  static const json kRing = {{"kind", "ring"}};
  static const json kComplete = {{"kind", "complete"}};
  const json& topology_json =
      top.has("topology") ? top.raw("topology") : (s.agents >= 3 ? kRing : kComplete);
  if (s.agents == 1 && top.has("topology"))
    top.fail("topology", "one agent has no graph; remove this key");
  JsonObject network = top.object("network", true);
  const json* links_json = &topology_json;  // the object whose edges become links
  if (s.agents > 1 && is_dynamic_topology(topology_json)) {
    s.dynamic = parse_dynamic_topology(topology_json, file, "/topology", s.agents);
    links_json = network.has("underlay") ? &network.raw("underlay") : &kComplete;
    // Errors of the default complete underlay also name the key that fixes them. Its edge count
    // is checked once the whole scenario says whether they are built (check_combinations).
    s.topology = parse_topology(*links_json, file, "/network/underlay", s.agents,
                                topo::EdgeLimit::kUnchecked);
  } else if (s.agents > 1) {
    if (network.has("underlay"))
      network.fail("underlay", "applies to a dynamic topology (/topology/dynamic); a static "
                               "topology's edges are the links themselves");
    s.topology = parse_topology(topology_json, file, "/topology", s.agents);
  }
  s.network = parse_network(network, s.topology, *links_json, s.agents);
  if (top.has("churn")) {
    if (s.agents == 1) top.fail("churn", "one agent has nobody to leave; remove this key");
    s.churn = parse_churn(top.object("churn"), s.agents);
  }
  if (top.has("byzantine")) {
    if (s.agents == 1)
      top.fail("byzantine", "one agent has no neighbour to attack; remove this key");
    s.byzantine = parse_byzantine(top.object("byzantine"), s.agents, s.seed);
  }
  s.time = parse_time(top.object("time", true), s.agents);
  if (top.has("data")) s.data = parse_data(top.object("data"));
  s.model = parse_model(top.object("model"));
  s.init = top.choice<InitKind>("init", {{"common", InitKind::kCommon},
                                         {"independent", InitKind::kIndependent}},
                                InitKind::kCommon);
  s.optimizer = parse_optimizer(top.object("optimizer", true));
  s.algorithm = parse_algorithm(top.object("algorithm"), s.agents, s.topology);
  s.trigger = parse_trigger(top.has("trigger") ? &top.raw("trigger") : nullptr, file, "/trigger",
                            *s.algorithm.descriptor);
  s.run = parse_run(top.object("run"));
  top.finish();
  check_combinations(top, j, s);
  return s;
}

json scenario_to_json(const ScenarioSpec& s) {
  json j = {{"name", s.name},
            {"seed", s.seed},
            {"agents", s.agents},

            {"network", network_to_json(s.network)},
            {"time", time_to_json(s.time)},
            {"model", model_to_json(s.model)},
            {"init", s.init == InitKind::kCommon ? "common" : "independent"},
            {"algorithm", algorithm_to_json(s.algorithm)},
            {"run", run_to_json(s.run)}};
  if (s.agents > 1 && s.dynamic) {
    j["topology"] = dynamic_topology_to_json(*s.dynamic);
    j["network"]["underlay"] = topology_to_json(s.topology);
  } else if (s.agents > 1) {
    j["topology"] = topology_to_json(s.topology);
  }
  if (s.data) j["data"] = data_to_json(*s.data);
  if (s.churn) j["churn"] = churn_to_json(*s.churn);
  if (s.byzantine) j["byzantine"] = byzantine_to_json(*s.byzantine);
  j["optimizer"] = s.algorithm.descriptor->capabilities().optimizer
                       ? optimizer_to_json(s.optimizer)
                       : json{{"kind", "sgd"}};
  if (s.trigger) j["trigger"] = trigger_to_json(*s.trigger);
  return j;
}

}  // namespace dlsim
