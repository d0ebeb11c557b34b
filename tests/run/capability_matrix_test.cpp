// The capability matrix, walked cell by cell: every algorithm x time mode x dynamic graph x churn
// x link failures x compression x per-tensor trigger x a robust aggregation rule. A cell either
// runs 20 iterations, with the asked-for feature visible in what it measured (nothing silently
// dropped; a robust rule: another fingerprint than the mean's), or is refused with an InputError
// naming one of the keys the cell turned on. Which of the two is predicted from the descriptor's
// capabilities (sim/scenario/algorithm_descriptor.hpp), so the table `dlsim algorithms` prints
// and the docs hold is what runs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sim/agents/round_hooks.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;
using nlohmann::json;

namespace {

struct Cell {
  bool async = false, dynamic = false, churn = false, failures = false, compression = false,
       per_tensor = false, aggregation = false;

  std::string describe(std::string_view algorithm) const {
    std::string out(algorithm);
    for (auto [on, name] : {std::pair{async, " async"},
                            {dynamic, " dynamic"},
                            {churn, " churn"},
                            {failures, " failures"},
                            {compression, " compression"},
                            {per_tensor, " per-tensor"},
                            {aggregation, " median"}})
      if (on) out += name;
    return out;
  }
  /// The keys a refusal of this cell may name: those of the features it turns on.
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    if (async) k.insert(k.end(), {"/time/mode", "/topology/dynamic", "/algorithm/order"});
    if (dynamic) k.push_back("/topology/dynamic");
    if (churn) k.push_back("/churn");
    if (failures) k.push_back("/network/failures");
    if (compression) k.push_back("/algorithm/compression");
    if (per_tensor) k.push_back("/trigger");
    if (aggregation) k.push_back("/algorithm/aggregation");
    return k;
  }
};

bool takes(const AlgorithmCapabilities& c, TriggerKind k) {
  return std::find(c.triggers.begin(), c.triggers.end(), k) != c.triggers.end();
}

// The trigger of a cell: a per-tensor threshold, or the algorithm's first trigger kind.
json trigger_for(const AlgorithmCapabilities& c, const Cell& cell) {
  if (cell.per_tensor) return {{"kind", "threshold"}, {"v0", 0.001}, {"granularity", "layer"}};
  switch (c.triggers.front()) {
    case TriggerKind::kPeriodic:
      return {{"kind", "periodic"}, {"tau", 2}};
    case TriggerKind::kProbability:
      return {{"kind", "probability"}, {"p", 0.5}};
    case TriggerKind::kThreshold:
      return {{"kind", "threshold"}, {"v0", 0.001}};
    case TriggerKind::kAdaptive:
      return {{"kind", "adaptive"}, {"horizon", 1.0}};
    default:
      return {{"kind", std::string(to_string(c.triggers.front()))}};
  }
}

json scenario_for(const AlgorithmDescriptor& d, const Cell& cell) {
  const AlgorithmCapabilities& c = d.capabilities();
  json j = {{"name", "cell"},
            {"agents", 8},
            {"model", {{"kind", "quadratic"}, {"dim", 16}}},
            {"algorithm", {{"kind", std::string(d.name())}}},
            {"network", {{"latency", "1ms"}, {"bandwidth", "100Mbps"}}},
            {"time", {{"mode", cell.async ? "async" : "sync"}, {"compute", {{"step", "2ms"}}}}},
            {"run", {{"iterations", 20}}}};
  if (d.name() == "choco") j["algorithm"]["gamma"] = 0.5;
  if (cell.dynamic) j["topology"] = {{"dynamic", {{"kind", "epidemic"}, {"s", 2}}}};
  if (cell.churn)
    j["churn"] = {{"kind", "markov"}, {"mean_online", "10ms"}, {"mean_offline", "10ms"}};
  if (cell.failures)
    j["network"]["failures"] = {{"kind", "markov"}, {"mtbf", "10ms"}, {"mttr", "10ms"}};
  if (cell.compression) j["algorithm"]["compression"] = {{"kind", "top_k"}, {"k", 4}};
  // The default ring: 3 models per neighbourhood, a true middle one.
  if (cell.aggregation) j["algorithm"]["aggregation"] = {{"rule", "median"}};
  if (!c.triggers.empty() || cell.per_tensor) j["trigger"] = trigger_for(c, cell);
  return j;
}

// Refusals that depend on two features together, beyond the capabilities one by one
// (the descriptors' check(); docs/algorithms.md lists them under the table).
bool refused_together(std::string_view algorithm, const Cell& cell) {
  if (cell.per_tensor && cell.compression) return true;  // whole tensors take no compression
  if (cell.aggregation && cell.dynamic) return true;  // a robust rule needs fixed neighbours
  return algorithm == "detsgrad" && cell.dynamic && (cell.compression || cell.per_tensor);
}

bool predicted_to_run(const AlgorithmDescriptor& d, const Cell& cell) {
  const AlgorithmCapabilities& c = d.capabilities();
  if (cell.async && !c.async) return false;
  if (cell.dynamic && !(cell.async ? c.dynamic_async : c.dynamic)) return false;
  if (cell.churn && !c.churn) return false;
  if (cell.failures && !c.lossy_links) return false;
  if (cell.compression && !c.compression) return false;
  if (cell.per_tensor && !(c.per_tensor && takes(c, TriggerKind::kThreshold))) return false;
  if (cell.aggregation && !c.aggregation) return false;
  return !refused_together(d.name(), cell);
}

std::string scratch_folder(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(DLSIM_BINARY_DIR) / "tests" /
                                  "capability_runs" / (std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p.parent_path());
  return p.string();
}

// Runs or refuses one cell, and checks that against the prediction.
void walk(const AlgorithmDescriptor& d, const Cell& cell) {
  const std::string what = cell.describe(d.name());
  CAPTURE(what);
  std::string refusal;
  ScenarioSpec spec;
  try {
    spec = parse_scenario(scenario_for(d, cell), "cell.json");
  } catch (const InputError& e) {
    refusal = e.what();
  }
  const bool predicted = predicted_to_run(d, cell);
  if (!refusal.empty()) {
    CAPTURE(refusal);
    CHECK_FALSE(predicted);
    const std::vector<std::string> keys = cell.keys();
    CHECK(std::any_of(keys.begin(), keys.end(),
                      [&](const std::string& k) { return refusal.find("cell.json: " + k) == 0; }));
    return;
  }
  REQUIRE(predicted);
  RunOptions options;
  options.out = scratch_folder(what);
  std::ostringstream log;
  const RunReport report = run_scenario(spec, options, log);
  std::filesystem::remove_all(options.out);
  const json& comm = report.summary.at("comm");
  CHECK(report.summary.at("iterations") == 20);
  if (comm.at("messages") == 0) return;  // nothing sent: no feature to see in the counts
  // What the cell asked for shows in what was measured.
  if (cell.compression) CHECK(comm.at("compression_ratio").get<double>() > 1.0);
  if (cell.failures) CHECK(comm.at("dropped_by_reason").at("link_down").get<uint64_t>() > 0);
  if (cell.churn) CHECK(comm.at("dropped_by_reason").at("offline").get<uint64_t>() > 0);
  if (cell.per_tensor) CHECK(comm.at("tensor_sends").get<uint64_t>() > 0);
  if (cell.aggregation) {  // the median mixed: the same cell with the mean ends elsewhere
    Cell with_mean = cell;
    with_mean.aggregation = false;
    RunOptions mean_options;
    mean_options.out = scratch_folder(what + " mean");
    const RunReport mean_report = run_scenario(
        parse_scenario(scenario_for(d, with_mean), "cell.json"), mean_options, log);
    std::filesystem::remove_all(mean_options.out);
    CHECK(report.summary.at("fingerprint") != mean_report.summary.at("fingerprint"));
  }
}

void walk_every_cell(std::string_view name) {
  const AlgorithmDescriptor* d = find_algorithm(name);
  REQUIRE(d != nullptr);
  for (int bits = 0; bits < 128; ++bits)
    walk(*d, Cell{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0,
                  (bits & 16) != 0, (bits & 32) != 0, (bits & 64) != 0});
}

const char* const kAlgorithms[] = {"centralized", "none",           "dpsgd",     "detsgrad",
                                   "gossip",      "elastic_gossip", "allreduce", "local_sgd",
                                   "easgd",       "choco",          "eventgrad"};

}  // namespace

TEST_CASE("the capability matrix walks every registered algorithm") {
  std::vector<std::string_view> registered;
  for (const AlgorithmDescriptor* d : algorithm_descriptors()) registered.push_back(d->name());
  CHECK(registered ==
        std::vector<std::string_view>(std::begin(kAlgorithms), std::end(kAlgorithms)));
}

TEST_CASE("a descriptor says rounds in async mode exactly when its algorithm is a collective") {
  for (const AlgorithmDescriptor* d : algorithm_descriptors()) {
    CAPTURE(d->name());
    const ScenarioSpec spec = parse_scenario(scenario_for(*d, Cell{}), "cell.json");
    const std::unique_ptr<World> world = build_world(spec, models::DataPaths{});
    const auto* hooks = dynamic_cast<const RoundHooks*>(world->algorithm.get());
    CHECK((hooks != nullptr && hooks->collective()) == d->capabilities().rounds_in_async);
  }
}

// One test case per algorithm, so that ctest runs them side by side.
TEST_CASE("capability matrix: centralized") { walk_every_cell("centralized"); }
TEST_CASE("capability matrix: none") { walk_every_cell("none"); }
TEST_CASE("capability matrix: dpsgd") { walk_every_cell("dpsgd"); }
TEST_CASE("capability matrix: detsgrad") { walk_every_cell("detsgrad"); }
TEST_CASE("capability matrix: gossip") { walk_every_cell("gossip"); }
TEST_CASE("capability matrix: elastic_gossip") { walk_every_cell("elastic_gossip"); }
TEST_CASE("capability matrix: allreduce") { walk_every_cell("allreduce"); }
TEST_CASE("capability matrix: local_sgd") { walk_every_cell("local_sgd"); }
TEST_CASE("capability matrix: easgd") { walk_every_cell("easgd"); }
TEST_CASE("capability matrix: choco") { walk_every_cell("choco"); }
TEST_CASE("capability matrix: eventgrad") { walk_every_cell("eventgrad"); }
